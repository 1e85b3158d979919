// The authorization request (RFC 6749 §4.1.1 with RFC 7636 PKCE and, for OIDC, the nonce): the URL the browser is
// sent to. Parameters the endpoint already carries are kept; ours are set over them.

export interface AuthorizationRequest {
  endpoint: string;
  clientId: string;
  /** Exactly `${AUTH_ORIGIN}/api/auth/<provider>/callback`: providers compare it by string (OA-05). */
  redirectUri: string;
  scope: string;
  state: string;
  codeChallenge: string;
  nonce?: string;
}

export function authorizationUrl(request: AuthorizationRequest): string {
  const url = new URL(request.endpoint);
  const params: Record<string, string> = {
    response_type: "code",
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope,
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: "S256",
  };
  if (request.nonce !== undefined) params.nonce = request.nonce;
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

/** The one redirect URI registered with every provider for `providerId`. */
export function redirectUri(authOrigin: string, providerId: string): string {
  return `${authOrigin.replace(/\/+$/, "")}/api/auth/${providerId}/callback`;
}
