// The round trip of an authorization request through the sign-in page (issue 33; review 3, item 2): its query carried
// as one base64url value (the sign-in page's return_to refuses percent-encoded separators, which every redirect_uri
// holds), marked with when the request began and MACed by this host over the whole carried query. Only a marker this
// host issued, for that very query, less than RESUME_TTL_MS old, lets a sign-in made since then satisfy prompt=login
// and max_age; anything else (a plain `oc_after`, a marker the browser wrote, changed or kept too long) is a fresh
// request, so the browser is sent to sign in again (OpenID Connect Core 3.1.2.1). Pure apart from WebCrypto.
import { base64url } from "jose";
import { utf8 } from "../../../../shared/crypto/digest";
import { hmacSha256, hmacSha256Verify } from "../../../../shared/crypto/hmac";
import { AUTHORIZE_PATH } from "./server";

/** The parameter that carries a request's query through the sign-in page. */
export const RESUME_PARAM = "oc_resume";
/** Inside the carried query: the time (ms) the request was first seen; a sign-in after it is fresh. */
export const AFTER_PARAM = "oc_after";
/** Inside the carried query, last: this host's MAC over everything before it. */
export const MAC_PARAM = "oc_mac";
/** How long a marker vouches for its request: a sign-in page left open longer starts over. */
export const RESUME_TTL_MS = 15 * 60 * 1000;
/** Clock skew tolerated on a marker's time (the isolates of one deployment share a clock, nearly). */
const FUTURE_SKEW_MS = 60 * 1000;

const KEY_LABEL = "oc oidc resume marker v1";

/**
 * The marker's key, derived from the provider's signing secret (always set when the provider answers at all) by an
 * HMAC under a label of its own, so it is no other key's and rotating the secret only restarts requests in flight.
 */
export const resumeKey = (secret: string): Promise<Uint8Array> => hmacSha256(utf8(secret), utf8(KEY_LABEL));

/** The request's own parameters: whatever it says about a resume, a time or a MAC is not its to say. */
function ownParams(query: URLSearchParams): URLSearchParams {
  const own = new URLSearchParams(query);
  for (const name of [RESUME_PARAM, AFTER_PARAM, MAC_PARAM]) own.delete(name);
  return own;
}

/** The sign-in page's return_to that resumes this request: its query, marked with `now` and MACed. */
export async function resumePath(query: URLSearchParams, now: number, key: Uint8Array): Promise<string> {
  const carried = ownParams(query);
  carried.set(AFTER_PARAM, String(now));
  const signed = carried.toString();
  const mac = base64url.encode(await hmacSha256(key, utf8(signed)));
  const text = `${signed}&${MAC_PARAM}=${mac}`;
  return `${AUTHORIZE_PATH}?${RESUME_PARAM}=${base64url.encode(text)}`;
}

/** A request as it arrives: its own query, and when it began if this host's fresh marker vouches for it. */
export interface ArrivedRequest {
  query: URLSearchParams;
  /** Epoch ms from a valid marker; null for a fresh request. */
  after: number | null;
}

/** The time a carried query's MAC vouches for, or null when the MAC is missing, wrong, or the marker stale. */
async function vouchedTime(text: string, key: Uint8Array, now: number): Promise<number | null> {
  const at = text.lastIndexOf(`&${MAC_PARAM}=`);
  if (at < 0) return null;
  const signed = text.slice(0, at);
  let mac: Uint8Array;
  try {
    mac = base64url.decode(text.slice(at + MAC_PARAM.length + 2));
  } catch {
    return null;
  }
  if (mac.length !== 32 || !(await hmacSha256Verify(key, mac, utf8(signed)))) return null;
  const raw = new URLSearchParams(signed).getAll(AFTER_PARAM);
  if (raw.length !== 1 || !/^\d{1,15}$/.test(raw[0] as string)) return null;
  const after = Number(raw[0]);
  return after <= now + FUTURE_SKEW_MS && now - after <= RESUME_TTL_MS ? after : null;
}

/**
 * The request at the authorization endpoint: resumed (its carried query) or as sent, stripped of the marker's
 * parameters; undefined when the resume value does not decode.
 */
export async function arrivedRequest(url: URL, key: Uint8Array, now: number): Promise<ArrivedRequest | undefined> {
  const resume = url.searchParams.get(RESUME_PARAM);
  if (resume === null) return { query: ownParams(url.searchParams), after: null };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(base64url.decode(resume));
  } catch {
    return undefined;
  }
  return { query: ownParams(new URLSearchParams(text)), after: await vouchedTime(text, key, now) };
}
