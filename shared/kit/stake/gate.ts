// requireStake, the core every adapter uses: verify the request's session locally (the consumer verifier: JWKS
// cached, no call per request), ask the verification API's /api/check for the session's Bitcoin address at the
// gate's thresholds, keep each verdict for the API's own 60 s, and decide (./decision). Fails closed: anything but
// a verdict is `check_unavailable`, and is never cached. Runs in Workers, Node 18+, Deno (fetch and WebCrypto only).
import type { HeaderSource } from "../consumer/session-verifier";
import { type SessionSourceOptions, verifierFor } from "../consumer/source";
import { kitHeaders } from "../version";
import { type CheckAnswer, checkPath, decide, readCheckAnswer, type StakeDecision, sessionAddress } from "./decision";

/**
 * `{ authOrigin }` (the issuer of oc_session and, unless checkOrigin, the verification API) or `{ verifier }`
 * shared with other gates (one JWKS cache; then authOrigin or checkOrigin names the verification API).
 */
export type StakeGateOptions = SessionSourceOptions & StakeCheckOptions;

export interface StakeCheckOptions {
  /** Bonded sats the address must hold; default 0. */
  minSats?: number;
  /** Days the bond must have been held; default 0. */
  minDays?: number;
  /** Where /api/check lives when not on authOrigin. */
  checkOrigin?: string | URL;
  /** How long a verdict is reused; default 60 s, the verification API's own cache time (service-spec Limits). */
  cacheTtlMs?: number;
  /** Gives up on a check after this long (then check_unavailable); default 5 seconds. */
  timeoutMs?: number;
  /** Verdicts kept at most (oldest dropped first); default 10,000. */
  maxCacheEntries?: number;
}

/** What the gate reads of a request: a Fetch `Request`, Node's `IncomingMessage`, an Express request, … */
export interface RequestLike {
  headers: HeaderSource;
}

export type StakeGate = (request: RequestLike) => Promise<StakeDecision>;

export const DEFAULT_STAKE_CACHE_TTL_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_ENTRIES = 10_000;

function threshold(name: string, value: number | undefined): number {
  const n = value ?? 0;
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`requireStake: ${name} must be a non-negative integer`);
  return n;
}

/** `const decide = requireStake({ authOrigin, minSats, minDays }); const decision = await decide(request);` (`now`: a clock in epoch ms, default Date.now) */
export function requireStake(options: StakeGateOptions): StakeGate {
  const policy = { minSats: threshold("minSats", options.minSats), minDays: threshold("minDays", options.minDays) };
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const verifier = verifierFor("requireStake", { ...options, fetch: fetchImpl });
  const checkOrigin = options.checkOrigin ?? options.authOrigin;
  if (checkOrigin === undefined) throw new TypeError("requireStake: give authOrigin or checkOrigin");
  const ttl = options.cacheTtlMs ?? DEFAULT_STAKE_CACHE_TTL_MS;
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxEntries = options.maxCacheEntries ?? DEFAULT_MAX_ENTRIES;
  const now = options.now ?? Date.now;
  // Verdicts by check path (address and thresholds); a Map keeps insertion order, so the first key is the oldest.
  const verdicts = new Map<string, { answer: CheckAnswer; at: number }>();
  const inflight = new Map<string, Promise<CheckAnswer>>();

  async function ask(address: string, path: string): Promise<CheckAnswer> {
    try {
      const res = await fetchImpl(new URL(path, checkOrigin), {
        headers: kitHeaders({ accept: "application/json" }),
        signal: AbortSignal.timeout(timeout),
      });
      const body: unknown = await res.json().catch(() => undefined);
      return readCheckAnswer(address, res.status, body);
    } catch (err) {
      return { kind: "unavailable", detail: `check unreachable: ${err instanceof Error ? err.name : "error"}` };
    }
  }

  /** One request per question at a time (concurrent callers share it); verdicts kept for the TTL, outages never. */
  async function check(address: string): Promise<CheckAnswer> {
    const path = checkPath(address, policy);
    const cached = verdicts.get(path);
    if (cached && now() - cached.at < ttl) return cached.answer;
    let pending = inflight.get(path);
    if (!pending) {
      pending = ask(address, path).then((answer) => {
        verdicts.delete(path);
        if (answer.kind === "verdict") {
          verdicts.set(path, { answer, at: now() });
          if (verdicts.size > maxEntries) verdicts.delete(verdicts.keys().next().value ?? path);
        }
        return answer;
      });
      const settled = pending;
      void settled.finally(() => inflight.delete(path));
      inflight.set(path, settled);
    }
    return pending;
  }

  return async (request) => {
    const subject = sessionAddress(await verifier.verifyRequest(request.headers));
    if (!subject.ok) return subject;
    return decide(subject.session, await check(subject.address), policy);
  };
}
