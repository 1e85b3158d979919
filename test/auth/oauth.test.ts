// Provider sign-in end to end against a real local OpenID Connect server (test/harness/oidc-server.mjs): GitHub,
// Google and the generic provider all point at it. The browser follows the provider's redirect itself (the local
// server consents at once), then brings the code back; each refusal breaks one thing (OA-01…OA-06).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createPkce, pkceChallenge } from "../../shared/auth/oauth/pkce";
import { type AccountBody, Browser } from "../helpers/browser";
import { newWallet } from "../helpers/wallet";

type ProviderId = "github" | "google" | "oidc";

const PROVIDERS: { id: ProviderId; clientId: () => string | undefined; kind: () => string; oidc: boolean }[] = [
  { id: "github", clientId: () => env.GITHUB_CLIENT_ID, kind: () => "github", oidc: false },
  { id: "google", clientId: () => env.GOOGLE_CLIENT_ID, kind: () => "google", oidc: true },
  { id: "oidc", clientId: () => env.OIDC_CLIENT_ID, kind: () => `oidc:${env.OIDC_ISSUER}`, oidc: true },
];

/** The auth host's origin as the worker sees it: the redirect URI and absolute return_to values are built on it. */
const AUTH_ORIGIN = env.AUTH_ORIGIN;

/** The local server's subject for every sign-in (its /userinfo and id_tokens say `johndoe`). */
const SUBJECT = "johndoe";

interface Started {
  res: Response;
  /** Where the provider is asked to send the browser. */
  authorize: URL;
  state: string;
  /** The oc_oauth_state cookie value the start set. */
  stateCookie: string;
}

async function start(browser: Browser, provider: string, query: Record<string, string> = {}): Promise<Started> {
  const res = await browser.fetch(`/api/auth/${provider}/start?${new URLSearchParams(query)}`);
  expect(res.status, await res.clone().text()).toBe(302);
  const authorize = new URL(res.headers.get("location") ?? "");
  const cookie = res.headers.getAll("set-cookie").find((c) => c.startsWith("oc_oauth_state=")) ?? "";
  return {
    res,
    authorize,
    state: authorize.searchParams.get("state") ?? "",
    stateCookie: /^oc_oauth_state=([^;]*)/.exec(cookie)?.[1] ?? "",
  };
}

/** The provider's consent screen: the local server redirects straight back with a code. */
async function consent(authorize: URL): Promise<URL> {
  const res = await fetch(authorize, { redirect: "manual" });
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location") ?? "");
}

/** The browser arriving back from the provider (a cross-site navigation), carrying its cookies. */
function callback(browser: Browser, url: URL, stateCookie?: string): Promise<Response> {
  const cookies = [browser.cookie && `oc_session=${browser.cookie}`, stateCookie && `oc_oauth_state=${stateCookie}`];
  const cookie = cookies.filter(Boolean).join("; ");
  return browser.fetch(`${url.pathname}${url.search}`, {
    headers: { "sec-fetch-site": "cross-site", ...(cookie && { cookie }) },
  });
}

async function signInWith(browser: Browser, provider: string, query: Record<string, string> = {}) {
  const started = await start(browser, provider, query);
  return callback(browser, await consent(started.authorize), started.stateCookie);
}

/** The BIP-322 sign-in, with the challenge naming this host's origin as the worker sees it. */
async function bitcoinSignIn(browser: Browser): Promise<Response> {
  const wallet = newWallet();
  const { message, nonce } = await browser.challenge(wallet.address, { audience: AUTH_ORIGIN, purpose: "login" });
  return browser.post("/api/auth/signin", { address: wallet.address, message, signature: wallet.sign(message), nonce });
}

async function reason(res: Response): Promise<string | undefined> {
  return ((await res.json()) as { reason?: string }).reason;
}

async function stateRow(state: string) {
  const row = await env.DB.prepare("SELECT * FROM oauth_states WHERE state = ?").bind(state).first<{
    provider: string;
    code_verifier: string;
    nonce: string | null;
    return_to: string;
    add: number;
    created_at: number;
    expires_at: number;
  }>();
  return row ?? undefined;
}

async function setStateColumn(state: string, column: "code_verifier" | "nonce" | "expires_at", value: unknown) {
  await env.DB.prepare(`UPDATE oauth_states SET ${column} = ? WHERE state = ?`).bind(value, state).run();
}

