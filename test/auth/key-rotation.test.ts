// Session-key rotation with overlap (issue 18): `npm run keys -- rotate session`'s configuration applied while a
// load of verifications runs through the kit's verifier against this host's JWKS: 0 failures, before, across and
// after the switch; a retired key leaves the JWKS at its `oc_retire_at` by itself, and never shows that member.
// Security review 2, item 8: the fleet's AUTH_PUBLIC_KEYS that rotate prints, and `keys retire <kid>` taking a
// compromised key out of the JWKS at once (never the signing key, an audit key or a kid the list lacks).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { retireSessionKey, rotateSessionKey } from "../../scripts/lib/key-rotation.mjs";
import { configuredSessionKeys } from "../../shared/auth/jwks-keys";
import { type SessionSubject, signSessionToken, verifySessionToken } from "../../shared/auth/session-token";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { createSessionVerifier } from "../../shared/kit/consumer/session-verifier";
import { DAY } from "../../shared/time";
import { app } from "../../workers/auth/src/app";
import { verificationKeys } from "../../workers/auth/src/session-context";
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

const publicOf = ({ kty, crv, x, kid }: { kty: string; crv: string; x: string; kid: string }) => ({ kty, crv, x, kid });

const jwksOf = async (config: Env) =>
  (await (await app.request("/.well-known/jwks.json", {}, config)).json()) as { keys: Record<string, unknown>[] };

describe("session-key rotation", () => {
  it("0 failed verifications for a consumer while the host rotates its key mid-load", async () => {
    let config: Env = { ...(env as Env) };
    // The consumer reads whatever configuration the host runs at the moment of each read.
    const verifier = createSessionVerifier({
      authOrigin: AUTH_ORIGIN,
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

describe("the fleet's AUTH_PUBLIC_KEYS and keys retire", () => {
  it("rotate session: the fleet's value is the new key, then AUTH_PREVIOUS_KEYS with the same oc_retire_at", async () => {
    const base = env as Env;
    const older = { ...publicOf(await newPrivateJwk()), oc_retire_at: new Date(Date.now() + DAY).toISOString() };
    const rotated = rotateSessionKey({
      signingKey: base.AUTH_SIGNING_KEY,
      previousKeys: JSON.stringify([older]),
      fresh: await newPrivateJwk(),
    });
    const fleet = JSON.parse(rotated.fleetPublicKeys) as Record<string, string>[];
    const previous = JSON.parse(rotated.secrets.AUTH_PREVIOUS_KEYS) as Record<string, string>[];
    expect(fleet.map((k) => k.kid)).toEqual([rotated.newKid, rotated.oldKid, older.kid]);
    expect(fleet.slice(1)).toEqual(previous);
    expect(fleet.every((k) => !("d" in k))).toBe(true);
    // The fleet holds what the auth host's JWKS holds for sessions after the rotation.
    const config: Env = { ...base, ...rotated.secrets };
    expect(configuredSessionKeys(rotated.fleetPublicKeys)).toEqual(await verificationKeys(config));
  });

  it("retire: the kid leaves AUTH_PREVIOUS_KEYS, the JWKS and the host's own verification at once", async () => {
    const base = env as Env;
    const [compromised, staying] = await Promise.all([newPrivateJwk(), newPrivateJwk()]);
    const retireAt = new Date(Date.now() + 30 * DAY).toISOString();
    const before: Env = {
      ...base,
      AUTH_PREVIOUS_KEYS: JSON.stringify([
        { ...publicOf(compromised), oc_retire_at: retireAt },
        { ...publicOf(staying), oc_retire_at: retireAt },
      ]),
    };
    const token = await mintWith({ ...before, AUTH_SIGNING_KEY: JSON.stringify(compromised) }, 7);
    const verifies = async (config: Env) =>
      (await verifySessionToken(token, await verificationKeys(config), { issuer: AUTH_ORIGIN, now: Date.now() })).ok;
    expect(await verifies(before)).toBe(true);

    const retired = retireSessionKey({
      signingKey: base.AUTH_SIGNING_KEY,
      previousKeys: before.AUTH_PREVIOUS_KEYS,
      kid: compromised.kid,
    });
    const after: Env = { ...before, ...retired.secrets };
    expect(JSON.parse(retired.secrets.AUTH_PREVIOUS_KEYS)).toEqual([{ ...publicOf(staying), oc_retire_at: retireAt }]);
    const kids = (await jwksOf(after)).keys.map((k) => k.kid);
    expect(kids).not.toContain(compromised.kid);
    expect(kids).toContain(staying.kid);
    expect(await verifies(after)).toBe(false);
    expect(configuredSessionKeys(retired.fleetPublicKeys)).toEqual(await verificationKeys(after));
  });

  it("retire refuses the current signing key, an audit key and a kid AUTH_PREVIOUS_KEYS lacks, in one line each", async () => {
    const base = env as Env;
    const current = JSON.parse(base.AUTH_SIGNING_KEY) as { kid: string };
    const previous = await newPrivateJwk();
    const audit = await newPrivateJwk();
    const retire = (kid: string) => () =>
      retireSessionKey({
        signingKey: base.AUTH_SIGNING_KEY,
        previousKeys: JSON.stringify([publicOf(previous)]),
        publishedKeys: JSON.stringify([publicOf(audit)]),
        kid,
      });
    expect(retire(current.kid)).toThrow(/is the current AUTH_SIGNING_KEY: rotate first/);
    expect(retire(audit.kid)).toThrow(/is an audit key: it stays published/);
    expect(retire("no-such-kid")).toThrow(
      `no session key no-such-kid in AUTH_PREVIOUS_KEYS (it holds: ${previous.kid})`,
    );
    for (const kid of [current.kid, audit.kid, "no-such-kid"]) {
      expect(() => retire(kid)()).toThrow(/^[^\n]+$/);
    }
  });
});
