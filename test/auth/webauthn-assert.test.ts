// Hardware-key assertions (issue 27) with the software authenticator: a passkey sign-in (discoverable) and a
// step-up, what each sets in the session row and the cookie, and every refusal: a replayed challenge, a counter
// that did not increase, another account's key, an unknown key, a bad signature, another origin or RP ID, no UV
// when it is required.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { claims, sessionId, signedInBrowser } from "../helpers/account-security";
import { Browser } from "../helpers/browser";
import { SoftAuthenticator } from "../helpers/soft-authenticator";
import {
  answer,
  logLines,
  optionsFrom,
  passkeySignIn,
  registerKey,
  stepUp,
  withBindings,
} from "../helpers/webauthn-flows";

/** A signed-in account with one key registered on `soft`. */
async function withKey(soft = new SoftAuthenticator()) {
  const signedIn = await signedInBrowser();
  const registered = await registerKey(signedIn.browser, soft);
  if (registered.status !== 201) throw new Error(`register: ${JSON.stringify(registered.body)}`);
  return { ...signedIn, soft, keyId: registered.response.id };
}

const sessionRow = async (browser: Browser) =>
  env.DB.prepare("SELECT auth_method, authenticated_at, stepped_up_at FROM sessions WHERE id = ?")
    .bind(await sessionId(browser))
    .first<{ auth_method: string; authenticated_at: number; stepped_up_at: number | null }>();

describe("passkey sign-in", () => {
  it("signs the key's account in, with sudo_at and step_up_at in the row and the cookie", async () => {
    const { account, soft } = await withKey();
    const browser = new Browser();
    const before = Math.floor(Date.now() / 1000);
    const res = await passkeySignIn(browser, soft);
    expect(res.status).toBe(200);
    expect((res.body.account as { did_oc: string }).did_oc).toBe(account.did_oc);
    expect(res.options.allowCredentials ?? []).toEqual([]);
    const token = claims(browser);
    expect(token.step_up_at).toBeGreaterThanOrEqual(before);
    expect(token.sudo_at).toBeGreaterThanOrEqual(before);
    expect(await sessionRow(browser)).toMatchObject({ auth_method: "passkey", stepped_up_at: expect.any(Number) });
    expect((await browser.me()).body.account.did_oc).toBe(account.did_oc);
  });

  it("adds the account to the browser's roster with add", async () => {
    const { account, soft } = await withKey();
    const other = await signedInBrowser();
    const res = await passkeySignIn(other.browser, soft, {}, true);
    expect(res.status).toBe(200);
    const me = await other.browser.me();
    expect(me.body.account.did_oc).toBe(account.did_oc);
    expect(me.body.roster.map((r) => r.did_oc)).toContain(other.account.did_oc);
  });

  it("refuses a key not registered here (401 webauthn_credential_unknown)", async () => {
    const stranger = new SoftAuthenticator();
    await stranger.create({ challenge: "AAAA", rp: {}, user: { id: "dXNlcg" } });
    const res = await passkeySignIn(new Browser(), stranger);
    expect(res).toMatchObject({ status: 401, body: { reason: "webauthn_credential_unknown" } });
  });

  it("uses a challenge once: the same assertion again is webauthn_challenge_invalid", async () => {
    const { soft } = await withKey();
    const browser = new Browser();
    const first = await passkeySignIn(browser, soft);
    expect(first.status).toBe(200);
    const replay = await answer(await browser.post("/api/auth/webauthn/signin", { response: first.response }));
    expect(replay).toMatchObject({ status: 400, body: { reason: "webauthn_challenge_invalid" } });
  });

  it("refuses a counter that did not increase (401 webauthn_counter_regressed) and keeps the stored one", async () => {
    const { soft, keyId } = await withKey();
    expect((await passkeySignIn(new Browser(), soft, { counter: 5 })).status).toBe(200);
    const same = await passkeySignIn(new Browser(), soft, { counter: 5 });
    expect(same).toMatchObject({ status: 401, body: { reason: "webauthn_counter_regressed" } });
    const lower = await passkeySignIn(new Browser(), soft, { counter: 3 });
    expect(lower.body.reason).toBe("webauthn_counter_regressed");
    const row = await env.DB.prepare("SELECT counter, last_used_at FROM webauthn_credentials WHERE id = ?")
      .bind(keyId)
      .first<{ counter: number; last_used_at: number | null }>();
    expect(row).toMatchObject({ counter: 5, last_used_at: expect.any(Number) });
    expect((await passkeySignIn(new Browser(), soft, { counter: 6 })).status).toBe(200);
  });

  it("accepts a key that keeps its counter at zero (a synced passkey), every time", async () => {
    const { soft } = await withKey();
    for (let i = 0; i < 2; i++) expect((await passkeySignIn(new Browser(), soft, { counter: 0 })).status).toBe(200);
  });

  it("refuses a bad signature, another origin, another RP ID (401 webauthn_response_invalid)", async () => {
    const { soft } = await withKey();
    const cases = [
      [{ badSignature: true }, /signature/],
      [{ origin: "http://localhost:8788" }, /origin/],
      [{ rpId: "example.com" }, /RP ID/],
    ] as const;
    for (const [knobs, detail] of cases) {
      const res = await passkeySignIn(new Browser(), soft, knobs);
      expect(res, JSON.stringify(knobs)).toMatchObject({ status: 401, body: { reason: "webauthn_response_invalid" } });
      expect(res.body.detail).toMatch(detail);
    }
  });

  it("with WEBAUTHN_USER_VERIFICATION=required, refuses an assertion without UV", async () => {
    const { soft } = await withKey();
    const browser = new Browser();
    const post = withBindings(browser, { WEBAUTHN_USER_VERIFICATION: "required" });
    const asked = await answer(await post("/api/auth/webauthn/signin/options"));
    const options = asked.body.options as Parameters<SoftAuthenticator["get"]>[0] & { userVerification?: string };
    expect(options.userVerification).toBe("required");
    const response = await soft.get(options, { uv: false });
    const refused = await answer(await post("/api/auth/webauthn/signin", { response }));
    expect(refused).toMatchObject({ status: 401, body: { reason: "webauthn_response_invalid" } });
    expect(refused.body.detail).toMatch(/user verification/);
    expect((await passkeySignIn(new Browser(), soft, { uv: false })).status).toBe(200);
  });
});

