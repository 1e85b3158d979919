// The provider's redirect back (DECISIONS 11): the state consumed once, the code redeemed with the verifier, the
// identity verified, ending in the same completeSignIn as every other path. When the provider itself ends the flow
// (`error=`: the person cancelled, or the provider refused), the browser goes back to the sign-in page, which
// shows the reason's sentence: a person who changed their mind is not answered with a 502.
import { createRoute, z } from "@hono/zod-openapi";
import { redirectUri } from "../../../../shared/auth/oauth/authorize-url";
import { redeemCode } from "../../../../shared/auth/oauth/flow";
import { browserStartedFlow, clearedStateCookie } from "../../../../shared/auth/oauth/state-cookie";
import { consumeOAuthState, type OAuthStateRow } from "../../../../shared/auth/oauth/state-store";
import { findOrCreateAccount } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { AppError, type Reason } from "../../../../shared/errors";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { routeGroup } from "../../../../shared/validate";
import { completeSignIn } from "../complete-sign-in";
import type { AuthEnv } from "../env";
import { backTo, finishForAccount } from "../provider-intent";
import { fromProvider, ProviderParam, requireProvider } from "../provider-route";
import { errorResponses } from "../schemas";

// Not strict: providers add their own parameters (Google's `authuser`, `prompt`, `hd`; Keycloak's `session_state`).
export const CallbackQuery = z.object({
  code: z.string().min(1).max(2048).optional(),
  state: z.string().min(1).max(512).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
  iss: z.string().max(2048).optional(),
});

/** A provider's `error` (RFC 6749 §4.1.2.1) as our reason: a refusal of access is the person's (or their admin's). */
export function providerRefusal(error: string): Reason {
  return error === "access_denied" ? "oauth_access_denied" : "oauth_provider_error";
}

/**
 * The sign-in page with the refusal's reason, keeping the flow's `add` and `return_to` (both checked at the start)
 * when this browser started it; a return_to that is the sign-in page itself is dropped, not repeated.
 */
export function backToSignin(reason: Reason, flow: Pick<OAuthStateRow, "add" | "returnTo"> | undefined): string {
  const query = new URLSearchParams({ error: reason });
  if (flow?.add) query.set("add", "1");
  if (flow && !/^\/signin(?:[?#]|$)/.test(flow.returnTo)) query.set("return_to", flow.returnTo);
  return `/signin?${query}`;
}

export const oauthCallbackRoutes = routeGroup<AuthEnv>();

oauthCallbackRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/{provider}/callback",
    summary: "The provider's redirect back: verify, sign in, and return to the page that started it",
    description:
      "Consumes the state once (it must have been started in this browser), checks `iss` against the provider's " +
      "issuer (required when its metadata announces RFC 9207), redeems the code with the PKCE verifier, verifies " +
      "the identity (OpenID Connect: the id_token's signature, issuer, audience and nonce), " +
      "signs the account in and redirects to the stored return_to. When the provider answers with `error` (the " +
      "person cancelled: `access_denied`), the state is burnt and the browser goes back to " +
      "`/signin?error=<reason>` (oauth_access_denied or oauth_provider_error).",
    middleware: [rateLimit({ bucket: "oauth-callback", rule: AUTH_RULE, failClosed: true })],
    request: { params: ProviderParam, query: CallbackQuery },
    responses: {
      302: {
        description:
          "Signed in (the oc_session cookie is set): to the stored return_to; or refused: to /signin. A link or " +
          "re-authentication flow (intent=link|reauth) returns to its return_to with done=<intent> or error=<reason>",
      },
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
    c.header("Cache-Control", "no-store");
    if (query.error !== undefined) {
      // The provider ended the flow: burn the state with it, and keep its add and return_to only for the browser
      // that started it.
      const flow = query.state ? await consumeOAuthState(db, { state: query.state, provider: provider.id, now }) : null;
      const mine = flow && browserStartedFlow(c.req.header("cookie"), flow.state) ? flow : undefined;
      c.header("Set-Cookie", clearedStateCookie(provider.id));
      return c.redirect(backToSignin(providerRefusal(query.error), mine), 302);
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
    if (flow.intent === "link" || flow.intent === "reauth") {
      const refused = await finishForAccount(c, flow, profile, now);
      c.header("Set-Cookie", clearedStateCookie(provider.id), { append: true });
      c.header("Referrer-Policy", "no-referrer");
      const intent = flow.intent;
      return c.redirect(backTo(flow.returnTo, refused ? { error: refused } : { done: intent }), 302);
    }
    // Matched by provider subject only, never by an email the provider reports (OA-06).
    const account = await findOrCreateAccount(
      db,
      profile.identity,
      { displayName: profile.displayName, displayIdentityKind: "did" },
      now,
    );
    await completeSignIn(c, account, flow.add, now, "provider");
    c.header("Set-Cookie", clearedStateCookie(provider.id), { append: true });
    c.header("Referrer-Policy", "no-referrer"); // the code is in this URL
    return c.redirect(flow.returnTo, 302);
  },
);
