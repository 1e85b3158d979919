// Review 3, item 5: a fresh sudo alone no longer adds a key to an account that has one (a step-up with one of its
// keys does), the first key still needs only sudo, a first key registered beside another one in flight is refused,
// and every address of the account (its email identities and its recovery address) is mailed each add and removal.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionId } from "../helpers/account-security";
import { type EmailBrowser, freshEmail, lastCode, mailsAfter, mailsTo, signedInByEmail } from "../helpers/email-code";
import { SoftAuthenticator } from "../helpers/soft-authenticator";
import { answer, optionsFrom, registerKey, stepUp } from "../helpers/webauthn-flows";

const OPTIONS = "/api/auth/webauthn/register/options";

/** Clears the session's step-up (as if it were older than the window), keeping its fresh sudo. */
async function staleStepUp(browser: EmailBrowser): Promise<void> {
  await env.DB.prepare("UPDATE sessions SET stepped_up_at = NULL WHERE id = ?")
    .bind(await sessionId(browser))
    .run();
}

describe("adding a key to an account that has one", () => {
  it("needs a step-up with an existing key: a fresh sudo alone is step_up_required at both steps", async () => {
    const { browser } = await signedInByEmail();
    // The account's first key: a fresh sudo (the email sign-in) is enough.
    const owners = new SoftAuthenticator();
    expect((await registerKey(browser, owners)).status).toBe(201);
    // A second key with the same fresh sudo and no step-up: refused, nothing stored.
    const options = await answer(await browser.post(OPTIONS));
    expect(options).toMatchObject({ status: 403, body: { ok: false, reason: "step_up_required" } });
    // The answer step checks too: options asked after a step-up, the step-up gone before the answer.
    expect((await stepUp(browser, owners)).status).toBe(200);
    const asked = await optionsFrom(browser, OPTIONS);
    await staleStepUp(browser);
    const response = await new SoftAuthenticator().create(asked);
    const late = await answer(await browser.post("/api/auth/webauthn/register", { response }));
    expect(late).toMatchObject({ status: 403, body: { reason: "step_up_required" } });
    // After a step-up with the existing key: allowed.
    expect((await stepUp(browser, owners)).status).toBe(200);
    expect((await registerKey(browser, new SoftAuthenticator())).status).toBe(201);
    const keys = await answer(await browser.fetch("/api/auth/webauthn/credentials"));
    expect(keys.body.keys).toHaveLength(2);
  });

  it("an account with no key adds its first with sudo; a second first key in flight is refused", async () => {
    const { browser } = await signedInByEmail();
    // Two registrations started while the account had no key: the first to finish is stored, the other refused.
    const one = await optionsFrom(browser, OPTIONS);
    const two = await optionsFrom(browser, OPTIONS);
    const first = await browser.post("/api/auth/webauthn/register", {
      response: await new SoftAuthenticator().create(one),
    });
    expect(first.status).toBe(201);
    const second = await answer(
      await browser.post("/api/auth/webauthn/register", { response: await new SoftAuthenticator().create(two) }),
    );
    expect(second).toMatchObject({ status: 403, body: { reason: "step_up_required" } });
  });
});

describe("notices", () => {
  it("every address of the account is mailed when a key is added and when one is removed", async () => {
    const { browser, email } = await signedInByEmail();
    const recovery = freshEmail("recovery");
    expect((await browser.post("/api/auth/recovery/start", { email: recovery })).status).toBe(200);
    const set = await browser.post("/api/auth/recovery/verify", { email: recovery, code: await lastCode(recovery) });
    expect(set.status).toBe(200);
    const seen = { [email]: (await mailsTo(email)).length, [recovery]: (await mailsTo(recovery)).length };
    const soft = new SoftAuthenticator();
    const added = await registerKey(browser, soft, {}, "Blue key");
    expect(added.status).toBe(201);
    for (const to of [email, recovery]) {
      const mails = await mailsAfter(to, seen[to] as number);
      expect(mails.map((m) => m.subject)).toContain("A security key was added to your account");
      expect(mails.find((m) => m.subject.includes("added"))?.text).toContain("Blue key");
      seen[to] = (await mailsTo(to)).length;
    }
    // The last key: a fresh sudo removes it, and every address is told.
    const removed = await browser.fetch(`/api/auth/webauthn/credentials/${added.response.id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    for (const to of [email, recovery]) {
      const mails = await mailsAfter(to, seen[to] as number);
      expect(mails.map((m) => m.subject)).toContain("A security key was removed from your account");
    }
  });
});
