// Email one-time-code sign-in (DECISIONS 10 as refined by issue 26; security-and-reliability §1.3 OTP-01…OTP-09):
// each code bound to the browser that asked (the oc_email_code attempt), 5 wrong tries per code, a per-address backstop.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADDRESS_FAILURE_LIMIT,
  ADDRESS_FAILURE_WINDOW_MS,
  codeMac,
  codeMatches,
  MAX_FAILURES,
  newCode,
} from "../../shared/auth/email-code";
import { EmailBrowser, lastCode, setCookies, wrongCode } from "../helpers/email-code";
import { newWallet } from "../helpers/wallet";

const freshEmail = () => `user-${crypto.randomUUID().slice(0, 8)}@Example.com`;

/** A browser that asked for a code for `email`, and that code. */
async function asked(email: string): Promise<{ browser: EmailBrowser; code: string }> {
  const browser = new EmailBrowser();
  expect((await browser.start(email)).status).toBe(200);
  return { browser, code: await lastCode(email.toLowerCase()) };
}

const attemptRow = (id: string | undefined) =>
  env.DB.prepare("SELECT * FROM email_codes WHERE id = ?")
    .bind(id ?? "")
    .first<{ id: string; email: string; code_mac: string; failures: number; created_at: number; expires_at: number }>();

