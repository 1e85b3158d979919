// Registering a hardware key (issue 27) with the software authenticator, through @simplewebauthn/server: what is
// stored (a public key, never returned), fresh sudo, and each check the library makes failing one at a time.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeStale, signedInBrowser } from "../helpers/account-security";
import { Browser } from "../helpers/browser";
import { SoftAuthenticator } from "../helpers/soft-authenticator";
import { answer, logLines, optionsFrom, registerKey, stepUp, withBindings } from "../helpers/webauthn-flows";

const LOCAL = { origin: "http://localhost:8787", rpId: "localhost" };

const keyRow = (id: string) =>
  env.DB.prepare("SELECT * FROM webauthn_credentials WHERE id = ?")
    .bind(id)
    .first<{ account_id: string; public_key: string; counter: number; transports: string; name: string }>();

describe("registering a hardware key", () => {
  it("stores the credential's public key and labels, answers the key without it, and logs the registration", async () => {
    const { browser, account } = await signedInBrowser();
    const soft = new SoftAuthenticator();
    const res = await registerKey(browser, soft, {}, "Blue key");
    expect(res.status).toBe(201);
    const key = res.body.key as Record<string, unknown>;
    expect(key).toMatchObject({ id: res.response.id, name: "Blue key", device_type: "singleDevice", backed_up: false });
    expect(key.transports).toEqual(["usb"]);
    expect(JSON.stringify(res.body)).not.toMatch(/public_?key/i);
    const row = await keyRow(res.response.id);
    expect(row?.public_key).toMatch(/^[A-Za-z0-9_-]{40,}$/); // COSE, base64url
    expect(row?.counter).toBe(0);
    const lines = await logLines(account.did_oc);
    const registered = lines.find((l) => l.event_type === "hardware_key.registered");
    expect(registered?.detail).toEqual({
      credential_id: res.response.id,
      name: "Blue key",
      device_type: "singleDevice",
    });
    expect(registered?.session_id).toEqual(expect.any(String));
    expect(JSON.stringify(lines)).not.toContain(row?.public_key ?? "-");
  });

  it("offers a discoverable credential, excludes the account's keys, verifies packed self-attestation, names a synced passkey", async () => {
    const { browser } = await signedInBrowser();
    const packed = new SoftAuthenticator({ ...LOCAL, fmt: "packed" });
    const first = await registerKey(browser, packed);
    expect(first.status).toBe(201);
    expect(first.options).toMatchObject({ rp: { id: "localhost" } });
    expect((await stepUp(browser, packed)).status).toBe(200); // a further key needs a step-up with this one
    const options: Record<string, unknown> = { ...(await optionsFrom(browser, "/api/auth/webauthn/register/options")) };
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "preferred", userVerification: "preferred" });
    expect(options.excludeCredentials).toEqual([{ id: first.response.id, type: "public-key", transports: ["usb"] }]);
    const forged = await registerKey(browser, new SoftAuthenticator({ ...LOCAL, fmt: "packed" }), {
      badSignature: true,
    });
    expect(forged).toMatchObject({ status: 401, body: { reason: "webauthn_response_invalid" } });
    const synced = new SoftAuthenticator({ ...LOCAL, synced: true });
    const second = await registerKey(browser, synced);
    expect(second.status).toBe(201);
    expect(second.body.key).toMatchObject({ name: "Synced passkey", device_type: "multiDevice", backed_up: true });
  });

  it("needs a fresh sudo_at: a sign-in older than 10 minutes is 403 sudo_required, for options and answer", async () => {
    const { browser } = await signedInBrowser();
    const options = await optionsFrom(browser, "/api/auth/webauthn/register/options");
    await makeStale(browser);
    const refused = await answer(await browser.post("/api/auth/webauthn/register/options"));
    expect(refused).toMatchObject({ status: 403, body: { reason: "sudo_required" } });
    const response = await new SoftAuthenticator().create(options);
    const late = await answer(await browser.post("/api/auth/webauthn/register", { response }));
    expect(late).toMatchObject({ status: 403, body: { reason: "sudo_required" } });
    const anonymous = await answer(await new Browser().post("/api/auth/webauthn/register/options"));
    expect(anonymous).toMatchObject({ status: 401, body: { reason: "not_authenticated" } });
  });

  it("refuses an answer made for another origin or another RP ID (webauthn_response_invalid)", async () => {
    const { browser } = await signedInBrowser();
    const origin = await registerKey(browser, new SoftAuthenticator(), { origin: "https://evil.example" });
    expect(origin).toMatchObject({ status: 401, body: { reason: "webauthn_response_invalid" } });
    expect(origin.body.detail).toMatch(/origin/);
    const rpId = await registerKey(browser, new SoftAuthenticator(), { rpId: "evil.example" });
    expect(rpId).toMatchObject({ status: 401, body: { reason: "webauthn_response_invalid" } });
    expect(rpId.body.detail).toMatch(/RP ID/);
    const absent = await registerKey(browser, new SoftAuthenticator(), { up: false });
    expect(absent.body.detail).toMatch(/present/);
  });

  it("uses a challenge once: the same answer again is 400 webauthn_challenge_invalid, as is another session's", async () => {
    const { browser } = await signedInBrowser();
    const held = new SoftAuthenticator();
    const first = await registerKey(browser, held);
    expect(first.status).toBe(201);
    expect((await stepUp(browser, held)).status).toBe(200);
    const replay = await answer(await browser.post("/api/auth/webauthn/register", { response: first.response }));
    expect(replay).toMatchObject({ status: 400, body: { reason: "webauthn_challenge_invalid" } });
    // A challenge is bound to the session row that asked for it.
    const other = await signedInBrowser();
    const options = await optionsFrom(other.browser, "/api/auth/webauthn/register/options");
    const response = await new SoftAuthenticator().create(options);
    const elsewhere = await answer(await browser.post("/api/auth/webauthn/register", { response }));
    expect(elsewhere).toMatchObject({ status: 400, body: { reason: "webauthn_challenge_invalid" } });
    // A failed verification uses the challenge too.
    const bad = await registerKey(browser, new SoftAuthenticator(), { origin: "https://evil.example" });
    expect(bad.status).toBe(401);
    const again = await answer(await browser.post("/api/auth/webauthn/register", { response: bad.response }));
    expect(again.body.reason).toBe("webauthn_challenge_invalid");
  });

  it("refuses a credential already registered, here or on another account (409 webauthn_already_registered)", async () => {
    const { browser } = await signedInBrowser();
    const soft = new SoftAuthenticator();
    const first = await registerKey(browser, soft);
    expect(first.status).toBe(201);
    expect((await stepUp(browser, soft)).status).toBe(200);
    // An authenticator that ignored excludeCredentials answers with the same credential: the primary key decides.
    const again = await registerKey(browser, soft, { reuse: first.response.id });
    expect(again).toMatchObject({ status: 409, body: { reason: "webauthn_already_registered" } });
    const other = await signedInBrowser();
    const elsewhere = await registerKey(other.browser, soft, { reuse: first.response.id });
    expect(elsewhere.body.reason).toBe("webauthn_already_registered");
    const row = await keyRow(first.response.id);
    expect(row?.account_id).not.toBeUndefined();
    const owner = await env.DB.prepare("SELECT did_oc FROM accounts WHERE id = ?")
      .bind(row?.account_id)
      .first<{ did_oc: string }>();
    expect(owner?.did_oc).toBe((await browser.me()).body.account.did_oc);
  });

  it("never answers 500 for a malformed answer: unreadable parts are 400 or 401 with a reason", async () => {
    const { browser } = await signedInBrowser();
    const options = await optionsFrom(browser, "/api/auth/webauthn/register/options");
    const response = await new SoftAuthenticator().create(options);
    const garbled = { ...response, response: { ...response.response, attestationObject: "AAAA" } };
    const res = await answer(await browser.post("/api/auth/webauthn/register", { response: garbled }));
    expect(res).toMatchObject({ status: 401, body: { reason: "webauthn_response_invalid" } });
    const noChallenge = { ...response, response: { ...response.response, clientDataJSON: "e30" } };
    const unread = await answer(await browser.post("/api/auth/webauthn/register", { response: noChallenge }));
    expect(unread).toMatchObject({ status: 400, body: { reason: "webauthn_challenge_invalid" } });
    const invalid = await answer(await browser.post("/api/auth/webauthn/register", { response: { id: "x" } }));
    expect(invalid).toMatchObject({ status: 400, body: { reason: "invalid_body" } });
    const longName = await answer(
      await browser.post("/api/auth/webauthn/register", { response, name: "x".repeat(65) }),
    );
    expect(longName.body.reason).toBe("invalid_body");
  });

  it("with WEBAUTHN_USER_VERIFICATION=required, asks for UV and refuses an answer without it", async () => {
    const { browser } = await signedInBrowser();
    const post = withBindings(browser, { WEBAUTHN_USER_VERIFICATION: "required" });
    const asked = await answer(await post("/api/auth/webauthn/register/options"));
    const options = asked.body.options as Parameters<SoftAuthenticator["create"]>[0] & Record<string, unknown>;
    expect(options.authenticatorSelection).toMatchObject({ userVerification: "required" });
    const response = await new SoftAuthenticator().create(options, { uv: false });
    const refused = await answer(await post("/api/auth/webauthn/register", { response }));
    expect(refused).toMatchObject({ status: 401, body: { reason: "webauthn_response_invalid" } });
    expect(refused.body.detail).toMatch(/user verification/);
    // Preferred (the default) accepts a key that could not verify the user.
    expect((await registerKey(browser, new SoftAuthenticator(), { uv: false })).status).toBe(201);
  });
});