async function identityOf(didOc: string) {
  return env.DB.prepare(
    "SELECT i.kind, i.value FROM account_identities i JOIN accounts a ON a.id = i.account_id WHERE a.did_oc = ?",
  )
    .bind(didOc)
    .all<{ kind: string; value: string }>()
    .then((r) => r.results);
}

describe("GET /api/auth/providers", () => {
  it("lists the configured providers as {id, label}, briefly cacheable", async () => {
    const res = await new Browser().fetch("/api/auth/providers");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    expect(await res.json()).toEqual({
      ok: true,
      providers: [
        { id: "github", label: "GitHub" },
        { id: "google", label: "Google" },
        { id: "oidc", label: env.OIDC_LABEL },
      ],
    });
  });
});

describe.each(PROVIDERS)("sign-in with $id", (provider) => {
  it("start → provider → callback: 302 to return_to with oc_session set; /me shows the account", async () => {
    const browser = new Browser();
    const started = await start(browser, provider.id, { return_to: "/after?x=1" });

    // The authorization request: the provider's endpoint, every parameter, the exact redirect URI.
    expect(`${started.authorize.origin}${started.authorize.pathname}`).toBe(`${env.OIDC_ISSUER}/authorize`);
    const params = Object.fromEntries(started.authorize.searchParams);
    expect(params).toMatchObject({
      response_type: "code",
      client_id: provider.clientId(),
      redirect_uri: `${AUTH_ORIGIN}/api/auth/${provider.id}/callback`,
      code_challenge_method: "S256",
      scope: provider.oidc ? "openid profile" : "read:user",
    });
    expect(params.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect("nonce" in params).toBe(provider.oidc);
    expect(started.res.headers.get("cache-control")).toBe("no-store");

    // The flow is stored for 10 minutes, bound to this browser by a cookie on the callback path only.
    const row = await stateRow(started.state);
    expect(row).toMatchObject({ provider: provider.id, return_to: "/after?x=1", add: 0 });
    expect(row?.nonce ?? undefined).toBe(params.nonce);
    expect(await pkceChallenge(row?.code_verifier ?? "")).toBe(params.code_challenge);
    expect((row?.expires_at ?? 0) - (row?.created_at ?? 0)).toBe(600_000);
    expect(started.stateCookie).toBe(started.state);
    const setCookie = started.res.headers.getAll("set-cookie").join("\n");
    expect(setCookie).toContain(`Path=/api/auth/${provider.id}/callback`);
    expect(setCookie).toMatch(/HttpOnly; Secure; SameSite=Lax; Max-Age=600/);

    const back = await consent(started.authorize);
    expect(`${back.origin}${back.pathname}`).toBe(`${AUTH_ORIGIN}/api/auth/${provider.id}/callback`);
    expect(back.searchParams.get("state")).toBe(started.state);

    const res = await callback(browser, back, started.stateCookie);
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get("location")).toBe("/after?x=1");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(browser.cookie).toBeDefined();
    expect(res.headers.getAll("set-cookie").find((c) => c.startsWith("oc_oauth_state="))).toMatch(
      /Expires=Thu, 01 Jan 1970/,
    );
    expect(await stateRow(started.state)).toBeUndefined();

    const me = await browser.me();
    expect(me.status).toBe(200);
    expect(me.body.account.display_identity).toEqual({ kind: "did", value: me.body.account.did_oc });
    expect(me.body.account.primary_btc).toBeNull();
    expect(await identityOf(me.body.account.did_oc)).toEqual([{ kind: provider.kind(), value: SUBJECT }]);
  });

  it("a second sign-in with the same provider identity finds the same account", async () => {
    const first = new Browser();
    expect((await signInWith(first, provider.id)).status).toBe(302);
    const second = new Browser();
    const res = await signInWith(second, provider.id);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
    expect((await second.me()).body.account.did_oc).toBe((await first.me()).body.account.did_oc);
  });

  it("add=1 puts the provider account beside a Bitcoin account in one roster, and switching works", async () => {
    const browser = new Browser();
    const signedIn = await bitcoinSignIn(browser);
    expect(signedIn.status).toBe(200);
    const btc = ((await signedIn.json()) as { account: AccountBody }).account;

    const res = await signInWith(browser, provider.id, { add: "1", return_to: `${AUTH_ORIGIN}/roster` });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${AUTH_ORIGIN}/roster`);
    const me = await browser.me();
    const providerDid = me.body.account.did_oc;
    expect(providerDid).not.toBe(btc.did_oc);
    expect(me.body.roster.map((r) => r.did_oc)).toEqual([btc.did_oc]);

    const switched = await browser.post("/api/auth/switch", { did_oc: btc.did_oc });
    expect(switched.status).toBe(200);
    const after = await browser.me();
    expect(after.body.account.did_oc).toBe(btc.did_oc);
    expect(after.body.roster.map((r) => r.did_oc)).toEqual([providerDid]);
  });

  it("refuses a callback whose stored PKCE verifier is wrong or absent: the token endpoint says no (OA-02)", async () => {
    for (const verifier of [(await createPkce()).verifier, ""]) {
      const browser = new Browser();
      const started = await start(browser, provider.id);
      await setStateColumn(started.state, "code_verifier", verifier);
      const res = await callback(browser, await consent(started.authorize), started.stateCookie);
      expect(res.status).toBe(502);
      const body = (await res.json()) as { reason: string; detail: string };
      expect(body.reason).toBe("oauth_provider_error");
      expect(body.detail).toMatch(/token endpoint/);
      expect(res.headers.get("set-cookie") ?? "").not.toContain("oc_session=");
      expect((await browser.me()).status).toBe(401);
    }
  });
});

describe("the three providers", () => {
  it("keep their identities apart: the same subject at each is three accounts", async () => {
    const dids = new Set<string>();
    for (const { id } of PROVIDERS) {
      const browser = new Browser();
      expect((await signInWith(browser, id)).status).toBe(302);
      dids.add((await browser.me()).body.account.did_oc);
    }
    expect(dids.size).toBe(3);
  });
});

describe("callback refusals (OA-01)", () => {
  it("refuses a state that does not match the one this browser started", async () => {
    const browser = new Browser();
    const started = await start(browser, "oidc");
    const back = await consent(started.authorize);
    back.searchParams.set("state", (await start(new Browser(), "oidc")).state);
    const res = await callback(browser, back, started.stateCookie);
    expect(res.status).toBe(400);
    expect(await reason(res)).toBe("oauth_state_invalid");
  });

  it("refuses a state never issued, even with a matching cookie, and a callback without state", async () => {
    const browser = new Browser();
    const forged = new URL(`${AUTH_ORIGIN}/api/auth/github/callback?code=abc&state=never-issued`);
    const res = await callback(browser, forged, "never-issued");
    expect(res.status).toBe(400);
    expect(await reason(res)).toBe("oauth_state_invalid");
    const noState = await callback(browser, new URL(`${AUTH_ORIGIN}/api/auth/github/callback?code=abc`));
    expect(await reason(noState)).toBe("oauth_state_invalid");
    const noCode = await callback(browser, new URL(`${AUTH_ORIGIN}/api/auth/github/callback?state=x`), "x");
    expect(await reason(noCode)).toBe("invalid_query");
  });

  it("refuses a state carried to another browser, which leaves the real flow intact", async () => {
    const victim = new Browser();
    const attacker = new Browser();
    const started = await start(attacker, "github");
    const back = await consent(started.authorize);
    const lured = await callback(victim, back); // no state cookie: not started here
    expect(lured.status).toBe(400);
    expect(await reason(lured)).toBe("oauth_state_invalid");
    expect((await victim.me()).status).toBe(401);
    expect((await callback(attacker, back, started.stateCookie)).status).toBe(302);
  });

  it("refuses a replayed callback: the same code and state work once", async () => {
    const browser = new Browser();
    const started = await start(browser, "google");
    const back = await consent(started.authorize);
    expect((await callback(browser, back, started.stateCookie)).status).toBe(302);
    const cookie = browser.cookie;
    const replay = await callback(browser, back, started.stateCookie);
    expect(replay.status).toBe(400);
    expect(await reason(replay)).toBe("oauth_state_invalid");
    expect(replay.headers.get("set-cookie")).toBeNull();
    expect(browser.cookie).toBe(cookie);
  });

  it("refuses an expired state", async () => {
    const browser = new Browser();
    const started = await start(browser, "github");
    await setStateColumn(started.state, "expires_at", Date.now() - 1);
    const res = await callback(browser, await consent(started.authorize), started.stateCookie);
    expect(await reason(res)).toBe("oauth_state_invalid");
  });

  it("refuses a state started for another provider", async () => {
    const browser = new Browser();
    const started = await start(browser, "github");
    const back = await consent(started.authorize);
    const crossed = new URL(`${AUTH_ORIGIN}/api/auth/oidc/callback${back.search}`);
    const res = await callback(browser, crossed, started.stateCookie);
    expect(await reason(res)).toBe("oauth_state_invalid");
  });
});

describe("provider answers that fail our checks", () => {
  it("refuses an id_token that does not carry this flow's nonce", async () => {
    for (const id of ["google", "oidc"]) {
      const browser = new Browser();
      const started = await start(browser, id);
      await setStateColumn(started.state, "nonce", "another-flow-nonce");
      const res = await callback(browser, await consent(started.authorize), started.stateCookie);
      expect(res.status).toBe(401);
      const body = (await res.json()) as { reason: string; detail: string };
      expect(body).toMatchObject({ reason: "oauth_response_invalid", detail: expect.stringMatching(/nonce/) });
      expect((await browser.me()).status).toBe(401);
    }
  });

  it("refuses an iss naming another issuer (mix-up, OA-03) and accepts the right one", async () => {
    const browser = new Browser();
    const started = await start(browser, "oidc");
    const back = await consent(started.authorize);
    back.searchParams.set("iss", "https://evil.example");
    const mixed = await callback(browser, back, started.stateCookie);
    expect(mixed.status).toBe(401);
    expect(await reason(mixed)).toBe("oauth_response_invalid");

    const again = await start(browser, "oidc");
    const good = await consent(again.authorize);
    good.searchParams.set("iss", env.OIDC_ISSUER ?? "");
    expect((await callback(browser, good, again.stateCookie)).status).toBe(302);
  });

  it("sends a person who cancelled at the provider back to the sign-in page, with the flow's add and return_to", async () => {
    const browser = new Browser();
    const started = await start(browser, "github", { return_to: "/roster", add: "1" });
    const declined = new URL(`${AUTH_ORIGIN}/api/auth/github/callback`);
    declined.search = new URLSearchParams({ error: "access_denied", state: started.state }).toString();
    const res = await callback(browser, declined, started.stateCookie);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/signin?error=oauth_access_denied&add=1&return_to=%2Froster");
    expect(res.headers.get("set-cookie")).toMatch(/^oc_oauth_state=;/);
    // The state went with the refusal.
    const late = await callback(browser, await consent(started.authorize), started.stateCookie);
    expect(await reason(late)).toBe("oauth_state_invalid");
    expect((await browser.me()).status).toBe(401);
  });

  it("sends any other provider error back to the sign-in page as oauth_provider_error", async () => {
    const browser = new Browser();
    // Started from the page itself: no return_to back to it; started elsewhere in another browser: nothing kept.
    const fromPage = await start(browser, "oidc", { return_to: "/signin" });
    const failed = new URL(`${AUTH_ORIGIN}/api/auth/oidc/callback`);
    failed.search = new URLSearchParams({ error: "server_error", state: fromPage.state }).toString();
    const res = await callback(browser, failed, fromPage.stateCookie);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/signin?error=oauth_provider_error");
    const other = await start(new Browser(), "oidc", { return_to: "/roster", add: "1" });
    failed.search = new URLSearchParams({ error: "access_denied", state: other.state }).toString();
    expect((await callback(browser, failed)).headers.get("location")).toBe("/signin?error=oauth_access_denied");
    failed.search = new URLSearchParams({ error: "temporarily_unavailable" }).toString();
    expect((await callback(browser, failed)).headers.get("location")).toBe("/signin?error=oauth_provider_error");
    expect((await browser.me()).status).toBe(401);
  });
});

describe("start refusals", () => {
  const foreign = [
    "https://evil.example",
    "//evil.example",
    "https://localhost:8787.evil.com",
    "http://localhost:8787.evil.com/",
    "http://localhost:8787@evil.com/",
    "javascript:alert(document.cookie)",
    "/\\evil.example",
    "/\t/evil.example",
  ];
  it("refuses a foreign return_to (OA-04): nothing stored, no cookie, no redirect", async () => {
    const browser = new Browser();
    for (const returnTo of foreign) {
      const res = await browser.fetch(`/api/auth/oidc/start?${new URLSearchParams({ return_to: returnTo })}`);
      expect(res.status, returnTo).toBe(400);
      expect(await reason(res)).toBe("bad_return_to");
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM oauth_states WHERE return_to LIKE '%evil%'").first();
    expect(rows).toEqual({ n: 0 });
  });

  it("answers 404 provider_not_configured for a provider that is not configured here", async () => {
    const browser = new Browser();
    for (const path of ["/api/auth/gitlab/start", "/api/auth/gitlab/callback?code=a&state=b"]) {
      const res = await browser.fetch(path);
      expect(res.status).toBe(404);
      expect(await reason(res)).toBe("provider_not_configured");
    }
  });
});
