// What can go wrong talking to a provider, as the two reasons the HTTP edge answers with: the provider failed or
// refused (down, slow, non-2xx, `error=` in its answer) versus its answer failed one of our checks.

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