describe("email code sign-in", () => {
  it("mails a 6-digit code and signs in with it; the account is held by the service, shown by its email", async () => {
    const email = freshEmail();
    const { browser, code } = await asked(email);
    const res = await browser.verify(email, code);
    expect(res.status).toBe(200);
    expect(res.body.account.display_identity).toEqual({ kind: "email", value: email.toLowerCase() });
    expect(browser.cookie).toBeTruthy();
    expect((await browser.me()).body.account.did_oc).toBe(res.body.account.did_oc);
    // The same address later finds the same account.
    const again = await asked(email);
    expect((await again.browser.verify(email, again.code)).body.account.did_oc).toBe(res.body.account.did_oc);
  });

  it("OTP-01: a code works once, even replayed with the attempt's cookie", async () => {
    const email = freshEmail();
    const { browser, code } = await asked(email);
    const attempt = browser.attempt;
    expect((await browser.verify(email, code)).status).toBe(200);
    const second = await browser.verify(email, code);
    expect(second.status).toBe(401);
    expect(second.body.reason).toBe("email_code_invalid");
    const replay = new EmailBrowser();
    replay.attempt = attempt;
    expect((await replay.verify(email, code)).body.reason).toBe("email_code_invalid");
  });

  it("OTP-02: an expired code fails, and the try is not counted", async () => {
    const email = freshEmail();
    const { browser, code } = await asked(email);
    await env.DB.prepare("UPDATE email_codes SET expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1, browser.attempt)
      .run();
    const res = await browser.verify(email, code);
    expect(res.status).toBe(401);
    expect(res.body.reason).toBe("email_code_expired");
    expect((await attemptRow(browser.attempt))?.failures).toBe(0);
  });

  it("OTP-03/04: five wrong tries spend the code, the right one then fails too, a resend in the same browser does not reset the count; a new code after that works", async () => {
    const email = freshEmail();
    const { browser, code } = await asked(email);
    const attempt = browser.attempt;
    const wrong = wrongCode(code);
    for (let i = 0; i < 4; i++) expect((await browser.verify(email, wrong)).body.reason).toBe("email_code_invalid");
    // A resend: same attempt (no new cookie), a new code, the four failures kept.
    const resend = await browser.start(email);
    expect(setCookies(resend)).toEqual([]);
    expect(browser.attempt).toBe(attempt);
    expect((await attemptRow(attempt))?.failures).toBe(4);
    const fresh = await lastCode(email.toLowerCase());
    const last = await browser.verify(email, wrongCode(fresh));
    expect(last.body).toMatchObject({ reason: "email_code_invalid", detail: "0 tries left on this code" });
    const locked = await browser.verify(email, fresh);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ reason: "email_code_locked", detail: expect.stringMatching(/new code/) });
    expect(locked.headers.get("retry-after")).toBeNull();
    // The spent attempt is over: asking again opens a new one (it costs one of the address's hourly starts).
    expect((await browser.start(email)).status).toBe(200);
    expect(browser.attempt).not.toBe(attempt);
    expect((await browser.verify(email, await lastCode(email.toLowerCase()))).status).toBe(200);
  });

  it("attack: 40 concurrent wrong guesses on one attempt from 40 IPs are counted before they are compared: at most 5 evaluated, then locked", async () => {
    const email = freshEmail();
    const { browser, code } = await asked(email);
    const guess = (i: number) => {
      const thief = new EmailBrowser();
      thief.attempt = browser.attempt;
      return thief.verify(email, wrongCode(code, i));
    };
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => guess(i)));
    const reasons = answers.map((a) => a.body.reason);
    const compared = reasons.filter((r) => r === "email_code_invalid").length;
    expect(compared).toBeLessThanOrEqual(MAX_FAILURES);
    expect(reasons.every((r) => r === "email_code_invalid" || r === "email_code_locked")).toBe(true);
    const right = await browser.verify(email, code);
    expect(right.status).toBe(429);
    expect(right.body.reason).toBe("email_code_locked");
    expect((await attemptRow(browser.attempt))?.failures).toBe(MAX_FAILURES);
    // Only the compared guesses reached the address's backstop.
    const address = await env.DB.prepare("SELECT failures FROM email_code_failures WHERE email = ?")
      .bind(email.toLowerCase())
      .first<{ failures: number }>();
    expect(address?.failures).toBe(compared);
  });

  it("issue 26: a stranger spending the wrong tries of their own attempts for an address (15, below the backstop) does not stop the browser that asked from signing in", async () => {
    const email = freshEmail();
    for (let a = 0; a < 3; a++) {
      const stranger = await asked(email);
      for (let i = 0; i < MAX_FAILURES; i++) {
        expect((await stranger.browser.verify(email, wrongCode(stranger.code, i))).body.reason).toBe(
          "email_code_invalid",
        );
      }
      expect((await stranger.browser.verify(email, stranger.code)).body.reason).toBe("email_code_locked");
    }
    const victim = await asked(email);
    const res = await victim.browser.verify(email, victim.code);
    expect(res.status).toBe(200);
    expect(res.body.account.display_identity.value).toBe(email.toLowerCase());
  });

  it("issue 26: a code is bound to the browser that asked: the right code without its cookie, or with another browser's attempt, is refused", async () => {
    const email = freshEmail();
    const victim = await asked(email);
    const noCookie = await new EmailBrowser().verify(email, victim.code);
    expect(noCookie.status).toBe(401);
    expect(noCookie.body).toMatchObject({
      reason: "email_code_invalid",
      detail: expect.stringMatching(/this browser/),
    });
    const attacker = await asked(email);
    const otherAttempt = await attacker.browser.verify(email, victim.code);
    expect(otherAttempt.body.reason).toBe("email_code_invalid");
    // A made-up attempt id is no attempt.
    const forged = new EmailBrowser();
    forged.attempt = "A".repeat(22);
    expect((await forged.verify(email, victim.code)).body.reason).toBe("email_code_invalid");
    // The victim's own browser is unaffected.
    expect((await victim.browser.verify(email, victim.code)).status).toBe(200);
  });

  it("issue 26: at 20 wrong codes an hour the address is locked, comparing nothing, until a stated time (Retry-After); after the window the right code signs in", async () => {
    const email = freshEmail();
    const attempts = ADDRESS_FAILURE_LIMIT / MAX_FAILURES; // four of the address's five hourly starts
    for (let a = 0; a < attempts; a++) {
      const stranger = await asked(email);
      for (let i = 0; i < MAX_FAILURES; i++) await stranger.browser.verify(email, wrongCode(stranger.code, i));
    }
    const victim = await asked(email);
    const row = await env.DB.prepare("SELECT failures, since FROM email_code_failures WHERE email = ?")
      .bind(email.toLowerCase())
      .first<{ failures: number; since: number }>();
    expect(row?.failures).toBe(ADDRESS_FAILURE_LIMIT);
    const until = new Date((row?.since ?? 0) + ADDRESS_FAILURE_WINDOW_MS).toISOString();
    const locked = await victim.browser.verify(email, victim.code);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ reason: "email_code_locked", detail: expect.stringContaining(until) });
    const retryAfter = Number(locked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(ADDRESS_FAILURE_WINDOW_MS / 1000 - 120);
    expect(retryAfter).toBeLessThanOrEqual(ADDRESS_FAILURE_WINDOW_MS / 1000);
    expect((await attemptRow(victim.browser.attempt))?.failures).toBe(0); // nothing was compared
    // The window opened by the first wrong code ends: so does the lock.
    await env.DB.prepare("UPDATE email_code_failures SET since = since - ? WHERE email = ?")
      .bind(ADDRESS_FAILURE_WINDOW_MS, email.toLowerCase())
      .run();
    expect((await victim.browser.verify(email, victim.code)).status).toBe(200);
  });

  it("issue 26: the attempt cookie is host-only, scoped to the email-code routes, HttpOnly, Secure, SameSite=Strict, an hour; 128 random bits; a sign-in clears it", async () => {
    const browser = new EmailBrowser();
    const email = freshEmail();
    const started = await browser.start(email);
    const [cookie] = setCookies(started);
    expect(cookie).toMatch(
      /^oc_email_code=[A-Za-z0-9_-]{22}; Path=\/api\/auth\/email-otp; HttpOnly; Secure; SameSite=Strict; Max-Age=3600$/,
    );
    expect(cookie).not.toMatch(/Domain=/);
    const row = await attemptRow(browser.attempt);
    expect(row?.email).toBe(email.toLowerCase());
    // Starting for another address opens another attempt, named by a new cookie.
    const first = browser.attempt;
    await browser.start(freshEmail());
    expect(browser.attempt).not.toBe(first);
    await browser.start(email);
    const signedIn = await browser.post("/api/auth/email-otp/verify", {
      email,
      code: await lastCode(email.toLowerCase()),
    });
    expect(signedIn.status).toBe(200);
    const cookies = setCookies(signedIn);
    expect(cookies[0]).toMatch(/^oc_session=/);
    expect(cookies).toContain(
      "oc_email_code=; Path=/api/auth/email-otp; HttpOnly; Secure; SameSite=Strict; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    );
    expect(browser.attempt).toBeUndefined();
  });

  it("issue 26: an hour after an attempt started, its browser's start opens a new one and the address's old attempts are deleted", async () => {
    const email = freshEmail();
    const { browser } = await asked(email);
    const old = browser.attempt;
    const hourAgo = Date.now() - 60 * 60 * 1000 - 1;
    await env.DB.prepare("UPDATE email_codes SET created_at = ?, expires_at = ? WHERE id = ?")
      .bind(hourAgo, hourAgo + 1, old)
      .run();
    expect((await browser.start(email)).status).toBe(200);
    expect(browser.attempt).not.toBe(old);
    expect(await attemptRow(old)).toBeNull();
    expect((await attemptRow(browser.attempt))?.failures).toBe(0);
  });

  it("codes are compared through the shared HMAC over address, attempt and code: a wrong one of any, or a corrupt stored MAC, fails", async () => {
    const mac = await codeMac("k", "a@example.com", "attempt-1", "123456");
    const input = { email: "a@example.com", attempt: "attempt-1", code: "123456" };
    expect(await codeMatches("k", input, mac)).toBe(true);
    expect(await codeMatches("k", { ...input, code: "123457" }, mac)).toBe(false);
    expect(await codeMatches("k", { ...input, email: "b@example.com" }, mac)).toBe(false);
    expect(await codeMatches("k", { ...input, attempt: "attempt-2" }, mac)).toBe(false);
    expect(await codeMatches("k", input, "zz")).toBe(false);
    expect(await codeMatches("k", input, mac.slice(2))).toBe(false);
  });

  it("OTP-04/10: the 6th start in an hour for one address is 429, whatever the IP", async () => {
    const email = freshEmail();
    for (let i = 0; i < 5; i++) expect((await new EmailBrowser().start(email)).status).toBe(200);
    const res = await new EmailBrowser().start(email);
    expect(res.status).toBe(429);
    expect(((await res.json()) as { reason: string }).reason).toBe("rate_limited");
  });

  it("OTP-06: a code for one address does not sign in another; unknown addresses answer like wrong codes", async () => {
    const browser = new EmailBrowser();
    const a = freshEmail();
    const b = freshEmail();
    await browser.start(a);
    await browser.start(b);
    expect((await browser.verify(b, await lastCode(a.toLowerCase()))).body.reason).toBe("email_code_invalid");
    expect((await browser.verify(freshEmail(), "123456")).body.reason).toBe("email_code_invalid");
  });

  it("OTP-07/09: stores only an HMAC keyed by the server secret, bound to the attempt; codes keep leading zeros", async () => {
    const email = freshEmail();
    const { browser, code } = await asked(email);
    const row = await attemptRow(browser.attempt);
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row?.code_mac).toBe(
      await codeMac(env.EMAIL_CODE_KEY as string, email.toLowerCase(), browser.attempt as string, code),
    );
    const samples = Array.from({ length: 2000 }, () => newCode());
    expect(samples.every((s) => /^\d{6}$/.test(s))).toBe(true);
    expect(samples.some((s) => s.startsWith("0"))).toBe(true);
  });

  it("joins the roster with add=1, beside a Bitcoin account, and the two can be switched", async () => {
    const browser = new EmailBrowser();
    await browser.signIn(newWallet());
    const btc = (await browser.me()).body.account.did_oc;
    const email = freshEmail();
    await browser.start(email);
    const added = await browser.verify(email, await lastCode(email.toLowerCase()), true);
    expect(added.status).toBe(200);
    const me = await browser.me();
    expect(me.body.account.did_oc).toBe(added.body.account.did_oc);
    expect(me.body.roster.map((r) => r.did_oc)).toEqual([btc]);
    expect((await browser.post("/api/auth/switch", { did_oc: btc })).status).toBe(200);
  });

  it("answers 502 mailer_error when the mail API fails, and 400 for a bad address", async () => {
    const mail = env.MAIL_API_URL as string;
    await fetch(`${mail}/__admin/mode`, { method: "PUT", body: JSON.stringify({ down: true }) });
    try {
      const res = await new EmailBrowser().start(freshEmail());
      expect(res.status).toBe(502);
      expect(((await res.json()) as { reason: string }).reason).toBe("mailer_error");
    } finally {
      await fetch(`${mail}/__admin/mode`, { method: "PUT", body: JSON.stringify({ down: false }) });
    }
    const bad = await new EmailBrowser().start("not-an-email");
    expect(bad.status).toBe(400);
  });
});
