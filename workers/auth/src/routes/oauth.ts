// Provider sign-in (DECISIONS 11): the configured providers and the start redirect (state + PKCE + nonce stored for
// 10 minutes and bound to the browser); the callback is in oauth-callback.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { authorizationUrl, redirectUri } from "../../../../shared/auth/oauth/authorize-url";
import { authorizationEndpoint } from "../../../../shared/auth/oauth/flow";
import { createNonce, createPkce, createState } from "../../../../shared/auth/oauth/pkce";
import { configuredProviders } from "../../../../shared/auth/oauth/providers";
import { returnToPolicy, safeReturnTo } from "../../../../shared/auth/oauth/return-to";
import { stateCookie } from "../../../../shared/auth/oauth/state-cookie";
import { OAUTH_STATE_TTL_MS, storeOAuthState } from "../../../../shared/auth/oauth/state-store";
import { orm } from "../../../../shared/db/client";
import { AppError } from "../../../../shared/errors";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { requireFreshSession } from "../fresh-session";
import { ACCOUNT_PAGE, PROVIDER_INTENTS } from "../provider-intent";
import { fromProvider, ProviderParam, requireProvider } from "../provider-route";
import { errorResponses, json } from "../schemas";

/** Browsers and CDNs may reuse the provider list this long (it changes only with a deploy). */
export const PROVIDERS_MAX_AGE_SECONDS = 60;

export const ProvidersResult = z
  .object({
    ok: z.literal(true),
    providers: z.array(z.object({ id: z.string(), label: z.string() })),
  })
  .openapi("ProvidersResult");

export const StartQuery = z.object({
  return_to: z
    .string()
    .max(4096)
    .optional()
    .openapi({ description: "A path on this host, or an absolute URL in the cookie's domain family; default `/`" }),
  add: z.enum(["1", "0", "true", "false"]).optional(),
  intent: z
    .enum(PROVIDER_INTENTS)
    .optional()
    .openapi({
      description:
        "signin (default); link: add the provider identity to the signed-in account (needs a fresh sudo_at); " +
        "reauth: prove the account's own provider identity again. Both return to `return_to` (default /account).",
    }),
});

export const oauthRoutes = routeGroup<AuthEnv>();

oauthRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/providers",
    summary: "The sign-in providers configured on this host",
    description: "Only providers whose client id and secret are set are listed; an empty list means no buttons.",
    responses: { 200: json(ProvidersResult, "The configured providers, in display order") },
  }),
  (c) => {
    c.header("Cache-Control", `public, max-age=${PROVIDERS_MAX_AGE_SECONDS}`);
    const providers = configuredProviders(c.env).map(({ id, label }) => ({ id, label }));
    return c.json({ ok: true as const, providers }, 200);
  },
);

oauthRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/{provider}/start",
    summary: "Start provider sign-in: redirect to the provider's consent screen",
    description:
      "Redirects with response_type=code, PKCE (S256), state and, for OpenID Connect, nonce. The callback sends the " +
      "browser to `return_to` (a path on this host, or an https URL in the cookie's domain family). `add=1` adds " +
      "the account to the browser's roster.",
    middleware: [rateLimit({ bucket: "oauth-start", rule: AUTH_RULE, failClosed: true })],
    request: { params: ProviderParam, query: StartQuery },
    responses: {
      302: { description: "To the provider's authorization endpoint; a short-lived state cookie is set" },
      ...errorResponses(
        "provider_not_configured",
        "bad_return_to",
        "invalid_query",
        "oauth_provider_error",
        "not_authenticated",
        "sudo_required",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const provider = requireProvider(c.env, c.req.valid("param").provider);
    const query = c.req.valid("query");
    const intent = query.intent ?? "signin";
    const asked = query.return_to ?? (intent === "signin" ? undefined : ACCOUNT_PAGE);
    const returnTo = safeReturnTo(asked, returnToPolicy(c.env));
    if (returnTo === undefined) {
      throw new AppError("bad_return_to", { detail: "a path on this host or a URL in this site's family" });
    }
    const now = Date.now();
    // A link or re-authentication is for the signed-in account, bound to its session row; a link needs fresh sudo.
    const forAccount =
      intent === "signin" ? undefined : await requireFreshSession(c, now, intent === "link" ? ["link"] : []);
    const endpoint = await fromProvider(authorizationEndpoint(provider, now));
    const state = createState();
    const pkce = await createPkce();
    const nonce = provider.kind === "oidc" ? createNonce() : null;
    await storeOAuthState(orm(c.env.DB), {
      state,
      provider: provider.id,
      codeVerifier: pkce.verifier,
      nonce,
      returnTo,
      add: query.add === "1" || query.add === "true",
      intent,
      sessionId: forAccount?.session.id ?? null,
      expiresAt: now + OAUTH_STATE_TTL_MS,
      createdAt: now,
    });
    const location = authorizationUrl({
      endpoint,
      clientId: provider.clientId,
      redirectUri: redirectUri(c.env.AUTH_ORIGIN, provider.id),
      scope: provider.scope,
      state,
      codeChallenge: pkce.challenge,
      ...(nonce !== null && { nonce }),
    });
    c.header("Set-Cookie", stateCookie(state, provider.id));
    c.header("Cache-Control", "no-store");
    return c.redirect(location, 302);
  },
);
