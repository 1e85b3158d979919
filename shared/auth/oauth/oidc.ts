// OpenID Connect sign-in after the code exchange: the library has checked the id_token (issuer, audience, azp,
// expiry, nonce); its signature is checked too, against the discovered key set, and `sub` becomes the identity.
// The provider's name (else username, else email) is kept as the account's display name: a person recognises an
// account by it. Shown only; an account is never matched by it (OA-06).
import {
  getValidatedIdTokenClaims,
  processUserInfoResponse,
  type TokenEndpointResponse,
  userInfoRequest,
  validateApplicationLevelSignature,
} from "oauth4webapi";
import { OAuthError, providerStep } from "./errors";
import { displayName, MAX_SUBJECT_LENGTH, type ProviderProfile } from "./profile";
import type { OidcProvider } from "./providers";
import type { ProviderServer } from "./server";

export async function oidcProfile(
  provider: OidcProvider,
  server: ProviderServer,
  tokens: TokenEndpointResponse,
  tokenResponse: Response,
): Promise<ProviderProfile> {
  // OIDC Core §3.1.3.7 lets a client skip the signature of a token fetched over TLS; we check it regardless, so
  // the identity rests on the issuer's key and not only on the channel (asymmetric algorithms only).
  await providerStep("id_token", () => validateApplicationLevelSignature(server.as, tokenResponse, server.options));
  const claims = getValidatedIdTokenClaims(tokens);
  if (!claims) throw new OAuthError("oauth_response_invalid", "token endpoint sent no id_token");
  if (claims.sub === "" || claims.sub.length > MAX_SUBJECT_LENGTH) {
    throw new OAuthError("oauth_response_invalid", "id_token has no usable subject");
  }
  const name = profileName(claims) ?? (await userinfoName(server, tokens, claims.sub));
  return { identity: { kind: provider.identityKind, value: claims.sub }, displayName: name };
}

/** The OIDC standard claims (Core §5.1) a person knows an account by, in order of preference. */
function profileName(claims: Record<string, unknown>): string | null {
  return displayName(claims.name, claims.preferred_username, claims.email);
}

/**
 * The name from the userinfo endpoint, only believed when it speaks of the id_token's subject (OIDC Core §5.3.2).
 * A name is a courtesy: when the endpoint is missing, fails or names someone else, the account simply has none.
 */
async function userinfoName(server: ProviderServer, tokens: TokenEndpointResponse, sub: string) {
  if (!server.as.userinfo_endpoint) return null;
  try {
    const response = await userInfoRequest(server.as, server.client, tokens.access_token, server.options);
    const info = await processUserInfoResponse(server.as, server.client, sub, response);
    return profileName(info);
  } catch {
    return null;
  }
}
