// The challenge flow against an auth host (GET then POST /api/challenge), the I/O around ./read: ask for a
// challenge, have the wallet sign `message`, submit it. Works against this host and against hosts that send
// `expiresAt` as unix milliseconds. Runs in Workers, Node 18+, Deno and browsers (fetch only). Every result is one
// discriminated union: `ok: true` only for a challenge issued or a signature verified; a refused proof, like an
// unreachable host, is `{ ok: false, reason }`.
import { kitHeaders } from "../version";
import { type IssuedChallenge, readChallenge, readVerifiedChallenge, type VerifiedChallenge } from "./read";

export interface ChallengeClientOptions {
  /** The auth host's origin, e.g. https://auth.example.com (the option every gate of the kit takes). */
  authOrigin: string | URL;
  fetch?: typeof fetch;
  /** Gives up after this long; default 10 seconds. */
  timeoutMs?: number;
}

/** Why a call gave no challenge or no verdict; `detail` says more (status, the host's reason). */
export type ChallengeCallFailure =
  | "unavailable" // the host could not be reached, timed out, answered 5xx or not JSON
  | "refused" // the host answered 4xx (its `reason` is in detail), e.g. invalid_query for a foreign address
  | "malformed"; // a 2xx answer without the fields of a challenge

export type ChallengeFailure = { ok: false; reason: ChallengeCallFailure; detail: string };

/** requestChallenge's result: the challenge to sign, or why there is none. */
export type ChallengeRequest = { ok: true; challenge: IssuedChallenge } | ChallengeFailure;

/**
 * submitChallenge's result: verified, or not. `invalid_challenge`: the host checked the proof and refused it (the
 * signature, nonce, audience, purpose or expiry did not hold; `code` says which, e.g. nonce_unknown).
 */
export type ChallengeSubmission =
  | { ok: true; verified: VerifiedChallenge }
  | { ok: false; reason: "invalid_challenge"; detail: string; code?: string }
  | ChallengeFailure;

type Answer = { ok: true; body: unknown } | ChallengeFailure;

const DEFAULT_TIMEOUT_MS = 10_000;

async function call(options: ChallengeClientOptions, path: string, init?: RequestInit): Promise<Answer> {
  const fetchImpl = options.fetch ?? ((input, requestInit) => fetch(input, requestInit));
  let res: Response;
  try {
    res = await fetchImpl(new URL(path, options.authOrigin), {
      ...init,
      headers: kitHeaders({ accept: "application/json", ...(init?.body && { "content-type": "application/json" }) }),
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    });
  } catch (err) {
    return { ok: false, reason: "unavailable", detail: String(err) };
  }
  const body: unknown = await res.json().catch(() => undefined);
  if (res.status >= 500 || body === undefined)
    return { ok: false, reason: "unavailable", detail: `HTTP ${res.status}` };
  if (!res.ok) {
    const reason = (body as { reason?: unknown }).reason;
    return { ok: false, reason: "refused", detail: `HTTP ${res.status} ${typeof reason === "string" ? reason : ""}` };
  }
  return { ok: true, body };
}

/** `GET /api/challenge?addr=…`: the message to sign, its nonce and its expiry (unix ms and ISO). */
export async function requestChallenge(
  options: ChallengeClientOptions,
  params: { addr: string; audience?: string; purpose?: string; ttl?: number },
): Promise<ChallengeRequest> {
  const query = new URLSearchParams({ addr: params.addr });
  if (params.audience !== undefined) query.set("audience", params.audience);
  if (params.purpose !== undefined) query.set("purpose", params.purpose);
  if (params.ttl !== undefined) query.set("ttl", String(params.ttl));
  const answer = await call(options, `/api/challenge?${query}`);
  return answer.ok ? readChallenge(answer.body) : answer;
}

/** `POST /api/challenge`: verifies the signed message (and consumes its nonce on this host). */
export async function submitChallenge(
  options: ChallengeClientOptions,
  signed: {
    message: string;
    signature: string;
    expectedNonce?: string;
    expectedAudience?: string;
    expectedPurpose?: string;
  },
): Promise<ChallengeSubmission> {
  const answer = await call(options, "/api/challenge", { method: "POST", body: JSON.stringify(signed) });
  if (!answer.ok) return answer;
  const body = answer.body as { ok?: unknown; code?: unknown };
  if (body.ok === false) {
    const code = typeof body.code === "string" ? body.code : undefined;
    return {
      ok: false,
      reason: "invalid_challenge",
      detail: `the host refused the proof${code ? `: ${code}` : ""}`,
      ...(code !== undefined && { code }),
    };
  }
  return readVerifiedChallenge(answer.body);
}
