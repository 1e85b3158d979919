// The OpenID provider's token endpoint and userinfo (issue 33). The token endpoint is the library's (code exchange,
// refresh with rotation, RFC 7009 revocation, client authentication); this host adds the ID token to the answer of
// a code exchange or a refresh whose grant holds `openid`, built from the grant's props and the account as it is
// now. Userinfo answers an access token of this provider's, for a client that is not revoked, with the claims its
// scopes release.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { orm } from "../../../../shared/db/client";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { type GrantProps, userClaims } from "../oidc/claims";
import { atHash, signIdToken } from "../oidc/id-token";
import { configuredKey } from "../oidc/keys";
import { libraryEnv, oauthApi, oauthServer, TOKEN_PATH, USERINFO_PATH, userinfoResource } from "../oidc/server";
import { accountFacts, claimCodeExchange, stillAllowed } from "../oidc/store";

export const oidcTokenRoutes = routeGroup<AuthEnv>();

const form = { "application/x-www-form-urlencoded": { schema: z.record(z.string(), z.string()) } };
const tokenJson = { "application/json": { schema: z.record(z.string(), z.unknown()) } };

/** The OAuth error answer (RFC 6749 5.2 / RFC 6750 3.1): never the host's `{ok:false}` shape on these endpoints. */
const oauthError = (
  status: 400 | 401 | 403 | 503,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) =>
  new Response(JSON.stringify({ error, error_description: description }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });

/** The grant type of a token request (its form is read from a copy; the library reads the original). */
async function grantTypeOf(request: Request): Promise<string | null> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return null;
  const body = new URLSearchParams(await request.clone().text());
  return body.get("grant_type");
}

oidcTokenRoutes.openAPIRegistry.registerPath(
  createRoute({
    method: "post",
    path: TOKEN_PATH,
    summary:
      "Token endpoint: authorization_code (PKCE) or refresh_token (rotating) → access, refresh and ID tokens; with `token` and no grant_type, RFC 7009 revocation",
    request: { body: { content: form } },
    responses: {
      200: {
        description: "Tokens (an ID token when the grant holds openid), or a revocation's empty answer",
        content: tokenJson,
      },
      400: {
        description: "invalid_request, invalid_grant (a used code also revokes what it issued), …",
        content: tokenJson,
      },
      401: { description: "invalid_client (a client secret sent by a public client included)", content: tokenJson },
      503: { description: "oidc_not_configured", content: tokenJson },
    },
  }),
);
oidcTokenRoutes.post(TOKEN_PATH, async (c) => {
  const key = await configuredKey(c.env);
  if (!key) return oauthError(503, "temporarily_unavailable", "this host is not set up as an OpenID provider");
  const grantType = await grantTypeOf(c.req.raw);
  const env = c.env;
  // The library is typed against a newer ExecutionContext (with `tracing`); the runtime's is the same object.
  const res = await (await oauthServer(env)).fetch(c.req.raw, libraryEnv(env), c.executionCtx as never);
  if (res.status !== 200 || (grantType !== "authorization_code" && grantType !== "refresh_token")) return res;
  const tokens = (await res.json()) as { access_token?: string; scope?: string };
  const scopes = (tokens.scope ?? "").split(" ");
  const answer = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: res.headers });
  const api = await oauthApi(env);
  const summary = tokens.access_token ? await api.unwrapToken<GrantProps>(tokens.access_token) : null;
  const db = orm(env.DB);
  // A code's single use, held in D1: the library's check read KV, which may be a minute stale at this location.
  if (grantType === "authorization_code" && summary && !(await claimCodeExchange(db, summary.grantId, Date.now()))) {
    await api.revokeGrant(summary.grantId, summary.userId);
    return oauthError(400, "invalid_grant", "the authorization code was already used");
  }
  if (!tokens.access_token || !scopes.includes("openid")) return answer(tokens);
  const props = summary?.grant.props;
  // The account and whether the app may still have its tokens, read at once.
  const [facts, allowed] =
    summary && props
      ? await Promise.all([
          accountFacts(db, props.account_id),
          stillAllowed(db, props.account_id, summary.grant.clientId),
        ])
      : [undefined, false];
  // An account merged away, an app revoked or an allowance taken back since the code: no tokens leave, and the
  // library's are revoked.
  if (!summary || !props || !facts || !allowed) {
    if (summary) await api.revokeGrant(summary.grantId, summary.userId);
    return oauthError(400, "invalid_grant", "the account or the app is no longer there");
  }
  const idToken = await signIdToken(key, {
    issuer: env.AUTH_ORIGIN,
    clientId: summary.grant.clientId,
    facts,
    scopes,
    props,
    withNonce: grantType === "authorization_code",
    atHash: await atHash(tokens.access_token),
    now: Date.now(),
  });
  return answer({ ...tokens, id_token: idToken });
});

