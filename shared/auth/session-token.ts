// The session JWT (DECISIONS 6): issue, and verify with the algorithm pinned to EdDSA, typ pinned to JWT, the
// issuer checked, the key chosen only by `kid` from our own JWKS (never jku/x5u/jwk from the header).
import { type CryptoKey, errors, type JWTPayload, type JWTVerifyOptions, jwtVerify, SignJWT } from "jose";
import { importVerifyKey, type PublicJwk, type SigningKey } from "../crypto/signing-key";
import { epochSeconds } from "../time";
import { type ClientClaims, clientClaims } from "./client-claims";

export const DISPLAY_IDENTITY_KINDS = ["btc", "email", "did"] as const;
export type DisplayIdentityKind = (typeof DISPLAY_IDENTITY_KINDS)[number];

export interface DisplayIdentity {
  kind: DisplayIdentityKind;
  value: string;
}

/** What the issuer puts in a session token beyond the registered claims. */
export interface SessionSubject {
  sub: string;
  did_oc: string;
  jti: string;
  display_name: string | null;
  primary_btc: string | null;
  display_identity: DisplayIdentity;
  step_up_at: number | null;
  sudo_at: number | null;
  /** The did_oc of accounts merged into this one (issue 27; auth-core's `merged_from`); none when absent. */
  merged_from?: string[];
}

export interface SessionClaims extends SessionSubject, Partial<ClientClaims> {
  iss: string;
  iat: number;
  exp: number;
}

export type SessionTokenFailure = "malformed" | "signature" | "expired" | "claims";

/** Future `iat` tolerated, in seconds (clock skew between edge locations). */
export const IAT_SKEW_SECONDS = 60;
const DID_OC = /^did:oc:[0-9a-f]{32}$/;
const FORBIDDEN_HEADERS = ["jku", "x5u", "x5c", "jwk"] as const;

export function signSessionToken(
  subject: SessionSubject,
  key: SigningKey,
  options: { issuer: string; now: number; expiresAt: number },
): Promise<string> {
  // The published auth-core's claims ride beside the spec's (tokens minted before them lack them: Partial above).
  return new SignJWT({ ...subject, ...clientClaims(subject) })
    .setProtectedHeader({ alg: "EdDSA", typ: "JWT", kid: key.kid })
    .setIssuer(options.issuer)
    .setIssuedAt(epochSeconds(options.now))
    .setExpirationTime(epochSeconds(options.expiresAt))
    .sign(key.privateKey);
}

function hasSubjectShape(payload: Record<string, unknown>): boolean {
  const identity = payload.display_identity as Record<string, unknown> | undefined;
  const nullableNumber = (v: unknown) => v === null || v === undefined || typeof v === "number";
  return (
    typeof payload.sub === "string" &&
    typeof payload.jti === "string" &&
    typeof payload.did_oc === "string" &&
    DID_OC.test(payload.did_oc) &&
    typeof identity === "object" &&
    identity !== null &&
    typeof identity.kind === "string" &&
    typeof identity.value === "string" &&
    nullableNumber(payload.step_up_at) &&
    nullableNumber(payload.sudo_at)
  );
}

type VerifyResult = { ok: true; claims: SessionClaims } | { ok: false; reason: SessionTokenFailure };

export function verifySessionToken(
  token: string,
  keys: readonly PublicJwk[],
  options: { issuer: string; now: number },
): Promise<VerifyResult> {
  return verifyWith(
    token,
    (jwt, claims) =>
      jwtVerify(
        jwt,
        async (header) => {
          if (FORBIDDEN_HEADERS.some((name) => name in header)) throw new errors.JOSEError("key headers refused");
          const jwk = keys.find((k) => k.kid === header.kid);
          if (!jwk) throw new errors.JWKSNoMatchingKey();
          return importVerifyKey(jwk);
        },
        claims,
      ),
    options,
  );
}

/**
 * The same checks with the key already chosen: for a caller that has read the token's header, refused the key
 * headers and picked the key by its `kid` (the kit's verifier), so jose need not resolve it again.
 */
export function verifySessionTokenWithKey(
  token: string,
  key: CryptoKey,
  options: { issuer: string; now: number },
): Promise<VerifyResult> {
  return verifyWith(token, (jwt, claims) => jwtVerify(jwt, key, claims), options);
}

async function verifyWith(
  token: string,
  run: (jwt: string, claims: JWTVerifyOptions) => Promise<{ payload: JWTPayload }>,
  options: { issuer: string; now: number },
): Promise<VerifyResult> {
  try {
    const { payload } = await run(token, {
      algorithms: ["EdDSA"],
      typ: "JWT",
      issuer: options.issuer,
      currentDate: new Date(options.now),
      requiredClaims: ["sub", "jti", "iat", "exp"],
    });
    if (typeof payload.iat !== "number" || payload.iat > epochSeconds(options.now) + IAT_SKEW_SECONDS) {
      return { ok: false, reason: "claims" };
    }
    if (!hasSubjectShape(payload)) return { ok: false, reason: "claims" };
    return { ok: true, claims: payload as unknown as SessionClaims };
  } catch (err) {
    if (err instanceof errors.JWTExpired) return { ok: false, reason: "expired" };
    if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSNoMatchingKey) {
      return { ok: false, reason: "signature" };
    }
    if (err instanceof errors.JWTClaimValidationFailed) return { ok: false, reason: "claims" };
    return { ok: false, reason: "malformed" };
  }
}
