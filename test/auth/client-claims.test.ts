// The session token as the published @orangecheck/auth-core reads it (issue 16, item 1): verified the way its
// verifyOcToken does (JWKS key by kid, EdDSA, issuer, then sub/did_oc/jti present) and read through the claims its
// SessionPayload names, beside the spec's own claims (DECISIONS 6), which stay.
import { SELF } from "cloudflare:test";
import { decodeProtectedHeader, importJWK, type JWTPayload, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { clientClaims } from "../../shared/auth/client-claims";
import { AUTH_ORIGIN, Browser } from "../helpers/browser";
import { newWallet } from "../helpers/wallet";

/** auth-core's path: the kid's key from the host's JWKS, EdDSA only, the issuer, and the three claims it requires. */
async function decodeAsAuthCore(token: string): Promise<JWTPayload | null> {
  const jwks = (await (await SELF.fetch(`${AUTH_ORIGIN}/.well-known/jwks.json`)).json()) as {
    keys: { kid: string }[];
  };
  const { kid } = decodeProtectedHeader(token);
  const jwk = jwks.keys.find((k) => k.kid === kid);
  if (!jwk) return null;
  const { payload } = await jwtVerify(token, await importJWK(jwk, "EdDSA"), {
    algorithms: ["EdDSA"],
    issuer: AUTH_ORIGIN,
  });
  return payload.sub && payload.did_oc && payload.jti ? payload : null;
}

describe("session claims the published auth-core reads", () => {
  it("a BIP-322 account's token carries its name as `name`, and every other field auth-core reads", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    await browser.signIn(wallet);
    const res = await browser.fetch("/api/auth/account", { method: "PATCH", json: { display_name: "Satoshi" } });
    expect(res.status).toBe(200);
    const payload = await decodeAsAuthCore(browser.cookie as string);
    expect(payload).not.toBeNull();
    expect(payload).toMatchObject({
      name: "Satoshi",
      npub: null,
      home_federation: null,
      signing_method: "bip322",
      merged_from: [],
      is_owner: false,
      display_identity: { kind: "btc", value: wallet.address },
    });
    expect(typeof payload?.sudo_at).toBe("number");
    // auth-core's freshness helper reads a number or nothing; null (no step-up yet) reads as not fresh there too.
    expect(payload?.step_up_at).toBeNull();
    // The spec's claims are all still there, with the same values.
    expect(payload).toMatchObject({ display_name: "Satoshi", primary_btc: wallet.address });
    expect(payload?.did_oc).toMatch(/^did:oc:[0-9a-f]{32}$/);
  });

  it("clearing the name clears `name` too", async () => {
    const browser = new Browser();
    await browser.signIn(newWallet());
    await browser.fetch("/api/auth/account", { method: "PATCH", json: { display_name: "Hal" } });
    await browser.fetch("/api/auth/account", { method: "PATCH", json: { display_name: null } });
    expect(await decodeAsAuthCore(browser.cookie as string)).toMatchObject({ name: null, display_name: null });
  });

  it("an account the service holds (email, provider) has no signing method auth-core names", () => {
    const claims = clientClaims({ display_name: "Ada", primary_btc: null });
    expect(claims).toEqual({
      name: "Ada",
      npub: null,
      home_federation: null,
      signing_method: null,
      merged_from: [],
      is_owner: false,
    });
    expect(clientClaims({ display_name: null, primary_btc: "bc1q…" })).toMatchObject({
      name: null,
      signing_method: "bip322",
    });
  });
});
