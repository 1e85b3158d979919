// The OpenID provider as an app meets it (issue 33): a stock relying party (oauth4webapi) whose requests go to the
// auth worker (SELF), an account's browser that registers apps, answers the consent page with the page's own form
// and the binding cookie it set, and follows the redirects back to the app.
import { SELF } from "cloudflare:test";
import * as oauth from "oauth4webapi";
import { expect } from "vitest";
import { AUTH_ORIGIN, type Browser } from "./browser";

export const ISSUER = new URL(AUTH_ORIGIN);
/** oauth4webapi's options: its requests to this worker, over http (the local issuer). */
export const rp = {
  [oauth.customFetch]: (url: string, options: oauth.CustomFetchOptions<string, URLSearchParams | undefined>) =>
    SELF.fetch(url, options as RequestInit),
  [oauth.allowInsecureRequests]: true,
};

export const REDIRECT = "https://app.example/callback";

export interface RegisteredClient {
  client_id: string;
  client_secret: string | null;
}

export async function registerClient(
  browser: Browser,
  body: { name?: string; redirect_uris?: string[]; type?: "public" | "confidential"; logo_uri?: string } = {},
): Promise<RegisteredClient> {
  const res = await browser.post("/api/oidc/clients", {
    name: "Test app",
    redirect_uris: [REDIRECT],
    type: "confidential",
    ...body,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const made = (await res.json()) as { client: { client_id: string }; client_secret: string | null };
  return { client_id: made.client.client_id, client_secret: made.client_secret };
}

export async function discovered(): Promise<oauth.AuthorizationServer> {
  return oauth.processDiscoveryResponse(ISSUER, await oauth.discoveryRequest(ISSUER, rp));
}

/** The cookies a response set, as `name=value` (the consent binding cookie among them). */
const setCookies = (res: Response) =>
  (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie().map((c) => c.split(";")[0] as string);

/** The browser arrives at the authorization endpoint from the app's page (a cross-site navigation). */
export async function authorize(browser: Browser, params: Record<string, string>) {
  const res = await browser.fetch(`/oauth/authorize?${new URLSearchParams(params)}`, {
    headers: { "sec-fetch-site": "cross-site" },
  });
  return { res, cookies: setCookies(res) };
}

/** The consent page's form fields. */
export function consentForm(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) {
    fields[m[1] as string] = (m[2] as string).replaceAll("&amp;", "&").replaceAll("&quot;", '"');
  }
  return fields;
}

/** Answers the consent page as its form does: the fields, the decision, the binding cookie beside the session. */
export async function answerConsent(
  browser: Browser,
  page: { res: Response; cookies: string[] },
  decision: "allow" | "deny" = "allow",
): Promise<Response> {
  const fields = consentForm(await page.res.text());
  const cookie = [browser.cookie ? `oc_session=${browser.cookie}` : "", ...page.cookies].filter(Boolean).join("; ");
  return browser.fetch("/oauth/consent", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ ...fields, decision }).toString(),
  });
}

export interface Flow {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  auth: oauth.ClientAuth;
  verifier: string;
  nonce: string;
  state: string;
  params: Record<string, string>;
}

/** An authorization request as oauth4webapi's app builds it (PKCE S256, a nonce, a state). */
export async function startFlow(
  registered: RegisteredClient,
  scope = "openid profile email bitcoin",
  extra: Record<string, string> = {},
): Promise<Flow> {
  const as = await discovered();
  const verifier = oauth.generateRandomCodeVerifier();
  const nonce = oauth.generateRandomNonce();
  const state = oauth.generateRandomState();
  const params = {
    client_id: registered.client_id,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope,
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...extra,
  };
  const auth = registered.client_secret === null ? oauth.None() : oauth.ClientSecretBasic(registered.client_secret);
  return { as, client: { client_id: registered.client_id }, auth, verifier, nonce, state, params };
}

/** Where a 302 sends the browser. */
export const locationOf = (res: Response) => new URL(res.headers.get("location") ?? "", AUTH_ORIGIN);

/** The whole browser part: authorize, consent when asked, and the redirect back to the app with its code. */
export async function codeFor(browser: Browser, flow: Flow): Promise<URL> {
  const page = await authorize(browser, flow.params);
  const res = page.res.status === 200 ? await answerConsent(browser, page) : page.res;
  expect(res.status, await res.clone().text()).toBe(302);
  const back = locationOf(res);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  return back;
}

/** The app's side of the code: validated, exchanged with its verifier, the ID token checked (nonce included). */
export async function exchange(flow: Flow, back: URL) {
  const callback = oauth.validateAuthResponse(flow.as, flow.client, back, flow.state);
  const response = await oauth.authorizationCodeGrantRequest(
    flow.as,
    flow.client,
    flow.auth,
    callback,
    REDIRECT,
    flow.verifier,
    rp,
  );
  return oauth.processAuthorizationCodeResponse(flow.as, flow.client, response, {
    expectedNonce: flow.nonce,
    requireIdToken: true,
  });
}

/** The raw token request for a code (for the refusals a stock library would not send). */
export function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}) {
  return SELF.fetch(`${AUTH_ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

export const basic = (id: string, secret: string) =>
  `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

export function userinfo(token: string) {
  return SELF.fetch(`${AUTH_ORIGIN}/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
}

/** The client authentication of a token request, as the registered app sends it (Basic, or its id for a public one). */
export function clientAuth(app: RegisteredClient): { headers: Record<string, string>; form: Record<string, string> } {
  return app.client_secret === null
    ? { headers: {}, form: { client_id: app.client_id } }
    : { headers: { authorization: basic(app.client_id, app.client_secret) }, form: {} };
}

/** A raw refresh request by the app (so a retired or replayed refresh token can be sent as is). */
export async function refreshWith(app: RegisteredClient, refreshToken: string) {
  const auth = clientAuth(app);
  const res = await tokenRequest(
    { grant_type: "refresh_token", refresh_token: refreshToken, ...auth.form },
    auth.headers,
  );
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}