/** The bearer token of a userinfo request: the Authorization header only (RFC 6750 2.1). */
const bearerOf = (c: Context<AuthEnv>) =>
  /^Bearer\s+([A-Za-z0-9._~+/:=-]+)$/i.exec(c.req.header("authorization") ?? "")?.[1];

/** Userinfo is read by browser apps too: any origin, never with credentials (the token is the credential). */
const USERINFO_CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "Authorization",
  "Access-Control-Expose-Headers": "WWW-Authenticate",
};

const invalidToken = (description: string) =>
  oauthError(401, "invalid_token", description, {
    "WWW-Authenticate": `Bearer error="invalid_token"`,
    ...USERINFO_CORS,
  });

for (const method of ["get", "post"] as const) {
  oidcTokenRoutes.openAPIRegistry.registerPath(
    createRoute({
      method,
      path: USERINFO_PATH,
      summary: "The signed-in account's claims for an access token of this provider (Authorization: Bearer)",
      responses: {
        200: { description: "sub, and the claims the token's scopes release", content: tokenJson },
        401: {
          description: "invalid_token: not this provider's access token, expired, revoked, or its app revoked",
          content: tokenJson,
        },
        403: { description: "insufficient_scope: the token does not hold openid", content: tokenJson },
      },
    }),
  );
  oidcTokenRoutes.on(method.toUpperCase(), USERINFO_PATH, async (c) => {
    if (!(await configuredKey(c.env)))
      return oauthError(503, "temporarily_unavailable", "not set up as an OpenID provider");
    const token = bearerOf(c);
    if (!token) return invalidToken("an access token is required (Authorization: Bearer)");
    const env = c.env;
    const validated = await (await oauthServer(env)).validateToken<GrantProps>(
      userinfoResource(env.AUTH_ORIGIN),
      token,
      libraryEnv(env),
    );
    if (!validated) return invalidToken("not an access token of this provider, or expired or revoked");
    const db = orm(env.DB);
    const props = validated.props;
    const [allowed, facts] = await Promise.all([
      stillAllowed(db, props.account_id, validated.clientId),
      accountFacts(db, props.account_id),
    ]);
    // Checked here in D1, not only by the library's revocation in KV (which reaches every location within a minute).
    if (!allowed) {
      return invalidToken("the app was revoked, or the account took its allowance back");
    }
    if (!validated.scope.includes("openid")) {
      return oauthError(403, "insufficient_scope", "the token does not hold openid", {
        "WWW-Authenticate": `Bearer error="insufficient_scope", scope="openid"`,
        ...USERINFO_CORS,
      });
    }
    if (!facts) return invalidToken("the account is no longer there");
    return new Response(JSON.stringify(userClaims(facts, validated.scope)), {
      status: 200,
      headers: { "content-type": "application/json", "cache-control": "no-store", ...USERINFO_CORS },
    });
  });
}

oidcTokenRoutes.openAPIRegistry.registerPath(
  createRoute({
    method: "options",
    path: USERINFO_PATH,
    summary: "CORS preflight of userinfo: any origin may send Authorization, never with credentials",
    responses: { 204: { description: "Allowed" } },
  }),
);
oidcTokenRoutes.options(
  USERINFO_PATH,
  () =>
    new Response(null, {
      status: 204,
      headers: { ...USERINFO_CORS, "Access-Control-Allow-Methods": "GET, POST", "Access-Control-Max-Age": "86400" },
    }),
);
