// The session JWT verifier: pinned EdDSA, pinned typ, issuer checked, kid from our JWKS only
// (security-and-reliability.md §1.1, JWT-01…JWT-20).
import { env } from "cloudflare:test";
import { base64urlnopad } from "@scure/base";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { type SessionSubject, verifySessionToken } from "../../shared/auth/session-token";
import { type PublicJwk, parsePreviousKeys, toPublicJwk } from "../../shared/crypto/signing-key";
import { AUTH_ORIGIN } from "../helpers/browser";
import { decodePart, encodePart, mintToken } from "../helpers/tokens";

const subject: SessionSubject = {
  sub: "0123456789abcdef0123456789abcdef",
  did_oc: "did:oc:0123456789abcdef0123456789abcdef",
  jti: "test-jti",
  display_name: null,
  primary_btc: null,
  display_identity: { kind: "did", value: "did:oc:0123456789abcdef0123456789abcdef" },
  step_up_at: null,
  sudo_at: 1,
};

const currentJwk = (): PublicJwk => toPublicJwk(JSON.parse(env.AUTH_SIGNING_KEY as string));
const keys = () => [currentJwk(), ...parsePreviousKeys(env.AUTH_PREVIOUS_KEYS)];

async function verify(token: string, now = Date.now()) {
  return verifySessionToken(token, keys(), { issuer: AUTH_ORIGIN, now });
}

function resign(token: string, header: Record<string, unknown>, signature = ""): string {
  const [, payload] = token.split(".");
  return `${encodePart(header)}.${payload}.${signature}`;
}

/** Signs with the test key (or another), through jose, with extra protected-header members. */
async function signWith(header: Record<string, unknown>, key?: CryptoKey): Promise<string> {
  const signingKey =
    key ??
    (await crypto.subtle.importKey("jwk", JSON.parse(env.AUTH_SIGNING_KEY as string), { name: "Ed25519" }, false, [
      "sign",
    ]));
  return new SignJWT({ ...subject })
    .setProtectedHeader({ alg: "EdDSA", typ: "JWT", kid: currentJwk().kid, ...header })
    .setIssuer(AUTH_ORIGIN)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(signingKey);
}

