// Provider sign-in (DECISIONS 11): the configured providers, the start redirect (state + PKCE + nonce stored for
// 10 minutes and bound to the browser) and the callback (state consumed once, code redeemed with the verifier,
// identity verified), which ends in the same completeSignIn as every other path.
import { createRoute, z } from "@hono/zod-openapi";
import { authorizationUrl, redirectUri } from "../../../../shared/auth/oauth/authorize-url";
import { errorCode, OAuthError } from "../../../../shared/auth/oauth/errors";
import { authorizationEndpoint, redeemCode } from "../../../../shared/auth/oauth/flow";
import { createNonce, createPkce, createState } from "../../../../shared/auth/oauth/pkce";
import { configuredProviders, findProvider, type Provider } from "../../../../shared/auth/oauth/providers";
import { returnToPolicy, safeReturnTo } from "../../../../shared/auth/oauth/return-to";
import { browserStartedFlow, clearedStateCookie, stateCookie } from "../../../../shared/auth/oauth/state-cookie";
import { consumeOAuthState, OAUTH_STATE_TTL_MS, storeOAuthState } from "../../../../shared/auth/oauth/state-store";
import { findOrCreateAccount } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { AppError } from "../../../../shared/errors";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { routeGroup } from "../../../../shared/validate";
import { completeSignIn } from "../complete-sign-in";
import type { AuthBindings, AuthEnv } from "../env";
import { errorResponses, json } from "../schemas";

/** Browsers and CDNs may reuse the provider list this long (it changes only with a deploy). */
export const PROVIDERS_MAX_AGE_SECONDS = 60;

export const ProvidersResult = z
  .object({
    ok: z.literal(true),
    providers: z.array(z.object({ id: z.string(), label: z.string() })),
  })
  .openapi("ProvidersResult");

const ProviderParam = z.object({
  provider: z
    .string()
    .max(64)
    .openapi({ param: { name: "provider", in: "path" }, example: "github" }),
});

export const StartQuery = z.object({
  return_to: z
    .string()
    .max(4096)
    .optional()
    .openapi({ description: "A path on this host, or an absolute URL in the cookie's domain family; default `/`" }),
  add: z.enum(["1", "0", "true", "false"]).optional(),
});

// Not strict: providers add their own parameters (Google's `authuser`, `prompt`, `hd`; Keycloak's `session_state`).
export const CallbackQuery = z.object({
  code: z.string().min(1).max(2048).optional(),
  state: z.string().min(1).max(512).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
  iss: z.string().max(2048).optional(),
});

export const oauthRoutes = routeGroup<AuthEnv>();

function requireProvider(env: AuthBindings, id: string): Provider {
  const provider = findProvider(env, id);
  if (!provider) throw new AppError("provider_not_configured", { detail: `no sign-in provider "${id}" here` });
  return provider;
}

/** Runs a provider call, answering its failure with the failure's reason. */
async function fromProvider<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof OAuthError) throw new AppError(err.reason, { detail: err.message });
    throw err;
  }
}

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
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const provider = requireProvider(c.env, c.req.valid("param").provider);
    const query = c.req.valid("query");
    const returnTo = safeReturnTo(query.return_to, returnToPolicy(c.env));
    if (returnTo === undefined) {
      throw new AppError("bad_return_to", { detail: "a path on this host or a URL in this site's family" });
    }
    const now = Date.now();
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

oauthRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/{provider}/callback",
    summary: "The provider's redirect back: verify, sign in, and return to the page that started it",
    description:
      "Consumes the state once (it must have been started in this browser), checks `iss` against the provider's " +
      "issuer (required when its metadata announces RFC 9207), redeems the code with the PKCE verifier, verifies " +
      "the identity (OpenID Connect: the id_token's signature, issuer, audience and nonce), " +
      "signs the account in and redirects to the stored return_to.",
    middleware: [rateLimit({ bucket: "oauth-callback", rule: AUTH_RULE, failClosed: true })],
    request: { params: ProviderParam, query: CallbackQuery },
    responses: {
      302: { description: "Signed in: the oc_session cookie is set; to the stored return_to" },
      ...errorResponses(
        "provider_not_configured",
        "oauth_state_invalid",
        "oauth_provider_error",
        "oauth_response_invalid",
        "invalid_query",
        "roster_full",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const provider = requireProvider(c.env, c.req.valid("param").provider);
    const query = c.req.valid("query");
    const now = Date.now();
    const db = orm(c.env.DB);
    if (query.error !== undefined) {
      // The provider ended the flow (the user declined, or it refused the request): burn the state with it.
      if (query.state) await consumeOAuthState(db, { state: query.state, provider: provider.id, now });
      throw new AppError("oauth_provider_error", { detail: `the provider answered ${errorCode(query.error)}` });
    }
    if (!query.state) throw new AppError("oauth_state_invalid", { detail: "the callback carries no state" });
    if (!query.code) throw new AppError("invalid_query", { detail: "code: required" });
    if (!browserStartedFlow(c.req.header("cookie"), query.state)) {
      throw new AppError("oauth_state_invalid", { detail: "this sign-in was not started in this browser" });
    }
    const flow = await consumeOAuthState(db, { state: query.state, provider: provider.id, now });
    if (!flow) throw new AppError("oauth_state_invalid", { detail: "unknown, expired or already used" });
    // The callback's own checks (RFC 9207 `iss` among them: the mix-up defence of RFC 9700 §4.4) run in redeemCode,
    // after the state is spent, so a refused callback cannot be retried.
    const profile = await fromProvider(
      redeemCode(provider, {
        params: new URL(c.req.url).searchParams,
        state: flow.state,
        verifier: flow.codeVerifier,
        redirectUri: redirectUri(c.env.AUTH_ORIGIN, provider.id),
        nonce: flow.nonce,
        now,
      }),
    );
    // Matched by provider subject only, never by an email the provider reports (OA-06).
    const account = await findOrCreateAccount(
      db,
      profile.identity,
      { displayName: profile.displayName, displayIdentityKind: "did" },
      now,
    );
    await completeSignIn(c, account, flow.add, now);
    c.header("Set-Cookie", clearedStateCookie(provider.id), { append: true });
    c.header("Cache-Control", "no-store");
    c.header("Referrer-Policy", "no-referrer"); // the code is in this URL
    return c.redirect(flow.returnTo, 302);
  },
);
