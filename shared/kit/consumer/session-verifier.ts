// Consumer-side verification of the auth host's `oc_session` JWT (issue 8, part 1): the host's own checks
// (shared/auth/session-token.ts: EdDSA only, typ JWT, issuer, exp, iat skew, claim shapes) against keys read from
// the published JWKS, which is fetched once and cached. An unknown `kid` (a key rotated in since the last read)
// waits for the unknown-kid interval after the last read, then reads again, so a valid token is never refused during
// a rotation and a flood of bogus kids costs the host at most one read per interval; after a failed read the longer
// cooldown holds, and a JWKS outage keeps the last good keys. WebCrypto
// through jose; no call to the auth host per request. Runs in Workers, Node 20+, Deno and browsers.
import { decodeProtectedHeader } from "jose";
import { MAX_SESSION_COOKIES, readSessionCookies } from "../../auth/cookie";
import { type SessionClaims, verifySessionTokenWithKey } from "../../auth/session-token";
import { importVerifyKey, type PublicJwk, sessionKeysOf } from "../../crypto/signing-key";
import { kitHeaders } from "../version";

export type { DisplayIdentity, DisplayIdentityKind, SessionClaims } from "../../auth/session-token";

/**
 * Why a request has no session; stable strings to switch on, the same in a verifier's result and in the body of every
 * gate's refusal (401, or 503 for `session_keys_unavailable`). All start `session_`: a page signs the person in.
 */
export const SESSION_FAILURES = [
  "session_missing", // no bearer token and no oc_session cookie in the request
  "session_malformed", // not a compact JWS, or an undecodable header or payload
  "session_alg_not_allowed", // header alg is not EdDSA (none, HS256, RS256, …)
  "session_typ_not_allowed", // header typ is not JWT
  "session_forbidden_header", // jku, x5u, x5c or jwk in the header: keys come only from the configured JWKS
  "session_unknown_key", // the kid is not in the JWKS, even after a refetch
  "session_keys_unavailable", // no JWKS has ever been read (host unreachable, not JSON, no Ed25519 key)
  "session_bad_signature", // the signature does not verify (tampered header or payload)
  "session_expired", // exp is past
  "session_bad_claims", // wrong issuer, iat in the future beyond the skew, missing or ill-typed claims
] as const;

export type SessionFailure = (typeof SESSION_FAILURES)[number];

export type VerifiedSession = { ok: true; claims: SessionClaims } | { ok: false; reason: SessionFailure };

/** The auth host's token reasons (shared/auth/session-token.ts) as the kit's. */
const TOKEN_FAILURE: Record<"malformed" | "signature" | "expired" | "claims", SessionFailure> = {
  malformed: "session_malformed",
  signature: "session_bad_signature",
  expired: "session_expired",
  claims: "session_bad_claims",
};

/**
 * Where sessions come from, the one shape every verifier and gate of the kit takes: the auth host's origin, from which
 * the JWKS (`<authOrigin>/.well-known/jwks.json`) and the issuer (the origin itself) derive; either may be overridden.
 */
export interface AuthOriginOptions {
  /** The auth host's origin, e.g. https://auth.example.com */
  authOrigin: string | URL;
  /** Override: the JWKS to read; default `<authOrigin>/.well-known/jwks.json`. */
  jwksUrl?: string | URL;
  /** Override: `iss` exactly as the host issues it; default authOrigin's origin. */
  issuer?: string;
}

/** The JWKS URL and issuer an AuthOriginOptions names. */
export function authEndpoints(options: AuthOriginOptions): { jwksUrl: string; issuer: string } {
  const origin = new URL(String(options.authOrigin));
  return {
    jwksUrl: String(options.jwksUrl ?? new URL("/.well-known/jwks.json", origin)),
    issuer: options.issuer ?? origin.origin,
  };
}

export interface SessionVerifierOptions extends AuthOriginOptions {
  fetch?: typeof fetch;
  /** How long the JWKS is used before it is read again; default 5 minutes (the JWKS's own max-age). */
  cacheTtlMs?: number;
  /** Least time between two JWKS reads after a failed read or for a stale set; default 30 seconds. */
  cooldownMs?: number;
  /** Least time between two reads for kids the set lacks (a request waits for it, then reads); default 1 second. */
  unknownKidIntervalMs?: number;
  /** Gives up on a JWKS read after this long; default 5 seconds. */
  timeoutMs?: number;
  /** Clock in epoch milliseconds; default Date.now. */
  now?: () => number;
}

