// The OpenID provider's authorization endpoint and consent (issue 33). The library checks the OAuth request (the
// client, its exact redirect URI, the response type, PKCE's form); this host adds OpenID Connect's rules: `openid`
// and PKCE S256 required of every client, a nonce never used twice by a client and kept server-side until the code,
// `prompt` and `max_age` (a fresh sign-in through /signin, which refreshes `sudo_at`, vouched for by a MACed resume
// marker), and consent, remembered per account and app. Refusals are pages or OAuth redirects, never 500s.
import type { AuthRequest } from "@cloudflare/workers-oauth-provider";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { CurrentSession } from "../../../../shared/auth/current-session";
import { orm } from "../../../../shared/db/client";
import { routeGroup } from "../../../../shared/validate";
import { tellAppAllowed } from "../account-notices";
import type { AuthEnv } from "../env";
import { errorRedirect, needsSignIn, nonceOf, readPrompt, withNonce } from "../oidc/authorize";
import { amrOf, type GrantProps, grantedScopes, type OidcScope } from "../oidc/claims";
import { consentPolicy, isPlainHttpsUrl } from "../oidc/consent-policy";
import { configuredKey } from "../oidc/keys";
import { arrivedRequest, resumeKey, resumePath } from "../oidc/resume";
import { AUTHORIZE_PATH, CONSENT_PATH, oauthApi, oauthLibrary } from "../oidc/server";
import { consentCovers, liveClient, nonceUsed, rememberConsent, useNonce } from "../oidc/store";
import { consentPage, refusedPage } from "../pages/oidc-page";
import { currentSession } from "../session-context";

export const oidcAuthorizeRoutes = routeGroup<AuthEnv>();

const html = { "text/html": { schema: z.string() } };

const authorizeRoute = createRoute({
  method: "get",
  path: AUTHORIZE_PATH,
  summary: "OpenID Connect authorization (code flow, PKCE S256): the consent page, or back to the app",
  request: {
    query: z.object({
      response_type: z.literal("code"),
      client_id: z.string(),
      redirect_uri: z.string().openapi({ description: "Exactly one of the client's registered redirect URIs" }),
      scope: z.string().openapi({ description: "openid, and any of profile, email, bitcoin, offline_access" }),
      state: z.string().optional(),
      nonce: z.string().optional().openapi({ description: "Echoed in the ID token; a client's nonce works once" }),
      code_challenge: z.string(),
      code_challenge_method: z.literal("S256"),
      prompt: z.string().optional().openapi({ description: "none, login or consent" }),
      max_age: z.string().optional().openapi({ description: "Seconds; an older sign-in is asked again" }),
    }),
  },
  responses: {
    200: { description: "The consent page", content: html },
    302: { description: "To the app's redirect URI (a code or an error), or to /signin first" },
    400: {
      description: "A request that cannot be sent back to the app (unknown client or redirect URI)",
      content: html,
    },
    503: { description: "oidc_not_configured", content: html },
  },
});

/** The page for a request that cannot go back to the app. */
const refused = (c: Context<AuthEnv>, description: string, status: 400 | 401 | 503 = 400) => {
  c.header("Cache-Control", "no-store");
  return c.html(refusedPage(description), status);
};

/** `res` with the library's headers added (its consent binding cookie, its framing rules). */
function withHeaders(res: Response, headers: Headers | undefined): Response {
  for (const [name, value] of headers ?? []) res.headers.append(name, value);
  return res;
}

/** When the session last proved an identity (what its `sudo_at` says), epoch seconds: the ID token's auth_time. */
const authTimeOf = (session: CurrentSession) => Math.floor(session.session.authenticatedAt / 1000);

