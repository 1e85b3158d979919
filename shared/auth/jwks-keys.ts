// The session keys a verifier of the auth host's JWKS holds, and when it reads the JWKS again, as plain functions of
// its state and `now` (the fleet's workers/fleet/src/auth-keys.ts does the reading). Keys configured by hand (the
// fleet's AUTH_PUBLIC_KEYS) are the starting set and keys read from the JWKS add to them. A kid the set lacks (a
// rotation since the last read) reads again at once, at most once per UNKNOWN_KID_INTERVAL_MS, so made-up kids cost
// the auth host little; a kid known only from a read older than the JWKS's max-age reads again too, so a key retired
// from the JWKS stops verifying within it. A failed read keeps the keys in hand (the kit's verifier does the same).
import { decodeProtectedHeader } from "jose";
import { type PublicJwk, sessionKeysOf } from "../crypto/signing-key";
import { MAX_SESSION_COOKIES, readSessionCookies } from "./cookie";

/** Keys read from the JWKS are used this long before a token they verify reads it again: the JWKS's max-age. */
export const JWKS_TTL_MS = 5 * 60_000;
/**
 * Least time between two reads for kids the set lacks. No wait (the kit waits 1 s): a token within it is refused at
 * once, so a new key is refused only until the interval ends, and only when an unknown kid was read for just before
 * the rotation. A stale refresh does not count against it.
 */
export const UNKNOWN_KID_INTERVAL_MS = 30_000;
/** Least time between a failed read and the next read of a stale set; the stale keys serve meanwhile. */
export const FAILED_READ_COOLDOWN_MS = 30_000;

export interface JwksState {
  /** The session keys of the last good read, and when that read began. */
  read?: { keys: readonly PublicJwk[]; at: number };
  /** When the last read for an unknown kid began, whatever came of it. */
  unknownKidReadAt?: number;
  /** When the last read began, if it failed (cleared by a good one). */
  failedAt?: number;
}

/** Why the keys in hand do not serve a request's tokens. */
export type ReadReason = "unknown_kid" | "stale";

/**
 * The `kid`s of the session tokens a Cookie header carries, as resolveSession tries them (the first four). Only
 * EdDSA headers count: any other token fails whatever the key, so it never causes a read.
 */
export function cookieKids(cookieHeader: string | undefined): string[] {
  const kids: string[] = [];
  for (const token of readSessionCookies(cookieHeader).slice(0, MAX_SESSION_COOKIES)) {
    try {
      const header = decodeProtectedHeader(token);
      if (header.alg === "EdDSA" && typeof header.kid === "string" && header.kid) kids.push(header.kid);
    } catch {
      // Not a JWS: it verifies with no key.
    }
  }
  return kids;
}

/** The session keys of a JWKS body's `keys`, or undefined when it holds none (a broken answer: keep what we have). */
export function jwksSessionKeys(keys: unknown): PublicJwk[] | undefined {
  const forSessions = sessionKeysOf(keys);
  return forSessions.length > 0 ? forSessions : undefined;
}

/**
 * The session keys of a configured key list (the fleet's AUTH_PUBLIC_KEYS, a JSON array): a key marked for another
 * use (a pasted JWKS holds the audit key) never verifies a session, and one past its `oc_retire_at` is left out.
 */
export function configuredSessionKeys(json: string | undefined): PublicJwk[] {
  return json ? sessionKeysOf(JSON.parse(json)) : [];
}

/** The keys in force: the configured ones, then the read ones under other kids (a configured key is never replaced). */
export function keysInForce(configured: readonly PublicJwk[], state: JwksState): PublicJwk[] {
  const kids = new Set(configured.map((k) => k.kid));
  return [...configured, ...(state.read?.keys ?? []).filter((k) => !kids.has(k.kid))];
}

/** Why these kids want a read: one is in no key in force, or one is known only from a read older than the TTL. */
export function readWanted(
  kids: readonly string[],
  configured: readonly PublicJwk[],
  state: JwksState,
  now: number,
): ReadReason | undefined {
  let stale = false;
  for (const kid of kids) {
    if (configured.some((k) => k.kid === kid)) continue;
    if (!state.read?.keys.some((k) => k.kid === kid)) return "unknown_kid";
    if (now - state.read.at >= JWKS_TTL_MS) stale = true;
  }
  return stale ? "stale" : undefined;
}

/** Whether a read for `reason` may begin at `now`, no read being in flight. */
export function mayRead(reason: ReadReason, state: JwksState, now: number): boolean {
  if (reason === "unknown_kid") {
    return state.unknownKidReadAt === undefined || now - state.unknownKidReadAt >= UNKNOWN_KID_INTERVAL_MS;
  }
  return state.failedAt === undefined || now - state.failedAt >= FAILED_READ_COOLDOWN_MS;
}

/** The state after a read for `reason` that began at `at`: its session keys, or undefined when it failed. */
export function afterRead(
  state: JwksState,
  reason: ReadReason,
  at: number,
  keys: readonly PublicJwk[] | undefined,
): JwksState {
  return {
    // A good read replaces the last one whole: a key the JWKS no longer has leaves with it.
    read: keys ? { keys, at } : state.read,
    unknownKidReadAt: reason === "unknown_kid" ? at : state.unknownKidReadAt,
    failedAt: keys ? undefined : at,
  };
}

/** Reads the JWKS's `keys` member; throws or answers undefined when it cannot. */
export type JwksRead = () => Promise<unknown>;

/**
 * One verifier's keys (the fleet holds one per isolate). Requests that want a read while one is in flight wait for
 * it instead of starting their own, so a burst of first requests after a rotation costs one read.
 */
export function createJwksKeys() {
  let state: JwksState = {};
  let inflight: Promise<void> | undefined;

  async function readNow(reason: ReadReason, now: number, read: JwksRead): Promise<void> {
    let keys: PublicJwk[] | undefined;
    try {
      keys = jwksSessionKeys(await read());
    } catch {
      keys = undefined;
    }
    state = afterRead(state, reason, now, keys);
  }

  return {
    /** The keys in force for tokens of these kids, after a read when they want one and it may begin. */
    async keysFor(
      kids: readonly string[],
      configured: readonly PublicJwk[],
      now: number,
      read: JwksRead,
    ): Promise<PublicJwk[]> {
      const reason = readWanted(kids, configured, state, now);
      if (reason && inflight) {
        await inflight;
      } else if (reason && mayRead(reason, state, now)) {
        const pending = readNow(reason, now, read).finally(() => {
          inflight = undefined;
        });
        inflight = pending;
        await pending;
      }
      return keysInForce(configured, state);
    },
    /** The state, for tests and logs. */
    state: (): Readonly<JwksState> => state,
  };
}
