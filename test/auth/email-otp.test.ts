// Email one-time-code sign-in (DECISIONS 10; security-and-reliability §1.3 OTP-01…OTP-09).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { codeMac, codeMatches, newCode } from "../../shared/auth/email-code";
import { Browser } from "../helpers/browser";
import { newWallet } from "../helpers/wallet";

const MAIL = env.MAIL_API_URL as string;

async function lastCode(email: string): Promise<string> {
  const mails = (await (await fetch(`${MAIL}/__admin/emails?to=${encodeURIComponent(email)}`)).json()) as {
    subject: string;
  }[];
  const match = /(\d{6})/.exec(mails[mails.length - 1]?.subject ?? "");
  if (!match?.[1]) throw new Error(`no code mailed to ${email}`);
  return match[1];
}

const freshEmail = () => `user-${crypto.randomUUID().slice(0, 8)}@Example.com`;

async function start(browser: Browser, email: string) {
  return browser.post("/api/auth/email-otp/start", { email });
}

async function verify(browser: Browser, email: string, code: string, add = false) {
  const res = await browser.post("/api/auth/email-otp/verify", { email, code, ...(add && { add: true }) });
  return {
    status: res.status,
    body: (await res.json()) as {
      ok: boolean;
      reason?: string;
      account: { did_oc: string; display_identity: { kind: string; value: string } };
    },
  };
}

