// Re-authentication by email code (issue 27): a code mailed to one of the active account's email identities refreshes
// the session's sudo_at, in its row and in the re-issued cookie; any other address answers as a wrong code does.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  accountLogOf,
  EmailBrowser,
  freshEmail,
  lastCode,
  mailsAfter,
  mailsTo,
  nextCode,
  signedInByEmail,
  staleSudo,
  wrongCode,
} from "../helpers/email-code";
import { accountRow, decodePart } from "../helpers/tokens";

type Answer = { status: number; body: { ok: boolean; reason?: string; detail?: string; account?: { did_oc: string } } };

async function call(browser: EmailBrowser, step: "start" | "verify", body: unknown): Promise<Answer> {
  const res = await browser.post(`/api/auth/reauth/email/${step}`, body);
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

const sessionRow = (did: string) =>
  env.DB.prepare(
    "SELECT s.authenticated_at, s.auth_method FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE a.did_oc = ?",
  )
    .bind(did)
    .first<{ authenticated_at: number; auth_method: string }>();

describe("re-authentication by email code", () => {
  it("refreshes sudo_at in the session row and in the re-issued cookie; a sudo-gated route then works; the log says so", async () => {
    const email = freshEmail();
    const { browser, did } = await signedInByEmail(email);
    await staleSudo(did);
    expect((await browser.post("/api/auth/identities/email/start", { email: freshEmail() })).status).toBe(403);
    const before = browser.cookie;
    const seen = (await mailsTo(email)).length;
    expect(await call(browser, "start", { email })).toEqual({ status: 200, body: { ok: true } });
    const code = await nextCode(email, seen); // mailed after the answer
    const startedAt = Date.now();
    const res = await call(browser, "verify", { email, code });
    expect(res.status).toBe(200);
    expect(res.body.account?.did_oc).toBe(did);
    expect(browser.cookie).toBeTruthy();
    expect(browser.cookie).not.toBe(before);
    const claims = decodePart(browser.cookie as string, 1);
    expect(claims.sudo_at).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000));
    const row = await sessionRow(did);
    expect(row?.authenticated_at).toBeGreaterThanOrEqual(startedAt);
    expect(row?.auth_method).toBe("email");
    expect((await browser.post("/api/auth/identities/email/start", { email: freshEmail() })).status).toBe(200);
    const log = await accountLogOf(did);
    expect(log.map((e) => [e.event_type, e.detail])).toContainEqual(["reauthenticated", { method: "email", email }]);
    // The code is spent.
    expect((await call(browser, "verify", { email, code })).body.reason).toBe("email_code_invalid");
  });

  it("an address not linked to the account gets no mail, and its code fails just as a wrong code for a linked one does", async () => {
    const email = freshEmail();
    const { browser, did } = await signedInByEmail(email);
    await call(browser, "start", { email });
    const wrong = await call(browser, "verify", { email, code: wrongCode(await nextCode(email, 1)) });
    const stranger = freshEmail("elsewhere");
    expect(await call(browser, "start", { email: stranger })).toEqual({ status: 200, body: { ok: true } });
    const unlinked = await call(browser, "verify", { email: stranger, code: "123456" });
    expect(unlinked).toEqual(wrong);
    expect(unlinked).toMatchObject({ status: 401, body: { reason: "email_code_invalid" } });
    expect(await mailsAfter(stranger, 0, 0, 300)).toEqual([]);
    // An address of another account is no proof of this one either.
    const otherEmail = freshEmail("other");
    await signedInByEmail(otherEmail);
    await call(browser, "start", { email: otherEmail });
    expect(await mailsAfter(otherEmail, 1, 0, 300)).toEqual([]); // after its sign-in code, nothing
    expect((await call(browser, "verify", { email: otherEmail, code: "000000" })).body.reason).toBe(
      "email_code_invalid",
    );
    expect((await accountLogOf(did)).some((e) => e.event_type === "reauthenticated")).toBe(false);
  });

  it("codes are split by purpose: a re-authentication code never signs in, a sign-in code never re-authenticates", async () => {
    const email = freshEmail();
    const { browser, did } = await signedInByEmail(email);
    const { id } = await accountRow(did);
    await call(browser, "start", { email });
    const reauthCode = await nextCode(email, 1);
    const other = new EmailBrowser();
    await other.start(email);
    const signInCode = await lastCode(email);
    expect((await other.verify(email, reauthCode)).body.reason).toBe("email_code_invalid");
    expect((await call(browser, "verify", { email, code: signInCode })).body.reason).toBe("email_code_invalid");
    // The sign-in row renamed to the account's re-authentication attempt: not found as one (its purpose is signin).
    await env.DB.prepare("DELETE FROM email_codes WHERE id = ?").bind(`reauth:${id}`).run();
    await env.DB.prepare("UPDATE email_codes SET id = ? WHERE id = ?")
      .bind(`reauth:${id}`, other.attempt as string)
      .run();
    const renamed = await call(browser, "verify", { email, code: signInCode });
    expect(renamed.body.detail).toMatch(/no code was asked/);
  });

  it("needs a session: not_authenticated without one", async () => {
    const res = await call(new EmailBrowser(), "start", { email: freshEmail() });
    expect(res).toMatchObject({ status: 401, body: { reason: "not_authenticated" } });
  });
});