/** Issues the code: the nonce recorded (once per client), the grant stored with what the ID token will say. */
async function complete(
  c: Context<AuthEnv>,
  request: AuthRequest,
  session: CurrentSession,
  scopes: OidcScope[],
  nonce: string | null,
  headers?: Headers,
) {
  const db = orm(c.env.DB);
  const now = Date.now();
  if (nonce !== null && !(await useNonce(db, request.clientId, nonce, now))) {
    return c.redirect(errorRedirect(request, "invalid_request", "this nonce was already used"), 302);
  }
  const props: GrantProps = {
    account_id: session.session.accountId,
    client_id: request.clientId,
    nonce,
    auth_time: authTimeOf(session),
    amr: amrOf(session.session.authMethod),
  };
  const { redirectTo } = await (await oauthApi(c.env)).completeAuthorization({
    request: { ...request, scope: scopes },
    userId: session.session.accountId,
    metadata: {},
    scope: scopes,
    props,
  });
  return withHeaders(c.redirect(redirectTo, 302), headers);
}

// Described, not validated by zod: every refusal must be the page or the redirect OAuth prescribes, not JSON.
oidcAuthorizeRoutes.openAPIRegistry.registerPath(authorizeRoute);
oidcAuthorizeRoutes.get(AUTHORIZE_PATH, async (c) => {
  c.header("Cache-Control", "no-store");
  if (!(await configuredKey(c.env)) || !c.env.ID_TOKEN_SIGNING_KEY) {
    return refused(c, "This host is not set up as an OpenID provider.", 503);
  }
  const url = new URL(c.req.url);
  const now = Date.now();
  const key = await resumeKey(c.env.ID_TOKEN_SIGNING_KEY);
  const arrived = await arrivedRequest(url, key, now);
  if (!arrived) return refused(c, "The sign-in request was damaged on its way back from the sign-in page.");
  const { query, after } = arrived;
  const api = await oauthApi(c.env);
  const { AuthorizationError } = await oauthLibrary();
  let request: AuthRequest;
  try {
    request = await api.parseAuthRequest(new Request(`${url.origin}${AUTHORIZE_PATH}?${query}`, c.req.raw));
  } catch (err) {
    if (!(err instanceof AuthorizationError)) throw err;
    // Only a request whose client and exact redirect URI were validated is sent back to the app.
    if (err.redirectTo) return c.redirect(err.redirectTo, 302);
    return refused(c, err.description);
  }
  const back = (code: string, description: string) => c.redirect(errorRedirect(request, code, description), 302);
  if (!request.scope.includes("openid")) return back("invalid_scope", "openid is required: this is an OpenID provider");
  if (!request.codeChallenge || request.codeChallengeMethod !== "S256") {
    return back("invalid_request", "PKCE with code_challenge_method=S256 is required");
  }
  const db = orm(c.env.DB);
  const owner = await liveClient(db, request.clientId);
  if (!owner) return refused(c, "This app is not registered here, or its registration was revoked.");
  const nonce = query.get("nonce");
  if (nonce !== null && (nonce.length === 0 || nonce.length > 255))
    return back("invalid_request", "nonce must be 1 to 255 characters");
  if (nonce !== null && (await nonceUsed(db, request.clientId, nonce, now))) {
    return back("invalid_request", "this nonce was already used");
  }
  const asked = readPrompt(query);
  if ("error" in asked) return back("invalid_request", asked.error);
  const { prompt, maxAge } = asked;
  const session = await currentSession(c, now);
  if (!session || needsSignIn({ authTime: authTimeOf(session), prompt, maxAge, now, after })) {
    if (prompt.none) return back("login_required", "a sign-in is needed and prompt=none forbids asking");
    const signin = new URLSearchParams({ return_to: await resumePath(query, now, key) });
    if (session) signin.set("add", "1");
    return c.redirect(`/signin?${signin}`, 302);
  }
  const scopes = grantedScopes(request.scope);
  if (!prompt.consent && (await consentCovers(db, session.session.accountId, request.clientId, scopes))) {
    return complete(c, request, session, scopes, nonce);
  }
  if (prompt.none) return back("consent_required", "this app has not been allowed yet and prompt=none forbids asking");
  const [transaction, described] = await Promise.all([
    api.beginConsent(withNonce(request, nonce)),
    api.describeConsent(request),
  ]);
  const switchTo = new URLSearchParams({ return_to: await resumePath(query, now, key), add: "1" });
  const page = consentPage({
    appName: owner.name,
    logoUri: owner.logoUri !== null && isPlainHttpsUrl(owner.logoUri) ? owner.logoUri : null,
    redirectHost: described.redirectHost,
    redirectIsLoopback: described.redirectIsLoopback,
    scopes,
    account: session.claims.display_identity?.value ?? session.claims.did_oc,
    accountDid: session.claims.did_oc,
    handle: transaction.handle,
    switchUrl: `/signin?${switchTo}`,
  });
  const res = withHeaders(await c.html(page, 200), transaction.headers);
  res.headers.set("Content-Security-Policy", consentPolicy(request.redirectUri, owner.logoUri));
  return res;
});

