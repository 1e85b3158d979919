// The OpenID provider's published metadata (issue 33): discovery (OpenID Connect Discovery 1.0, with what RFC 8414
// adds) and the JWKS its ID tokens are signed with. Public, cached five minutes, readable from any origin.
import { createRoute } from "@hono/zod-openapi";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { OIDC_SCOPES, SCOPE_CLAIMS } from "../oidc/claims";
import { ID_TOKEN_ALG, oidcKey } from "../oidc/keys";
import { DiscoverySchema, OidcJwksSchema } from "../oidc/schemas";
import { AUTHORIZE_PATH, JWKS_PATH, TOKEN_PATH, USERINFO_PATH } from "../oidc/server";
import { errorResponses, json } from "../schemas";

export const oidcDiscoveryRoutes = routeGroup<AuthEnv>();

const CLIENT_AUTH = ["client_secret_basic", "client_secret_post", "none"];
const ID_TOKEN_CLAIMS = ["iss", "aud", "azp", "exp", "iat", "auth_time", "nonce", "amr", "at_hash"];

oidcDiscoveryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/.well-known/openid-configuration",
    summary: "OpenID Connect discovery: where this provider's endpoints are and what it supports",
    responses: { 200: json(DiscoverySchema, "The provider's metadata"), ...errorResponses("oidc_not_configured") },
  }),
  async (c) => {
    await oidcKey(c.env); // unconfigured: 503, not a document pointing at endpoints that cannot answer
    const issuer = c.env.AUTH_ORIGIN;
    c.header("Cache-Control", "public, max-age=300");
    c.header("Access-Control-Allow-Origin", "*");
    return c.json(
      {
        issuer,
        authorization_endpoint: `${issuer}${AUTHORIZE_PATH}`,
        token_endpoint: `${issuer}${TOKEN_PATH}`,
        userinfo_endpoint: `${issuer}${USERINFO_PATH}`,
        jwks_uri: `${issuer}${JWKS_PATH}`,
        // RFC 7009 revocation is served at the token endpoint (a POST with `token` and no `grant_type`).
        revocation_endpoint: `${issuer}${TOKEN_PATH}`,
        scopes_supported: [...OIDC_SCOPES],
        response_types_supported: ["code"],
        response_modes_supported: ["query"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: [ID_TOKEN_ALG],
        token_endpoint_auth_methods_supported: CLIENT_AUTH,
        revocation_endpoint_auth_methods_supported: CLIENT_AUTH,
        code_challenge_methods_supported: ["S256"],
        claims_supported: [...new Set([...Object.values(SCOPE_CLAIMS).flat(), ...ID_TOKEN_CLAIMS])],
        prompt_values_supported: ["none", "login", "consent"],
        claims_parameter_supported: false,
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
        authorization_response_iss_parameter_supported: true,
      },
      200,
    );
  },
);

oidcDiscoveryRoutes.openapi(
  createRoute({
    method: "get",
    path: JWKS_PATH,
    summary: "The RSA public keys (JWKS) that verify this provider's ID tokens (oc_use: oidc)",
    responses: { 200: json(OidcJwksSchema, "The key set"), ...errorResponses("oidc_not_configured") },
  }),
  async (c) => {
    const key = await oidcKey(c.env);
    c.header("Cache-Control", "public, max-age=300");
    c.header("Access-Control-Allow-Origin", "*");
    return c.json({ keys: [key.publicJwk as never] }, 200);
  },
);
