// The OpenID provider's token endpoint and userinfo (issue 33). The token endpoint is the library's (code exchange,
// refresh with rotation, RFC 7009 revocation, client authentication); this host adds the ID token to the answer of
// a code exchange or a refresh whose grant holds `openid`, built from the grant's props and the account as it is
// now, and holds in D1 a code's single exchange and each refresh token's single rotation (a reused refresh token
// revokes its grant, issue 44). Userinfo answers an access token of this provider's, for a client that is not
// revoked, with the claims its scopes release.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { orm } from "../../../../shared/db/client";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { type GrantProps, userClaims } from "../oidc/claims";
import { atHash, signIdToken } from "../oidc/id-token";
import { configuredKey } from "../oidc/keys";
import { claimRefreshRotation, grantOfToken, refreshTokenHash, retiredRefresh } from "../oidc/refresh-reuse";
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

/** A token request's form (read from a copy; the library reads the original), or an empty one when not a form. */
async function tokenForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return new URLSearchParams();
  return new URLSearchParams(await request.clone().text());
}

/** The `error` of an OAuth error answer (read from a copy), or undefined when it has none. */
async function errorCodeOf(res: Response): Promise<string | undefined> {
  try {
    return ((await res.clone().json()) as { error?: string }).error;
  } catch {
    return undefined;
  }
}

const reusedRefresh = () =>
  oauthError(400, "invalid_grant", "this refresh token was already used: its grant is revoked");

/**
 * A refresh the library refused: when the token is one this grant already rotated away from, that is a reuse, and
 * the grant is revoked (the library only refuses the token). Anything else is the library's answer as it stands.
 */
async function refusedRefresh(env: AuthEnv["Bindings"], res: Response, tokenHash: string | null) {
  if (tokenHash === null || res.status !== 400) return res;
  const retired =
    (await errorCodeOf(res)) === "invalid_grant" ? await retiredRefresh(orm(env.DB), tokenHash) : undefined;
  if (!retired) return res;
  await (await oauthApi(env)).revokeGrant(retired.grantId, retired.accountId);
  return reusedRefresh();
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
        description:
          "invalid_request, invalid_grant (a used code, or a refresh token used before, also revokes its grant), …",
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
  const form = await tokenForm(c.req.raw);
  const grantType = form.get("grant_type");
  const presented = grantType === "refresh_token" ? form.get("refresh_token") : null;
  const tokenHash = presented ? await refreshTokenHash(presented) : null;
  const env = c.env;
  // The library is typed against a newer ExecutionContext (with `tracing`); the runtime's is the same object.
  const res = await (await oauthServer(env)).fetch(c.req.raw, libraryEnv(env), c.executionCtx as never);
  if (res.status !== 200 && grantType === "refresh_token") return refusedRefresh(env, res, tokenHash);
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
  // A refresh token's single rotation, held in D1: the library lets the previous token rotate again until its
  // successor is used; a second rotation is a reuse and ends the grant, with what this answer just issued.
  const rotated = presented && tokenHash ? grantOfToken(presented) : undefined;
  if (rotated && tokenHash && !(await claimRefreshRotation(db, { tokenHash, ...rotated }, Date.now()))) {
    await api.revokeGrant(rotated.grantId, rotated.accountId);
    return reusedRefresh();
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