describe("email code sign-in", () => {
  it("mails a 6-digit code and signs in with it; the account is held by the service, shown by its email", async () => {
    const browser = new Browser();
    const email = freshEmail();
    expect((await start(browser, email)).status).toBe(200);
    const res = await verify(browser, email, await lastCode(email.toLowerCase()));
    expect(res.status).toBe(200);
    expect(res.body.account.display_identity).toEqual({ kind: "email", value: email.toLowerCase() });
    expect(browser.cookie).toBeTruthy();
    expect((await browser.me()).body.account.did_oc).toBe(res.body.account.did_oc);
    // The same address later finds the same account.
    const again = new Browser();
    await start(again, email);
    expect((await verify(again, email, await lastCode(email.toLowerCase()))).body.account.did_oc).toBe(
      res.body.account.did_oc,
    );
  });

  it("OTP-01: a code works once", async () => {
    const browser = new Browser();
    const email = freshEmail();
    await start(browser, email);
    const code = await lastCode(email.toLowerCase());
    expect((await verify(browser, email, code)).status).toBe(200);
    const second = await verify(new Browser(), email, code);
    expect(second.status).toBe(401);
    expect(second.body.reason).toBe("email_code_invalid");
  });

  it("OTP-02: an expired code fails", async () => {
    const browser = new Browser();
    const email = freshEmail();
    await start(browser, email);
    const code = await lastCode(email.toLowerCase());
    await env.DB.prepare("UPDATE email_codes SET expires_at = ? WHERE email = ?")
      .bind(Date.now() - 1, email.toLowerCase())
      .run();
    const res = await verify(browser, email, code);
    expect(res.status).toBe(401);
    expect(res.body.reason).toBe("email_code_expired");
  });

  it("OTP-03/04: five wrong codes lock the address, the right one then fails too, and a resend does not reset the count", async () => {
    const browser = new Browser();
    const email = freshEmail();
    await start(browser, email);
    const code = await lastCode(email.toLowerCase());
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 4; i++) expect((await verify(browser, email, wrong)).body.reason).toBe("email_code_invalid");
    await start(browser, email); // a resend keeps the four failures
    const fresh = await lastCode(email.toLowerCase());
    expect((await verify(browser, email, wrong)).body.reason).toBe("email_code_invalid");
    const locked = await verify(browser, email, fresh);
    expect(locked.status).toBe(429);
    expect(locked.body.reason).toBe("email_code_locked");
  });

  it("attack: 40 concurrent wrong guesses from 40 IPs are counted before they are compared: at most 5 evaluated, then locked", async () => {
    const email = freshEmail();
    await start(new Browser(), email);
    const code = await lastCode(email.toLowerCase());
    const wrong = (i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0");
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => verify(new Browser(), email, wrong(i))));
    const reasons = answers.map((a) => a.body.reason);
    expect(reasons.filter((r) => r === "email_code_invalid").length).toBeLessThanOrEqual(5);
    expect(reasons.every((r) => r === "email_code_invalid" || r === "email_code_locked")).toBe(true);
    const right = await verify(new Browser(), email, code);
    expect(right.status).toBe(429);
    expect(right.body.reason).toBe("email_code_locked");
    const row = await env.DB.prepare("SELECT failures FROM email_codes WHERE email = ?")
      .bind(email.toLowerCase())
      .first<{ failures: number }>();
    expect(row?.failures).toBe(5);
  });

  it("codes are compared through the shared HMAC: the right code matches, a wrong one or a corrupt stored MAC does not", async () => {
    const mac = await codeMac("k", "a@example.com", "123456");
    expect(await codeMatches("k", "a@example.com", "123456", mac)).toBe(true);
    expect(await codeMatches("k", "a@example.com", "123457", mac)).toBe(false);
    expect(await codeMatches("k", "b@example.com", "123456", mac)).toBe(false);
    expect(await codeMatches("k", "a@example.com", "123456", "zz")).toBe(false);
    expect(await codeMatches("k", "a@example.com", "123456", mac.slice(2))).toBe(false);
  });

  it("OTP-04/10: the 6th start in an hour for one address is 429, whatever the IP", async () => {
    const email = freshEmail();
    for (let i = 0; i < 5; i++) expect((await start(new Browser(), email)).status).toBe(200);
    const res = await start(new Browser(), email);
    expect(res.status).toBe(429);
    expect(((await res.json()) as { reason: string }).reason).toBe("rate_limited");
  });

  it("OTP-06: a code for one address does not sign in another; unknown addresses answer like wrong codes", async () => {
    const browser = new Browser();
    const a = freshEmail();
    const b = freshEmail();
    await start(browser, a);
    await start(browser, b);
    expect((await verify(browser, b, await lastCode(a.toLowerCase()))).body.reason).toBe("email_code_invalid");
    expect((await verify(browser, freshEmail(), "123456")).body.reason).toBe("email_code_invalid");
  });

  it("OTP-07/09: stores only an HMAC keyed by the server secret; codes keep leading zeros", async () => {
    const browser = new Browser();
    const email = freshEmail();
    await start(browser, email);
    const code = await lastCode(email.toLowerCase());
    const row = await env.DB.prepare("SELECT * FROM email_codes WHERE email = ?")
      .bind(email.toLowerCase())
      .first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(code);
    expect(row?.code_mac).toBe(await codeMac(env.EMAIL_CODE_KEY as string, email.toLowerCase(), code));
    const samples = Array.from({ length: 2000 }, () => newCode());
    expect(samples.every((s) => /^\d{6}$/.test(s))).toBe(true);
    expect(samples.some((s) => s.startsWith("0"))).toBe(true);
  });

  it("joins the roster with add=1, beside a Bitcoin account, and the two can be switched", async () => {
    const browser = new Browser();
    await browser.signIn(newWallet());
    const btc = (await browser.me()).body.account.did_oc;
    const email = freshEmail();
    await start(browser, email);
    const added = await verify(browser, email, await lastCode(email.toLowerCase()), true);
    expect(added.status).toBe(200);
    const me = await browser.me();
    expect(me.body.account.did_oc).toBe(added.body.account.did_oc);
    expect(me.body.roster.map((r) => r.did_oc)).toEqual([btc]);
    expect((await browser.post("/api/auth/switch", { did_oc: btc })).status).toBe(200);
  });

  it("answers 502 mailer_error when the mail API fails, and 400 for a bad address", async () => {
    await fetch(`${MAIL}/__admin/mode`, { method: "PUT", body: JSON.stringify({ down: true }) });
    try {
      const res = await start(new Browser(), freshEmail());
      expect(res.status).toBe(502);
      expect(((await res.json()) as { reason: string }).reason).toBe("mailer_error");
    } finally {
      await fetch(`${MAIL}/__admin/mode`, { method: "PUT", body: JSON.stringify({ down: false }) });
    }
    const bad = await start(new Browser(), "not-an-email");
    expect(bad.status).toBe(400);
  });
});