describe("step-up", () => {
  it("refreshes step_up_at and sudo_at, re-issues the cookie, and logs the re-authentication", async () => {
    const { browser, account, soft, keyId } = await withKey();
    expect(claims(browser).step_up_at).toBeNull();
    const before = Math.floor(Date.now() / 1000);
    const res = await stepUp(browser, soft);
    expect(res.status).toBe(200);
    expect(res.options.allowCredentials?.map((c) => c.id)).toEqual([keyId]);
    expect(res.body.step_up_at).toEqual(expect.any(String));
    expect(claims(browser).step_up_at).toBeGreaterThanOrEqual(before);
    expect(await sessionRow(browser)).toMatchObject({ auth_method: "passkey", stepped_up_at: expect.any(Number) });
    const line = (await logLines(account.did_oc)).find((l) => l.event_type === "reauthenticated");
    expect(line).toMatchObject({
      detail: { method: "passkey", credential_id: keyId },
      session_id: await sessionId(browser),
    });
  });

  it("refuses another account's key (webauthn_credential_unknown), and a challenge of another session", async () => {
    const mine = await withKey();
    const theirs = await withKey();
    const options = await optionsFrom(mine.browser, "/api/auth/webauthn/stepup/options");
    const response = await theirs.soft.get(options, { credentialId: theirs.keyId });
    const res = await answer(await mine.browser.post("/api/auth/webauthn/stepup", { response }));
    expect(res).toMatchObject({ status: 401, body: { reason: "webauthn_credential_unknown" } });
    const mineOptions = await optionsFrom(mine.browser, "/api/auth/webauthn/stepup/options");
    const foreign = await theirs.soft.get(mineOptions, { credentialId: theirs.keyId });
    const crossed = await answer(await theirs.browser.post("/api/auth/webauthn/stepup", { response: foreign }));
    expect(crossed).toMatchObject({ status: 400, body: { reason: "webauthn_challenge_invalid" } });
    expect(claims(mine.browser).step_up_at).toBeNull();
  });

  it("refuses a sign-in challenge, a replay and a counter regression; needs a session and a key", async () => {
    const { browser, soft } = await withKey();
    const signinOptions = await optionsFrom(browser, "/api/auth/webauthn/signin/options");
    const wrongStep = await answer(
      await browser.post("/api/auth/webauthn/stepup", { response: await soft.get(signinOptions) }),
    );
    expect(wrongStep.body.reason).toBe("webauthn_challenge_invalid");
    const first = await stepUp(browser, soft, { counter: 10 });
    expect(first.status).toBe(200);
    const replay = await answer(await browser.post("/api/auth/webauthn/stepup", { response: first.response }));
    expect(replay.body.reason).toBe("webauthn_challenge_invalid");
    expect((await stepUp(browser, soft, { counter: 9 })).body.reason).toBe("webauthn_counter_regressed");
    const anonymous = await answer(await new Browser().post("/api/auth/webauthn/stepup/options"));
    expect(anonymous).toMatchObject({ status: 401, body: { reason: "not_authenticated" } });
    const keyless = await signedInBrowser();
    const none = await answer(await keyless.browser.post("/api/auth/webauthn/stepup/options"));
    expect(none).toMatchObject({ status: 404, body: { reason: "not_found" } });
  });
});