/** Request headers as Workers (Headers) and Node (IncomingHttpHeaders) hold them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface SessionVerifier {
  /** Verifies one token (the cookie's value or a bearer token). */
  verify(token: string): Promise<VerifiedSession>;
  /** The first token of the request that verifies (bearer first, then up to four oc_session cookies). */
  verifyRequest(headers: HeaderSource): Promise<VerifiedSession>;
  /** Reads the JWKS now (e.g. at startup); false when it could not be read. Not subject to the cooldown. */
  refresh(): Promise<boolean>;
}

export const DEFAULT_CACHE_TTL_MS = 5 * 60 * 1000;
export const DEFAULT_COOLDOWN_MS = 30 * 1000;
export const DEFAULT_UNKNOWN_KID_INTERVAL_MS = 1000;
const DEFAULT_TIMEOUT_MS = 5000;
const FORBIDDEN_HEADERS = ["jku", "x5u", "x5c", "jwk"] as const;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(name === "cookie" ? "; " : ", ") : value;
}

/**
 * The session tokens a request carries, in the order they are tried: `Authorization: Bearer <jwt>`, then the
 * first four `oc_session` cookies (as the host does: several copies may coexist, a flood is not all tried).
 */
export function sessionTokens(headers: HeaderSource): string[] {
  const tokens: string[] = [];
  const bearer = /^Bearer\s+(\S+)$/i.exec(header(headers, "authorization") ?? "")?.[1];
  if (bearer && COMPACT_JWS.test(bearer)) tokens.push(bearer);
  tokens.push(...readSessionCookies(header(headers, "cookie")).slice(0, MAX_SESSION_COOKIES));
  return tokens;
}

/**
 * True when a freshness claim (`step_up_at` or `sudo_at`, epoch seconds) is fresh at `now` (epoch ms): the spec's
 * rule, which auth-core's verifySudoClaim / verifyStepUpClaim apply, `0 ≤ now − value < window` in whole seconds
 * (oc-wire-formats §6.10). So a stamp exactly `maxAgeSeconds` old is stale, and one in the future by even a second
 * is refused (no skew allowance, as auth-core: the two must give one answer). Null or absent is never fresh.
 */
export function isFresh(at: number | null | undefined, maxAgeSeconds: number, now: number = Date.now()): boolean {
  if (typeof at !== "number" || !Number.isFinite(at)) return false;
  const age = Math.floor(now / 1000) - at;
  return age >= 0 && age < maxAgeSeconds;
}

/** `isFresh(claims.step_up_at, …)`: the account asserted a hardware key (WebAuthn step-up) within maxAgeSeconds. */
export const isSteppedUp = (claims: SessionClaims, maxAgeSeconds: number, now?: number) =>
  isFresh(claims.step_up_at, maxAgeSeconds, now);

/** `isFresh(claims.sudo_at, …)`: the account signed in or re-authenticated (sudo) within maxAgeSeconds. */
export const isSudo = (claims: SessionClaims, maxAgeSeconds: number, now?: number) =>
  isFresh(claims.sudo_at, maxAgeSeconds, now);

type HeaderCheck = { ok: true; kid: string } | { ok: false; reason: SessionFailure };

/**
 * Header checks by the header's base64url text: every token a key signs carries the same header, so the decode is
 * done once per key, not per request. A pure function of its key, bounded, so it is safe to share.
 */
const checkedHeaders = new Map<string, HeaderCheck>();
const CHECKED_HEADERS_MAX = 64;

function checkHeader(token: string): HeaderCheck {
  if (!COMPACT_JWS.test(token)) return { ok: false, reason: "session_malformed" };
  const segment = token.slice(0, token.indexOf("."));
  let checked = checkedHeaders.get(segment);
  if (!checked) {
    checked = decodeHeader(token);
    if (checkedHeaders.size >= CHECKED_HEADERS_MAX) checkedHeaders.clear();
    checkedHeaders.set(segment, checked);
  }
  return checked;
}

