// The two provider calls of a sign-in, whatever the provider: where to send the browser, and what a returned code
// proves (who signed in). OIDC endpoints come from discovery; GitHub's from configuration.
import { OAuthError } from "./errors";
import { redeemGitHub } from "./github";
import { fetchJson } from "./http";
import { clientAuthFor, discover, verifyIdToken } from "./oidc";
import type { OidcProvider, Provider } from "./providers";
import { type CodeRedemption, displayName, type ProviderProfile, requestToken } from "./token";

export async function authorizationEndpoint(provider: Provider, now: number): Promise<string> {
  if (provider.kind === "oauth2") return provider.authorizeUrl;
  return (await discover(provider.issuer, now)).authorization_endpoint;
}

/** The provider's issuer, when it has one: the only value a callback's `iss` parameter may carry (RFC 9207). */
export function expectedIssuer(provider: Provider): string | undefined {
  return provider.kind === "oidc" ? provider.issuer : undefined;
}

/** Exchanges the code (with the PKCE verifier) and returns the verified identity; OAuthError on any failure. */
export function redeemCode(provider: Provider, redemption: CodeRedemption): Promise<ProviderProfile> {
  return provider.kind === "oauth2" ? redeemGitHub(provider, redemption) : redeemOidc(provider, redemption);
}

async function redeemOidc(provider: OidcProvider, redemption: CodeRedemption): Promise<ProviderProfile> {
  const discovery = await discover(provider.issuer, redemption.now);
  const tokens = await requestToken(discovery.token_endpoint, provider, redemption, clientAuthFor(discovery));
  if (!tokens.id_token) throw new OAuthError("oauth_response_invalid", "token endpoint sent no id_token");
  const claims = await verifyIdToken(tokens.id_token, {
    provider,
    jwksUri: discovery.jwks_uri,
    nonce: redemption.nonce,
    now: redemption.now,
  });
  const sub = claims.sub as string;
  let name = displayName(claims.name, claims.preferred_username);
  if (name === null && discovery.userinfo_endpoint) name = await userinfoName(discovery.userinfo_endpoint, tokens, sub);
  return { identity: { kind: provider.identityKind, value: sub }, displayName: name };
}

/** The name from the userinfo endpoint; only believed when it speaks of the id_token's subject (OIDC Core §5.3.2). */
async function userinfoName(endpoint: string, tokens: { access_token: string }, sub: string): Promise<string | null> {
  const answer = await fetchJson(endpoint, {
    headers: { accept: "application/json", authorization: `Bearer ${tokens.access_token}` },
  });
  if (answer.status !== 200 || typeof answer.body !== "object" || answer.body === null) return null;
  const info = answer.body as Record<string, unknown>;
  return info.sub === sub ? displayName(info.name, info.preferred_username) : null;
}