// No nonce: the request's travels with the consent transaction (a `nonce` field an old page still posts is ignored).
const ConsentForm = z.object({
  handle: z.string().min(1).max(512),
  decision: z.enum(["allow", "deny"]),
  account: z.string().min(1).max(128),
});

const FORM_TYPE = "application/x-www-form-urlencoded";

/**
 * The consent form as the page sends it (urlencoded, each field once), or undefined for any other body: JSON, another
 * content type, multipart (a file among its fields), nothing, a field twice. Never throws: a body is the sender's.
 */
async function readConsentForm(c: Context<AuthEnv>): Promise<z.infer<typeof ConsentForm> | undefined> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== FORM_TYPE) return undefined;
  let fields: URLSearchParams;
  try {
    fields = new URLSearchParams(await c.req.text());
  } catch {
    return undefined;
  }
  const names = [...fields.keys()];
  if (new Set(names).size !== names.length) return undefined;
  const parsed = ConsentForm.safeParse(Object.fromEntries(fields));
  return parsed.success ? parsed.data : undefined;
}

oidcAuthorizeRoutes.openAPIRegistry.registerPath(
  createRoute({
    method: "post",
    path: CONSENT_PATH,
    summary: "The consent page's answer: allow (a code for the app) or deny (access_denied to the app)",
    request: { body: { content: { [FORM_TYPE]: { schema: ConsentForm } } } },
    responses: {
      302: { description: "Back to the app: a code or access_denied" },
      400: {
        description: "A form that is expired, used, or not this browser's, or a body that is not the page's form",
        content: html,
      },
      401: { description: "No account is signed in, or another than the page showed", content: html },
    },
  }),
);
oidcAuthorizeRoutes.post(CONSENT_PATH, async (c) => {
  c.header("Cache-Control", "no-store");
  // A form from another site is refused before anything is read (the library's cookie binding also refuses it).
  if (c.req.header("sec-fetch-site") === "cross-site") return refused(c, "This form can only be sent from this site.");
  const form = await readConsentForm(c);
  if (!form) return refused(c, "The consent form was incomplete or not the page's.");
  const api = await oauthApi(c.env);
  const { AuthorizationError } = await oauthLibrary();
  try {
    if (form.decision === "deny") {
      const denied = await api.denyConsent(c.req.raw, form.handle);
      denied.headers.delete("location");
      return withHeaders(c.redirect(denied.redirectTo, 302), denied.headers);
    }
    const session = await currentSession(c, Date.now());
    if (!session || session.claims.did_oc !== form.account) {
      return refused(c, "The account signed in is not the one this page asked for. Start again from the app.", 401);
    }
    const approved = await api.approveConsent(c.req.raw, form.handle);
    const kept = nonceOf(approved.request);
    if (!kept) return refused(c, "This consent page is from an older version of this host. Start again from the app.");
    const scopes = grantedScopes(kept.request.scope);
    await rememberConsent(orm(c.env.DB), session.session.accountId, kept.request.clientId, scopes, Date.now());
    await tellAppAllowed(c, session.session.accountId, kept.request.clientId, scopes, Date.now());
    return complete(c, kept.request, session, scopes, kept.nonce, approved.headers);
  } catch (err) {
    if (err instanceof AuthorizationError) return refused(c, `${err.description} Start again from the app.`);
    throw err;
  }
});