function decodeHeader(token: string): HeaderCheck {
  let protectedHeader: Record<string, unknown>;
  try {
    protectedHeader = decodeProtectedHeader(token) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: "session_malformed" };
  }
  if (protectedHeader.alg !== "EdDSA") return { ok: false, reason: "session_alg_not_allowed" };
  if (protectedHeader.typ !== "JWT") return { ok: false, reason: "session_typ_not_allowed" };
  if (FORBIDDEN_HEADERS.some((name) => name in protectedHeader)) {
    return { ok: false, reason: "session_forbidden_header" };
  }
  if (typeof protectedHeader.kid !== "string" || protectedHeader.kid === "") {
    return { ok: false, reason: "session_malformed" };
  }
  return { ok: true, kid: protectedHeader.kid };
}

/** `createSessionVerifier({ authOrigin: "https://auth.example.com" })`: one per process or isolate (it holds the cache). */
export function createSessionVerifier(options: SessionVerifierOptions): SessionVerifier {
  const { jwksUrl, issuer } = authEndpoints(options);
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const ttl = options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  const cooldown = options.cooldownMs ?? DEFAULT_COOLDOWN_MS;
  const unknownKidInterval = options.unknownKidIntervalMs ?? DEFAULT_UNKNOWN_KID_INTERVAL_MS;
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  let cache: { keys: PublicJwk[]; at: number } | undefined;
  let lastAttempt: number | undefined;
  let lastReadOk = false;
  let inflight: Promise<boolean> | undefined;

  async function read(): Promise<boolean> {
    lastAttempt = now();
    lastReadOk = await readOnce();
    return lastReadOk;
  }

  async function readOnce(): Promise<boolean> {
    try {
      const res = await fetchImpl(jwksUrl, {
        headers: kitHeaders({ accept: "application/json" }),
        signal: AbortSignal.timeout(timeout),
      });
      if (!res.ok) return false;
      const body = (await res.json()) as { keys?: unknown };
      if (!Array.isArray(body?.keys)) return false;
      // Only keys for sessions: the same JWKS also publishes the fleet's audit key (oc_use "audit").
      const keys = sessionKeysOf(body.keys);
      if (keys.length === 0) return false;
      cache = { keys, at: now() };
      return true;
    } catch {
      // Stale-on-error: the last good keys stay in use.
      return false;
    }
  }

  /** One read at a time: concurrent callers share it. */
  function refresh(): Promise<boolean> {
    if (!inflight) {
      const pending = read();
      inflight = pending;
      void pending.finally(() => {
        if (inflight === pending) inflight = undefined;
      });
    }
    return inflight;
  }

  /** A kid the good cached set lacks: wait out the interval since the last read, then read unless one began since. */
  async function readForUnknownKid(t: number): Promise<void> {
    const wait = (lastAttempt ?? t) + unknownKidInterval - t;
    if (wait > 0 && !inflight) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inflight) await inflight;
    else if (lastAttempt === undefined || lastAttempt <= t) await refresh();
  }

  /** The cached key of `kid`, after a read when it is stale or unknown. */
  async function keyFor(kid: string): Promise<PublicJwk | SessionFailure> {
    const t = now();
    const fresh = cache !== undefined && t - cache.at < ttl;
    const known = cache?.keys.some((k) => k.kid === kid) ?? false;
    if (!known && cache && lastReadOk) await readForUnknownKid(t);
    else if ((!fresh || !known) && (lastAttempt === undefined || t - lastAttempt >= cooldown || inflight)) {
      await refresh();
    }
    if (!cache) return "session_keys_unavailable";
    return cache.keys.find((k) => k.kid === kid) ?? "session_unknown_key";
  }

  async function verify(token: string): Promise<VerifiedSession> {
    const checked = checkHeader(token);
    if (!checked.ok) return checked;
    const jwk = await keyFor(checked.kid);
    if (typeof jwk === "string") return { ok: false, reason: jwk };
    // The header is checked (alg, typ, no key headers) and the key chosen by its kid: jose verifies with it.
    const key = await importVerifyKey(jwk);
    const result = await verifySessionTokenWithKey(token, key, { issuer, now: now() });
    return result.ok ? { ok: true, claims: result.claims } : { ok: false, reason: TOKEN_FAILURE[result.reason] };
  }

  async function verifyRequest(headers: HeaderSource): Promise<VerifiedSession> {
    let first: VerifiedSession | undefined;
    for (const token of sessionTokens(headers)) {
      const result = await verify(token);
      if (result.ok) return result;
      first ??= result;
    }
    return first ?? { ok: false, reason: "session_missing" };
  }

  return { verify, verifyRequest, refresh };
}
