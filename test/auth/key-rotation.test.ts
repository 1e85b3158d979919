// Session-key rotation with overlap (issue 18): `npm run keys -- rotate session`'s configuration applied while a
// load of verifications runs through the kit's verifier against this host's JWKS: 0 failures, before, across and
// after the switch; a retired key leaves the JWKS at its `oc_retire_at` by itself, and never shows that member.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { rotateSessionKey } from "../../scripts/lib/key-rotation.mjs";
import { type SessionSubject, signSessionToken } from "../../shared/auth/session-token";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { createSessionVerifier } from "../../shared/kit/consumer/session-verifier";
import { DAY } from "../../shared/time";
import { app } from "../../workers/auth/src/app";
import { AUTH_ORIGIN } from "../helpers/browser";

type Env = typeof env & { AUTH_SIGNING_KEY: string; AUTH_PREVIOUS_KEYS?: string };

/** A new Ed25519 private JWK, made with WebCrypto (what scripts/dev-keys.mjs makes with node:crypto). */
async function newPrivateJwk() {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return { kty: "OKP", crv: "Ed25519", x: jwk.x as string, d: jwk.d as string, kid: crypto.randomUUID().slice(0, 8) };
}

const subject = (n: number): SessionSubject => ({
  sub: `acct-${n}`,
  did_oc: `did:oc:${n.toString(16).padStart(32, "0")}`,
  jti: `jti-${n}`,
  display_name: null,
  primary_btc: null,
  display_identity: { kind: "did", value: "did:oc:0" },
  step_up_at: null,
  sudo_at: null,
});

async function mintWith(config: Env, n: number): Promise<string> {
  const key = await loadSigningKey(config.AUTH_SIGNING_KEY);
  const now = Date.now();
  return signSessionToken(subject(n), key, { issuer: AUTH_ORIGIN, now, expiresAt: now + DAY });
}

const jwksOf = async (config: Env) =>
  (await (await app.request("/.well-known/jwks.json", {}, config)).json()) as { keys: Record<string, unknown>[] };

describe("session-key rotation", () => {
  it("0 failed verifications for a consumer while the host rotates its key mid-load", async () => {
    let config: Env = { ...(env as Env) };
    // The consumer reads whatever configuration the host runs at the moment of each read.
    const verifier = createSessionVerifier({
      jwksUrl: `${AUTH_ORIGIN}/.well-known/jwks.json`,
      issuer: AUTH_ORIGIN,
      unknownKidIntervalMs: 20,
      fetch: (input) => Promise.resolve(app.request(new URL(String(input)).pathname, {}, config)),
    });
    const beforeRotation = await mintWith(config, 0);
    const failures: string[] = [];
    let rotated: ReturnType<typeof rotateSessionKey> | undefined;
    for (let round = 0; round < 60; round++) {
      if (round === 20) {
        rotated = rotateSessionKey({
          signingKey: config.AUTH_SIGNING_KEY,
          previousKeys: config.AUTH_PREVIOUS_KEYS,
          fresh: await newPrivateJwk(),
        });
        config = { ...config, ...rotated.secrets };
      }
      // Tokens of the key in force now, and tokens issued before the rotation, verified concurrently.
      const tokens = [beforeRotation, ...(await Promise.all([1, 2, 3].map((i) => mintWith(config, round * 10 + i))))];
      const results = await Promise.all(tokens.map((token) => verifier.verify(token)));
      for (const r of results) if (!r.ok) failures.push(`round ${round}: ${r.reason}`);
    }
    expect(failures).toEqual([]);
    const kids = (await jwksOf(config)).keys.map((k) => k.kid);
    expect(kids).toContain(rotated?.oldKid);
    expect(kids).toContain(rotated?.newKid);
  });

  it("a retired key leaves the JWKS at its oc_retire_at; the member itself is never published", async () => {
    const base = env as Env;
    const [leaving, staying] = await Promise.all([newPrivateJwk(), newPrivateJwk()]);
    const publicOf = ({ kty, crv, x, kid }: { kty: string; crv: string; x: string; kid: string }) => ({
      kty,
      crv,
      x,
      kid,
    });
    const config: Env = {
      ...base,
      AUTH_PREVIOUS_KEYS: JSON.stringify([
        { ...publicOf(leaving), oc_retire_at: new Date(Date.now() - 1000).toISOString() },
        { ...publicOf(staying), oc_retire_at: new Date(Date.now() + DAY).toISOString() },
      ]),
    };
    const { keys } = await jwksOf(config);
    expect(keys.map((k) => k.kid)).toContain(staying.kid);
    expect(keys.map((k) => k.kid)).not.toContain(leaving.kid);
    expect(keys.every((k) => !("oc_retire_at" in k))).toBe(true);
  });
});