async function hs256(token: string, secret: Uint8Array): Promise<string> {
  const [, payload] = token.split(".");
  const header = encodePart({ alg: "HS256", typ: "JWT", kid: currentJwk().kid });
  const key = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${header}.${payload}`));
  return `${header}.${payload}.${base64urlnopad.encode(new Uint8Array(mac))}`;
}

describe("session token verification", () => {
  it("accepts a token it issued", async () => {
    const result = await verify(await mintToken(subject));
    expect(result.ok).toBe(true);
  });

  it("JWT-01: rejects alg none in any spelling", async () => {
    const token = await mintToken(subject);
    for (const alg of ["none", "None", "NONE"]) {
      expect((await verify(resign(token, { alg, typ: "JWT" }))).ok).toBe(false);
    }
  });

  it("JWT-02: rejects HS256 keyed with the published JWK text or the raw public key", async () => {
    const token = await mintToken(subject);
    const jwkText = new TextEncoder().encode(JSON.stringify(currentJwk()));
    const raw = base64urlnopad.decode(currentJwk().x);
    expect((await verify(await hs256(token, jwkText))).ok).toBe(false);
    expect((await verify(await hs256(token, raw))).ok).toBe(false);
  });

  it("JWT-03: rejects other algorithms in the header", async () => {
    const token = await mintToken(subject);
    const [, , signature] = token.split(".");
    for (const alg of ["ES256", "RS256", "Ed25519", "Ed448"]) {
      const forged = resign(token, { alg, typ: "JWT", kid: currentJwk().kid }, signature);
      expect((await verify(forged)).ok).toBe(false);
    }
  });

  it("JWT-04: rejects a token from another issuer", async () => {
    const token = await mintToken(subject);
    const result = await verifySessionToken(token, keys(), { issuer: "https://other.example", now: Date.now() });
    expect(result).toEqual({ ok: false, reason: "claims" });
  });

  it("JWT-05: rejects exp == now, and an expired token", async () => {
    const now = Date.now();
    const token = await mintToken(subject, { now: now - 10_000, expiresAt: now });
    expect(await verify(token, Math.floor(now / 1000) * 1000)).toEqual({ ok: false, reason: "expired" });
  });

  it("JWT-07: rejects iat in the future beyond the skew", async () => {
    const now = Date.now();
    const token = await mintToken(subject, { now: now + 120_000, expiresAt: now + 3_600_000 });
    expect((await verify(token, now)).ok).toBe(false);
    const within = await mintToken(subject, { now: now + 30_000, expiresAt: now + 3_600_000 });
    expect((await verify(within, now)).ok).toBe(true);
  });

  it("JWT-09: rejects time claims that are not numbers", async () => {
    const key = await crypto.subtle.importKey(
      "jwk",
      JSON.parse(env.AUTH_SIGNING_KEY as string),
      { name: "Ed25519" },
      false,
      ["sign"],
    );
    for (const claims of [{ exp: "9999999999" }, { exp: null }, { iat: "1" }]) {
      const header = encodePart({ alg: "EdDSA", typ: "JWT", kid: currentJwk().kid });
      const payload = encodePart({ ...subject, iss: AUTH_ORIGIN, iat: 1, exp: 9_999_999_999, ...claims });
      const sig = await crypto.subtle.sign("Ed25519", key, new TextEncoder().encode(`${header}.${payload}`));
      expect((await verify(`${header}.${payload}.${base64urlnopad.encode(new Uint8Array(sig))}`)).ok).toBe(false);
    }
  });

  it("JWT-10/11: rejects an unknown kid, including one with path or SQL characters", async () => {
    const token = await mintToken(subject);
    const [, payload, signature] = token.split(".");
    for (const kid of ["nope", "../../etc/passwd", "' OR 1=1 --"]) {
      const header = encodePart({ alg: "EdDSA", typ: "JWT", kid });
      expect(await verify(`${header}.${payload}.${signature}`)).toEqual({ ok: false, reason: "signature" });
    }
  });

  it("JWT-12: refuses tokens whose header carries jku, x5u or an embedded jwk", async () => {
    for (const extra of [
      { jku: "https://evil.example/jwks" },
      { x5u: "https://evil.example/x" },
      { jwk: currentJwk() },
    ]) {
      expect((await verify(await signWith(extra))).ok).toBe(false);
    }
  });

  it("JWT-13: rejects another token type from the same issuer", async () => {
    expect((await verify(await signWith({ typ: "oauth-state+jwt" }))).ok).toBe(false);
  });

  it("JWT-15: rejects a flipped, truncated or over-long signature, and a tampered payload", async () => {
    const token = await mintToken(subject);
    const [header, payload, signature = ""] = token.split(".");
    const bytes = base64urlnopad.decode(signature);
    const flipped = Uint8Array.from(bytes);
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    for (const sig of [flipped, bytes.subarray(0, 63), Uint8Array.from([...bytes, 0])]) {
      expect((await verify(`${header}.${payload}.${base64urlnopad.encode(sig)}`)).ok).toBe(false);
    }
    const tampered = encodePart({ ...decodePart(token, 1), sub: "ffffffffffffffffffffffffffffffff" });
    expect(await verify(`${header}.${tampered}.${signature}`)).toEqual({ ok: false, reason: "signature" });
  });

  it("JWT-16: rejects an S+L malleated signature", async () => {
    const token = await mintToken(subject);
    const [header, payload, signature = ""] = token.split(".");
    const bytes = base64urlnopad.decode(signature);
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    let s = 0n;
    for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(bytes[32 + i] ?? 0);
    let malleated = s + L;
    const out = Uint8Array.from(bytes);
    for (let i = 0; i < 32; i++) {
      out[32 + i] = Number(malleated & 0xffn);
      malleated >>= 8n;
    }
    expect((await verify(`${header}.${payload}.${base64urlnopad.encode(out)}`)).ok).toBe(false);
  });

  it("JWT-17/18: rejects payloads that are not objects and survives __proto__ claims", async () => {
    const token = await mintToken(subject);
    const [header, , signature] = token.split(".");
    for (const payload of [[], 0, ""]) {
      expect((await verify(`${header}.${encodePart(payload)}.${signature}`)).ok).toBe(false);
    }
    const polluted = `${header}.${base64urlnopad.encode(new TextEncoder().encode('{"__proto__":{"admin":true}}'))}.${signature}`;
    expect((await verify(polluted)).ok).toBe(false);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it("JWT-19: a wrong key on an expired token reports the signature, not the expiry", async () => {
    const now = Date.now();
    const token = await mintToken(subject, { now: now - 7_200_000, expiresAt: now - 3_600_000 });
    const [header, payload, signature = ""] = token.split(".");
    const bad = Uint8Array.from(base64urlnopad.decode(signature));
    bad[0] = (bad[0] ?? 0) ^ 0xff;
    expect(await verify(`${header}.${payload}.${base64urlnopad.encode(bad)}`)).toEqual({
      ok: false,
      reason: "signature",
    });
  });

  it("JWT-20: a key verifies while it is in the key set and fails once removed", async () => {
    const { privateKey, publicKey } = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey("jwk", publicKey)) as JsonWebKey & { x: string };
    const rotated = toPublicJwk({ x: jwk.x, kid: "retired-kid" });
    const token = await signWith({ kid: "retired-kid" }, privateKey);
    const opts = { issuer: AUTH_ORIGIN, now: Date.now() };
    expect((await verifySessionToken(token, [currentJwk(), rotated], opts)).ok).toBe(true);
    expect((await verifySessionToken(token, [currentJwk()], opts)).ok).toBe(false);
  });
});
