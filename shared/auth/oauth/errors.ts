// What can go wrong talking to a provider, as the two reasons the HTTP edge answers with: the provider failed or
// refused (down, slow, non-2xx, `error=` in its answer) versus its answer failed one of our checks. Every failure
// of the protocol library (oauth4webapi) is mapped here, in one table the compiler holds to the library's codes.
import * as oauth from "oauth4webapi";

export type OAuthFailure = "oauth_provider_error" | "oauth_response_invalid";

export class OAuthError extends Error {
  override name = "OAuthError";
  constructor(
    readonly reason: OAuthFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Provider error codes are echoed in `detail`; keep them to the RFC 6749 §4.1.2.1 character set and short. */
export function errorCode(value: unknown): string {
  return typeof value === "string" && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(value) ? value : "unknown";
}

/** Every error code oauth4webapi exports (its `OAUTH_*` constants): a new one in an upgrade fails the build here. */
type LibraryCode = {
  [K in keyof typeof oauth]: (typeof oauth)[K] extends `OAUTH_${string}` ? (typeof oauth)[K] : never;
}[keyof typeof oauth];

const PROVIDER = "oauth_provider_error";
const ANSWER = "oauth_response_invalid";

const REASON_BY_CODE = {
  // The provider failed or refused: an error body, an error callback, a challenge, a status we did not expect
  // (a redirect included: none is followed), no JSON, metadata that is unusable or names another issuer.
  [oauth.RESPONSE_BODY_ERROR]: PROVIDER,
  [oauth.AUTHORIZATION_RESPONSE_ERROR]: PROVIDER,
  [oauth.WWW_AUTHENTICATE_CHALLENGE]: PROVIDER,
  [oauth.RESPONSE_IS_NOT_CONFORM]: PROVIDER,
  [oauth.RESPONSE_IS_NOT_JSON]: PROVIDER,
  [oauth.PARSE_ERROR]: PROVIDER,
  [oauth.MISSING_SERVER_METADATA]: PROVIDER,
  [oauth.INVALID_SERVER_METADATA]: PROVIDER,
  [oauth.HTTP_REQUEST_FORBIDDEN]: PROVIDER,
  [oauth.REQUEST_PROTOCOL_FORBIDDEN]: PROVIDER,
  [oauth.JSON_ATTRIBUTE_COMPARISON]: PROVIDER,
  [oauth.JWT_USERINFO_EXPECTED]: PROVIDER,
  // The answer failed a check: callback `iss` or `state`, id_token signature, issuer, audience, azp, nonce,
  // expiry, a missing claim or token, an algorithm or flow we do not accept.
  [oauth.INVALID_RESPONSE]: ANSWER,
  [oauth.JWT_CLAIM_COMPARISON]: ANSWER,
  [oauth.JWT_TIMESTAMP_CHECK]: ANSWER,
  [oauth.KEY_SELECTION]: ANSWER,
  [oauth.UNSUPPORTED_OPERATION]: ANSWER,
  [oauth.INVALID_REQUEST]: ANSWER, // raised only by resource-server helpers, which this client does not call
} as const satisfies Record<LibraryCode, OAuthFailure>;

function isLibraryCode(code: unknown): code is LibraryCode {
  return typeof code === "string" && Object.hasOwn(REASON_BY_CODE, code);
}

/**
 * Any failure of a provider step (`where` names it: "discovery", "token endpoint", …) as an OAuthError. Details
 * carry the library's fixed messages and sanitised provider error codes, never text the provider chose.
 */
export function toOAuthError(err: unknown, where: string): OAuthError {
  if (err instanceof OAuthError) return new OAuthError(err.reason, `${where}: ${err.message}`);
  if (err instanceof oauth.AuthorizationResponseError) {
    return new OAuthError(PROVIDER, `the provider answered ${errorCode(err.error)}`);
  }
  if (err instanceof oauth.ResponseBodyError) {
    return new OAuthError(PROVIDER, `${where} refused the request: ${errorCode(err.error)}`);
  }
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  if (isLibraryCode(code)) return new OAuthError(REASON_BY_CODE[code], `${where}: ${(err as Error).message}`);
  // Anything else (the library refusing an argument, a URL that does not parse) is not a verdict on the answer.
  return new OAuthError(PROVIDER, `${where} failed (${err instanceof Error ? err.name : typeof err})`);
}

/** Runs one provider step, turning whatever it throws into an OAuthError. */
export async function providerStep<T>(where: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toOAuthError(err, where);
  }
}
