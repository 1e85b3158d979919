// The recovery address and the recovery sign-in (issue 27; docs/decisions.md "Account security"): set, change and
// remove it with a fresh sudo, the replaced address told; sign in with a code mailed to it, under the last way in's
// rules (the same answer for every address, 3 starts a day from one network, 5 wrong tries, bound to the browser,
// notices first). The budget per network and the backstop: recovery-budget.test.ts; what the session may do:
// recovery-session.test.ts.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RECOVERY_STARTS_PER_DAY } from "../../shared/auth/email-code";
import { app } from "../../workers/auth/src/app";
import type { AuthEnv } from "../../workers/auth/src/env";
import { AUTH_ORIGIN, freshIp } from "../helpers/browser";
import {
  accountLogOf,
  EmailBrowser,
  freshEmail,
  lastCode,
  mailsAfter,
  mailsTo,
  nextCode,
  setCookies,
  signedInByEmail,
  staleSudo,
  wrongCode,
} from "../helpers/email-code";
import { decodePart } from "../helpers/tokens";

type Body = { ok: boolean; reason?: string; detail?: string; recovery?: unknown; account?: { did_oc: string } };
type Answer = { status: number; body: Body };

async function answer(res: Response): Promise<Answer> {
  return { status: res.status, body: (await res.json()) as Body };
}

const post = async (b: EmailBrowser, path: string, json: unknown) => answer(await b.post(path, json));
const recoveryOf = async (b: EmailBrowser) => answer(await b.fetch("/api/auth/recovery"));
const remove = async (b: EmailBrowser) => answer(await b.fetch("/api/auth/recovery", { method: "DELETE" }));

/** A browser signed in to a new account by an email code (an email identity), its address and did. */
const owner = () => signedInByEmail(freshEmail("owner"));

/** Sets the recovery address of the browser's account by its code (the session's sudo must be fresh). */
async function setRecovery(browser: EmailBrowser, email: string): Promise<Answer> {
  expect((await post(browser, "/api/auth/recovery/start", { email })).status).toBe(200);
  return post(browser, "/api/auth/recovery/verify", { email, code: await lastCode(email) });
}

/** A new browser that asked for a recovery code for `email`, and the code (mailed after the answer). */
async function askRecovery(email: string): Promise<{ browser: EmailBrowser; code: string }> {
  const browser = new EmailBrowser();
  const seen = (await mailsTo(email)).length;
  expect((await post(browser, "/api/auth/recovery/signin/start", { email })).status).toBe(200);
  return { browser, code: await nextCode(email, seen) };
}

const recoverySignIn = (b: EmailBrowser, email: string, code: string) =>
  post(b, "/api/auth/recovery/signin/verify", { email, code });

