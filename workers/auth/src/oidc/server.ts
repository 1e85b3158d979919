// The OAuth 2.1 machinery under the OpenID provider (issue 33): Cloudflare's @cloudflare/workers-oauth-provider,
// in its authorization-server role. It owns what must not be written by hand: client authentication, codes (single
// use; a replayed code revokes its grant and every token it issued), PKCE verification, refresh tokens that rotate,
// RFC 7009 revocation at the token endpoint, and its grants and tokens in KV, stored only as hashes with their props
// encrypted. This host adds what OpenID Connect needs on top (routes/oidc-*.ts): discovery, the ID token, userinfo,
// nonce, auth_time, amr, max_age and prompt, consent and the clients' owners.
import type { OAuthAuthorizationServer, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { AuthBindings } from "../env";
import { OIDC_SCOPES } from "./claims";

export const AUTHORIZE_PATH = "/oauth/authorize";
export const TOKEN_PATH = "/oauth/token";
export const USERINFO_PATH = "/oauth/userinfo";
export const JWKS_PATH = "/oauth/jwks";
export const CONSENT_PATH = "/oauth/consent";

/**
 * Access tokens live an hour; a grant with `offline_access` (its refresh tokens) 30 days from the code exchange. A
 * grant without it gets no refresh token and ends with its access token.
 */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

/** The one protected resource of this provider: its userinfo endpoint (every access token's audience). */
export const userinfoResource = (issuer: string) => `${issuer}${USERINFO_PATH}`;

type LibraryEnv = AuthBindings & { OAUTH_KV: KVNamespace };

/** The library reads its store as `OAUTH_KV`: here it is the host's `KV` namespace (nothing else is stored in it). */
export const libraryEnv = (env: AuthBindings): LibraryEnv => ({ ...env, OAUTH_KV: env.KV });

/**
 * The library, loaded on first use: it imports `cloudflare:workers`, which exists only in the runtime, and the app's
 * module is also loaded outside it (the OpenAPI document is generated in Node).
 */
export const oauthLibrary = () => import("@cloudflare/workers-oauth-provider");

const servers = new Map<string, OAuthAuthorizationServer<LibraryEnv>>();

/** The authorization server for this host's origin (its issuer), made once per isolate. */
export async function oauthServer(env: AuthBindings): Promise<OAuthAuthorizationServer<LibraryEnv>> {
  const issuer = env.AUTH_ORIGIN;
  let server = servers.get(issuer);
  if (!server) {
    const { OAuthAuthorizationServer, OAuthError } = await oauthLibrary();
    server = new OAuthAuthorizationServer<LibraryEnv>({
      issuer,
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      resources: [userinfoResource(issuer)],
      scopesSupported: [...OIDC_SCOPES],
      accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
      cookiePrefix: "__Host-oc_oidc",
      // "Stay signed in" is what the person allows with offline_access: without it, the code exchange issues no
      // refresh token (the library ignores refreshTokenTTL on other grants), and a grant that holds one from before
      // this rule is refused at its next refresh (invalid_grant also revokes it).
      tokenExchangeCallback: ({ grantType, scope }) => {
        if (scope.includes("offline_access")) return undefined;
        if (grantType === "refresh_token") {
          throw new OAuthError("invalid_grant", { description: "this grant does not hold offline_access" });
        }
        return { refreshTokenTTL: 0 };
      },
    });
    servers.set(issuer, server);
  }
  return server;
}

/**
 * The library's helpers for this host's routes. A new authorization leaves the account's other grants for the same
 * app alone, where the library by default revokes them (`revokeExistingGrants`): each device signed in to an app
 * keeps its own grant, and the account's allowance (its consent row) governs them all; taking it back, or the app's
 * revocation, ends every one.
 */
export async function oauthApi(env: AuthBindings): Promise<OAuthHelpers> {
  const api = (await oauthServer(env)).getOAuthApi(libraryEnv(env));
  const complete = api.completeAuthorization.bind(api);
  api.completeAuthorization = (options) => complete({ revokeExistingGrants: false, ...options });
  return api;
}
