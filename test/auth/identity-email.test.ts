// Linking an email to the signed-in account by a code (issue 27): a fresh sudo at both steps, the refusals told only
// after the code proves the address, and codes split by purpose: a link code never signs in, a sign-in code never links.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { codeMac, MAX_FAILURES } from "../../shared/auth/email-code";
import { accountLogOf, EmailBrowser, freshEmail, lastCode, staleSudo, wrongCode } from "../helpers/email-code";
import { accountRow } from "../helpers/tokens";
import { newWallet } from "../helpers/wallet";

type Answer = { status: number; body: { ok: boolean; reason?: string; detail?: string; identity?: unknown } };

/** A browser signed in to a new Bitcoin account (so its sudo is fresh), and that account's did. */
async function signedIn(): Promise<{ browser: EmailBrowser; did: string }> {
  const browser = new EmailBrowser();
  expect((await browser.signIn(newWallet())).status).toBe(200);
  return { browser, did: (await browser.me()).body.account.did_oc };
}

async function call(browser: EmailBrowser, step: "start" | "verify", body: unknown): Promise<Answer> {
  const res = await browser.post(`/api/auth/identities/email/${step}`, body);
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

const codeRow = (id: string) =>
  env.DB.prepare("SELECT * FROM email_codes WHERE id = ?")
    .bind(id)
    .first<{ id: string; purpose: string; account_id: string | null; failures: number; code_mac: string }>();

describe("linking an email identity by code", () => {
  it("links the address with the code mailed to it; the log says so; signing in with that address reaches the same account", async () => {
    const { browser, did } = await signedIn();
    const email = freshEmail();
    expect(await call(browser, "start", { email })).toEqual({ status: 200, body: { ok: true } });
    const linked = await call(browser, "verify", { email, code: await lastCode(email) });
    expect(linked).toEqual({ status: 200, body: { ok: true, identity: { kind: "email", value: email } } });
    expect((await accountLogOf(did)).map((e) => [e.event_type, e.detail])).toContainEqual([
      "identity.linked",
      { kind: "email", value: email },
    ]);
    const other = new EmailBrowser();
    await other.start(email);
    const signIn = await other.verify(email, await lastCode(email));
    expect(signIn.status).toBe(200);
    expect(signIn.body.account.did_oc).toBe(did);
  });

  it("needs a fresh sudo at both steps: a stale session is sudo_required, and its try is not counted", async () => {
    const { browser, did } = await signedIn();
    const email = freshEmail();
    expect((await call(browser, "start", { email })).status).toBe(200);
    const code = await lastCode(email);
    await staleSudo(did);
    const verify = await call(browser, "verify", { email, code });
    expect(verify).toMatchObject({ status: 403, body: { reason: "sudo_required" } });
    const { id } = await accountRow(did);
    expect((await codeRow(`link:${id}`))?.failures).toBe(0);
    expect((await call(browser, "start", { email: freshEmail() })).body.reason).toBe("sudo_required");
    const anonymous = await call(new EmailBrowser(), "start", { email });
    expect(anonymous).toMatchObject({ status: 401, body: { reason: "not_authenticated" } });
  });

  it("an address on another account is identity_on_other_account, one already here identity_already_linked, each only after its code", async () => {
    const owner = new EmailBrowser();
    const taken = freshEmail();
    await owner.start(taken);
    expect((await owner.verify(taken, await lastCode(taken))).status).toBe(200);
    const { browser } = await signedIn();
    expect((await call(browser, "start", { email: taken })).status).toBe(200); // the same answer as for any address
    const other = await call(browser, "verify", { email: taken, code: await lastCode(taken) });
    expect(other).toMatchObject({ status: 409, body: { reason: "identity_on_other_account" } });
    const mine = freshEmail();
    await call(browser, "start", { email: mine });
    expect((await call(browser, "verify", { email: mine, code: await lastCode(mine) })).status).toBe(200);
    await call(browser, "start", { email: mine });
    const again = await call(browser, "verify", { email: mine, code: await lastCode(mine) });
    expect(again).toMatchObject({ status: 409, body: { reason: "identity_already_linked" } });
  });

  it("a link code keeps the code limits: a resend keeps the wrong tries, 5 spend it (email_code_locked), an expired one is email_code_expired", async () => {
    const { browser, did } = await signedIn();
    const { id } = await accountRow(did);
    const email = freshEmail();
    await call(browser, "start", { email });
    const first = await lastCode(email);
    for (let i = 0; i < 3; i++) {
      expect((await call(browser, "verify", { email, code: wrongCode(first, i) })).body.reason).toBe(
        "email_code_invalid",
      );
    }
    await call(browser, "start", { email }); // a resend: a new code, the three failures kept
    const code = await lastCode(email);
    expect((await codeRow(`link:${id}`))?.failures).toBe(3);
    await call(browser, "verify", { email, code: wrongCode(code) });
    const last = await call(browser, "verify", { email, code: wrongCode(code, 1) });
    expect(last.body).toMatchObject({ reason: "email_code_invalid", detail: "0 tries left on this code" });
    const locked = await call(browser, "verify", { email, code });
    expect(locked).toMatchObject({ status: 429, body: { reason: "email_code_locked" } });
    expect((await codeRow(`link:${id}`))?.failures).toBe(MAX_FAILURES);
    // A start after a spent code opens a new attempt for the account; once expired, it fails as expired.
    await call(browser, "start", { email });
    await env.DB.prepare("UPDATE email_codes SET expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1, `link:${id}`)
      .run();
    const expired = await call(browser, "verify", { email, code: await lastCode(email) });
    expect(expired).toMatchObject({ status: 401, body: { reason: "email_code_expired" } });
  });

  it("codes are split by purpose: a link code never signs in (not even from a row renamed to a browser's attempt), a sign-in code never links", async () => {
    const { browser, did } = await signedIn();
    const { id } = await accountRow(did);
    const email = freshEmail();
    await call(browser, "start", { email });
    const linkCode = await lastCode(email);
    const row = await codeRow(`link:${id}`);
    expect(row).toMatchObject({ purpose: "link", account_id: id });
    expect(row?.code_mac).toBe(
      await codeMac(env.EMAIL_CODE_KEY as string, email, `link:${id}`, linkCode, { purpose: "link", accountId: id }),
    );
    // The link code against a sign-in attempt of this address: no sign-in.
    const stranger = new EmailBrowser();
    await stranger.start(email);
    expect((await stranger.verify(email, linkCode)).body.reason).toBe("email_code_invalid");
    // The link row given a browser's attempt id and named by a cookie: the sign-in query does not find it (purpose).
    const forged = "L".repeat(22);
    await env.DB.prepare("UPDATE email_codes SET id = ? WHERE id = ?").bind(forged, `link:${id}`).run();
    const thief = new EmailBrowser();
    thief.attempt = forged;
    const byCookie = await thief.verify(email, linkCode);
    expect(byCookie.body).toMatchObject({
      reason: "email_code_invalid",
      detail: expect.stringMatching(/this browser/),
    });
    expect((await codeRow(forged))?.failures).toBe(0); // not even counted
    // Its purpose rewritten too: found and counted, but the MAC binds the purpose and account, so it fails.
    await env.DB.prepare("UPDATE email_codes SET purpose = 'signin' WHERE id = ?").bind(forged).run();
    expect((await thief.verify(email, linkCode)).body.detail).toBe("4 tries left on this code");
    // A sign-in code of the address, posted to link: no link.
    const signInCode = await (async () => {
      await stranger.start(email);
      return lastCode(email);
    })();
    await call(browser, "start", { email: freshEmail() }); // the account's link attempt is for another address now
    expect((await call(browser, "verify", { email, code: signInCode })).body.reason).toBe("email_code_invalid");
    // Even moved onto the account's link attempt, purpose and all: the MAC was made for a sign-in.
    await env.DB.prepare("DELETE FROM email_codes WHERE id = ?").bind(`link:${id}`).run();
    await env.DB.prepare("UPDATE email_codes SET id = ?, purpose = 'link', account_id = ? WHERE id = ?")
      .bind(`link:${id}`, id, stranger.attempt as string)
      .run();
    const moved = await call(browser, "verify", { email, code: signInCode });
    // (the stranger's attempt had one wrong try, the link code, kept by the resend: this is its second)
    expect(moved.body).toMatchObject({ reason: "email_code_invalid", detail: "3 tries left on this code" });
    // The address was never linked, and still signs into its own (new) account, not this one.
    expect((await accountLogOf(did)).some((e) => e.event_type === "identity.linked")).toBe(false);
  });

  it("takes its input through the schemas and refuses cross-site calls (invalid_body, cross_site_blocked)", async () => {
    const { browser } = await signedIn();
    expect((await call(browser, "start", { email: "not-an-address" })).body.reason).toBe("invalid_body");
    expect((await call(browser, "verify", { email: freshEmail(), code: "12345" })).body.reason).toBe("invalid_body");
    const res = await browser.post(
      "/api/auth/identities/email/start",
      { email: freshEmail() },
      { headers: { "sec-fetch-site": "cross-site" } },
    );
    expect(res.status).toBe(403);
    expect(((await res.json()) as { reason: string }).reason).toBe("cross_site_blocked");
  });
});