describe("the recovery address", () => {
  it("is set by a code mailed to it, with a fresh sudo; GET shows it, the log has recovery.set", async () => {
    const { browser, did } = await owner();
    expect(await recoveryOf(browser)).toEqual({ status: 200, body: { ok: true, recovery: null } });
    const address = freshEmail("recover");
    const set = await setRecovery(browser, address);
    expect(set).toMatchObject({ status: 200, body: { ok: true, recovery: { email: address } } });
    const read = await recoveryOf(browser);
    expect(read.body.recovery).toEqual({ email: address, set_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect((await browser.fetch("/api/auth/recovery")).headers.get("cache-control")).toBe("no-store, private");
    expect((await accountLogOf(did)).map((e) => [e.event_type, e.detail])).toContainEqual([
      "recovery.set",
      { email: address, previous: null },
    ]);
    expect((await recoveryOf(new EmailBrowser())).body.reason).toBe("not_authenticated");
  });

  it("a stale sudo is refused at the start, at the verify and at removal (sudo_required), and nothing changes", async () => {
    const { browser, did } = await owner();
    const first = freshEmail("recover");
    expect((await setRecovery(browser, first)).status).toBe(200);
    const next = freshEmail("recover");
    expect((await post(browser, "/api/auth/recovery/start", { email: next })).status).toBe(200);
    const code = await lastCode(next);
    await staleSudo(did);
    for (const res of [
      await post(browser, "/api/auth/recovery/start", { email: next }),
      await post(browser, "/api/auth/recovery/verify", { email: next, code }),
      await remove(browser),
    ]) {
      expect(res).toMatchObject({ status: 403, body: { reason: "sudo_required" } });
    }
    expect((await recoveryOf(browser)).body.recovery).toMatchObject({ email: first });
  });

  it("changing it mails the replaced address; removing it mails the removed one; with none set, removal is recovery_not_set", async () => {
    const { browser, did } = await owner();
    const first = freshEmail("recover");
    const second = freshEmail("recover");
    await setRecovery(browser, first);
    expect((await setRecovery(browser, second)).status).toBe(200);
    // Each address set is also told it was set (every address of the account is: review 3), so look by subject.
    const replaced = (await mailsAfter(first, 1, 3)).find((m) => /no longer the recovery address/.test(m.subject));
    expect(replaced?.text).toContain(first);
    expect(await remove(browser)).toEqual({ status: 200, body: { ok: true } });
    const removed = (await mailsAfter(second, 1, 3)).find((m) => /no longer has a recovery address/.test(m.subject));
    expect(removed?.text).toContain(second);
    expect((await recoveryOf(browser)).body.recovery).toBeNull();
    expect(await remove(browser)).toMatchObject({ status: 404, body: { reason: "recovery_not_set" } });
    const log = (await accountLogOf(did)).filter((e) => e.event_type.startsWith("recovery."));
    expect(log.map((e) => [e.event_type, e.detail])).toEqual([
      ["recovery.set", { email: first, previous: null }],
      ["recovery.set", { email: second, previous: first }],
      ["recovery.removed", { email: second }],
    ]);
    expect(log.every((e) => e.session_id !== null)).toBe(true);
  });

  it("an address that recovers another account is recovery_address_taken, told only after its code proves it", async () => {
    const a = await owner();
    const address = freshEmail("recover");
    await setRecovery(a.browser, address);
    const b = await owner();
    expect((await post(b.browser, "/api/auth/recovery/start", { email: address })).status).toBe(200);
    const taken = await post(b.browser, "/api/auth/recovery/verify", { email: address, code: await lastCode(address) });
    expect(taken).toMatchObject({ status: 409, body: { reason: "recovery_address_taken" } });
    expect((await recoveryOf(b.browser)).body.recovery).toBeNull();
    expect((await recoveryOf(a.browser)).body.recovery).toMatchObject({ email: address });
    expect((await accountLogOf(b.did)).some((e) => e.event_type === "recovery.set")).toBe(false);
  });

  it("a code for the recovery address sets nothing else: it neither signs in nor links", async () => {
    const { browser } = await owner();
    const address = freshEmail("recover");
    await post(browser, "/api/auth/recovery/start", { email: address });
    const code = await lastCode(address);
    const other = new EmailBrowser();
    await other.start(address);
    expect((await other.verify(address, code)).body.reason).toBe("email_code_invalid");
    await post(browser, "/api/auth/identities/email/start", { email: freshEmail() });
    expect((await post(browser, "/api/auth/identities/email/verify", { email: address, code })).body.reason).toBe(
      "email_code_invalid",
    );
  });
});

describe("the recovery sign-in", () => {
  it("start answers the same for an address that recovers nothing, and mails nothing", async () => {
    const { browser } = await owner();
    const address = freshEmail("recover");
    await setRecovery(browser, address);
    const unknown = freshEmail("nobody");
    const seen = (await mailsTo(address)).length; // the code that set it
    const shape = async (email: string) => {
      const res = await new EmailBrowser().post("/api/auth/recovery/signin/start", { email });
      const [cookie] = setCookies(res);
      return { status: res.status, body: await res.json(), cookie: cookie?.replace(/=[^;]+;/, "=…;") };
    };
    const known = await shape(address);
    expect(await shape(unknown)).toEqual(known);
    expect(known).toEqual({
      status: 200,
      body: { ok: true },
      cookie: "oc_recovery_code=…; Path=/api/auth/recovery/signin; HttpOnly; Secure; SameSite=Strict; Max-Age=3600",
    });
    expect((await mailsAfter(address, seen)).length).toBe(1);
    expect(await mailsAfter(unknown, 0, 0, 300)).toEqual([]);
    // A wrong code for the unknown address reads like one for the known address.
    const probe = async (email: string) => {
      const b = new EmailBrowser();
      await b.post("/api/auth/recovery/signin/start", { email });
      return recoverySignIn(b, email, "000000");
    };
    expect(await probe(unknown)).toEqual(await probe(address));
  });

  it("signs in with the code: auth_method recovery and a fresh sudo, every address told first, the log line; a new identity can be linked at once", async () => {
    const { browser, email, did } = await owner();
    const address = freshEmail("recover");
    await setRecovery(browser, address);
    const { browser: lost, code } = await askRecovery(address);
    const startedAt = Date.now();
    const res = await recoverySignIn(lost, address, code);
    expect(res).toMatchObject({ status: 200, body: { ok: true, account: { did_oc: did } } });
    expect(lost.recoveryAttempt).toBeUndefined(); // the cookie is cleared
    const claims = decodePart(lost.cookie as string, 1);
    expect(claims.did_oc).toBe(did);
    expect(claims.sudo_at).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000));
    const row = await env.DB.prepare(
      "SELECT s.auth_method, s.authenticated_at FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE a.did_oc = ? ORDER BY s.created_at DESC",
    )
      .bind(did)
      .first<{ auth_method: string; authenticated_at: number }>();
    expect(row?.auth_method).toBe("recovery");
    expect(row?.authenticated_at).toBeGreaterThanOrEqual(startedAt);
    for (const to of [email, address]) {
      const notices = (await mailsTo(to)).filter(
        (m) => /recovery address/.test(m.subject) && /signed in/.test(m.subject),
      );
      expect(notices.length, to).toBe(1);
      expect(notices[0]?.text).toContain(address);
    }
    const log = (await accountLogOf(did)).find((e) => e.event_type === "recovery.signed_in");
    expect(log?.detail).toEqual({ email: address, told: [email, address] });
    // The session is fresh: a new way in can be linked straight away.
    const fresh = freshEmail("new");
    expect((await post(lost, "/api/auth/identities/email/start", { email: fresh })).status).toBe(200);
    const linked = await post(lost, "/api/auth/identities/email/verify", { email: fresh, code: await lastCode(fresh) });
    expect(linked.status).toBe(200);
    // The code was used once.
    lost.recoveryAttempt = undefined;
    expect((await recoverySignIn(lost, address, code)).body.reason).toBe("email_code_invalid");
  });

  it("is bound to the browser that asked: without its cookie, from another browser, or through the sign-in cookie, the right code fails", async () => {
    const { browser, did } = await owner();
    const address = freshEmail("recover");
    await setRecovery(browser, address);
    const { browser: asker, code } = await askRecovery(address);
    const noCookie = await recoverySignIn(new EmailBrowser(), address, code);
    expect(noCookie).toMatchObject({ status: 401, body: { reason: "email_code_invalid" } });
    expect(noCookie.body.detail).toMatch(/this browser/);
    // The attempt named by the email sign-in cookie: the sign-in query does not find a recovery row.
    const thief = new EmailBrowser();
    thief.attempt = asker.recoveryAttempt;
    expect((await thief.verify(address, code)).body.detail).toMatch(/this browser/);
    // A sign-in code of the address, named by the recovery cookie: the recovery query does not find a sign-in row.
    const signer = new EmailBrowser();
    await signer.start(address);
    const signInCode = await lastCode(address);
    const crossed = new EmailBrowser();
    crossed.recoveryAttempt = signer.attempt;
    expect((await recoverySignIn(crossed, address, signInCode)).body.detail).toMatch(/this browser/);
    const failures = await env.DB.prepare("SELECT failures FROM email_codes WHERE id = ?")
      .bind(asker.recoveryAttempt as string)
      .first<{ failures: number }>();
    expect(failures?.failures).toBe(0);
    const res = await recoverySignIn(asker, address, code);
    expect(res.body.account?.did_oc).toBe(did);
  });

  it("limits: a 4th start a day for one address from one network is rate_limited; 5 wrong tries spend the code; an expired one fails", async () => {
    const address = freshEmail("limited");
    const asker = new EmailBrowser();
    for (let i = 0; i < RECOVERY_STARTS_PER_DAY; i++) {
      expect((await post(asker, "/api/auth/recovery/signin/start", { email: address })).status).toBe(200);
    }
    const fourth = await post(asker, "/api/auth/recovery/signin/start", { email: address });
    expect(fourth).toMatchObject({ status: 429, body: { reason: "rate_limited" } });
    const { browser } = await owner();
    const recover = freshEmail("recover");
    await setRecovery(browser, recover);
    const { browser: guesser, code } = await askRecovery(recover);
    for (let i = 0; i < 5; i++) {
      expect((await recoverySignIn(guesser, recover, wrongCode(code, i))).body.reason).toBe("email_code_invalid");
    }
    expect(await recoverySignIn(guesser, recover, code)).toMatchObject({
      status: 429,
      body: { reason: "email_code_locked" },
    });
    const again = await askRecovery(recover);
    await env.DB.prepare("UPDATE email_codes SET expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1, again.browser.recoveryAttempt as string)
      .run();
    expect((await recoverySignIn(again.browser, recover, again.code)).body.reason).toBe("email_code_expired");
  });

  it("a code mailed before the address was changed signs nobody in", async () => {
    const { browser } = await owner();
    const address = freshEmail("recover");
    await setRecovery(browser, address);
    const { browser: asker, code } = await askRecovery(address);
    await setRecovery(browser, freshEmail("recover"));
    expect((await recoverySignIn(asker, address, code)).body.reason).toBe("email_code_invalid");
    expect(asker.cookie).toBeUndefined();
  });

  it("when the notices cannot be mailed, nobody is signed in (mailer_error); with no mailer at all, start is mailer_not_configured for every address", async () => {
    const { browser, did } = await owner();
    const address = freshEmail("recover");
    await setRecovery(browser, address);
    const { browser: asker, code } = await askRecovery(address);
    const mail = env.MAIL_API_URL as string;
    await fetch(`${mail}/__admin/mode`, { method: "PUT", body: JSON.stringify({ down: true }) });
    try {
      // The start still answers as ever (its mail goes after the answer), so a broken mailer tells nothing either.
      expect((await post(new EmailBrowser(), "/api/auth/recovery/signin/start", { email: address })).status).toBe(200);
      expect(await recoverySignIn(asker, address, code)).toMatchObject({
        status: 502,
        body: { reason: "mailer_error" },
      });
    } finally {
      await fetch(`${mail}/__admin/mode`, { method: "PUT", body: JSON.stringify({ down: false }) });
    }
    expect(asker.cookie).toBeUndefined();
    expect((await accountLogOf(did)).some((e) => e.event_type === "recovery.signed_in")).toBe(false);
    const bindings = { ...(env as unknown as AuthEnv["Bindings"]), MAIL_API_URL: undefined, DEV_MAIL_LOG: undefined };
    for (const email of [address, freshEmail("nobody")]) {
      const res = await app.request(
        `${AUTH_ORIGIN}/api/auth/recovery/signin/start`,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "cf-connecting-ip": freshIp(),
            "sec-fetch-site": "same-origin",
          },
          body: JSON.stringify({ email }),
        },
        bindings,
      );
      expect(await answer(res)).toMatchObject({ status: 503, body: { reason: "mailer_not_configured" } });
    }
  });
});

describe("OpenAPI", () => {
  it("lists the email-code routes of account security", async () => {
    const doc = (await (await SELF.fetch(`${AUTH_ORIGIN}/api/openapi`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const [path, method] of [
      ["/api/auth/identities/email/start", "post"],
      ["/api/auth/identities/email/verify", "post"],
      ["/api/auth/reauth/email/start", "post"],
      ["/api/auth/reauth/email/verify", "post"],
      ["/api/auth/recovery", "get"],
      ["/api/auth/recovery", "delete"],
      ["/api/auth/recovery/start", "post"],
      ["/api/auth/recovery/verify", "post"],
      ["/api/auth/recovery/signin/start", "post"],
      ["/api/auth/recovery/signin/verify", "post"],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
  });
});
