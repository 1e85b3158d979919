// The OpenID provider's rules as pure functions (issue 33): the claims each scope releases, amr per sign-in path,
// the ID token's claims, prompt and max_age, when a fresh sign-in is needed, and the request's round trip through
// the sign-in page.

import { base64url } from "jose";
import { describe, expect, it } from "vitest";
import { safeReturnTo } from "../../shared/auth/oauth/return-to";
import { errorRedirect, needsSignIn, nonceOf, readPrompt, withNonce } from "../../workers/auth/src/oidc/authorize";
import { amrOf, grantedScopes, idTokenClaims, userClaims } from "../../workers/auth/src/oidc/claims";
import { consentPolicy, isPlainHttpsUrl, sourceOrigin } from "../../workers/auth/src/oidc/consent-policy";
import { arrivedRequest, RESUME_TTL_MS, resumeKey, resumePath } from "../../workers/auth/src/oidc/resume";

const facts = { didOc: "did:oc:abc", displayName: "Satoshi", email: "s@example.com", primaryBtc: "bc1qexample" };

describe("claims", () => {
  it("each scope releases its own claims, and nothing the account has not proven", () => {
    expect(userClaims(facts, ["openid"])).toEqual({ sub: "did:oc:abc" });
    expect(userClaims(facts, ["openid", "profile", "email", "bitcoin"])).toEqual({
      sub: "did:oc:abc",
      name: "Satoshi",
      email: "s@example.com",
      email_verified: true,
      primary_btc: "bc1qexample",
    });
    expect(
      userClaims({ ...facts, email: null, primaryBtc: null, displayName: null }, [
        "openid",
        "profile",
        "email",
        "bitcoin",
      ]),
    ).toEqual({
      sub: "did:oc:abc",
    });
    expect(grantedScopes(["email", "admin", "openid", "openid"])).toEqual(["openid", "email"]);
  });

  it("amr names the sign-in path", () => {
    expect(amrOf("bip322")).toEqual(["bip322", "swk"]);
    expect(amrOf("email")).toEqual(["email", "otp"]);
    expect(amrOf("provider")).toEqual(["fed"]);
    expect(amrOf("passkey")).toEqual(["hwk", "user"]);
    expect(amrOf("recovery")).toEqual(["recovery", "otp"]);
    expect(amrOf(null)).toEqual(["unknown"]);
  });

  it("the ID token: issuer, audience, an hour's life, auth_time and amr, the nonce only on the code exchange", () => {
    const props = { account_id: "a", client_id: "c", nonce: "n-1", auth_time: 1_700_000_000, amr: ["bip322", "swk"] };
    const input = {
      issuer: "https://auth.example",
      clientId: "c",
      facts,
      scopes: ["openid"],
      props,
      atHash: "h",
      now: 1_700_000_100_000,
      ttlSeconds: 3600,
    };
    expect(idTokenClaims({ ...input, withNonce: true })).toEqual({
      iss: "https://auth.example",
      aud: "c",
      azp: "c",
      iat: 1_700_000_100,
      exp: 1_700_003_700,
      auth_time: 1_700_000_000,
      amr: ["bip322", "swk"],
      at_hash: "h",
      nonce: "n-1",
      sub: "did:oc:abc",
    });
    expect(idTokenClaims({ ...input, withNonce: false })).not.toHaveProperty("nonce");
  });
});

describe("prompt, max_age and fresh sign-in", () => {
  const q = (s: string) => new URLSearchParams(s);
  it("reads prompt and max_age, refusing what it cannot honour", () => {
    expect(readPrompt(q("prompt=login%20consent&max_age=30"))).toEqual({
      prompt: { none: false, login: true, consent: true },
      maxAge: 30,
    });
    expect(readPrompt(q("prompt=none%20login"))).toHaveProperty("error");
    expect(readPrompt(q("prompt=create"))).toHaveProperty("error");
    expect(readPrompt(q("max_age=-1"))).toHaveProperty("error");
    expect(readPrompt(q("max_age=1.5"))).toHaveProperty("error");
  });

  it("needs a sign-in without a session, for prompt=login or an old proof, unless one happened since the request", () => {
    const now = 2_000_000_000_000;
    const none = { none: false, login: false, consent: false };
    const login = { ...none, login: true };
    const base = { prompt: none, maxAge: null, now, after: null };
    expect(needsSignIn({ ...base, authTime: null })).toBe(true);
    expect(needsSignIn({ ...base, authTime: now / 1000 - 5000 })).toBe(false);
    expect(needsSignIn({ ...base, prompt: login, authTime: now / 1000 })).toBe(true);
    expect(needsSignIn({ ...base, maxAge: 60, authTime: now / 1000 - 61 })).toBe(true);
    expect(needsSignIn({ ...base, maxAge: 60, authTime: now / 1000 - 60 })).toBe(false);
    // Back from the sign-in page: a proof after the request began satisfies prompt=login and max_age=0.
    expect(needsSignIn({ ...base, prompt: login, maxAge: 0, authTime: now / 1000, after: now - 3000 })).toBe(false);
    expect(needsSignIn({ ...base, prompt: login, authTime: now / 1000 - 10, after: now - 3000 })).toBe(true);
  });

  it("the request survives the sign-in page's return_to policy and comes back whole", async () => {
    const key = await resumeKey("a secret");
    const original = q(
      "client_id=c&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&scope=openid%20email&state=s&prompt=login",
    );
    const path = await resumePath(original, 1234, key);
    expect(safeReturnTo(path, { authOrigin: "https://auth.example" })).toBe(path);
    const back = await arrivedRequest(new URL(path, "https://auth.example"), key, 5000);
    expect(back?.after).toBe(1234);
    expect(back?.query.get("redirect_uri")).toBe("https://app.example/cb");
    expect(back?.query.get("scope")).toBe("openid email");
    expect([...(back?.query.keys() ?? [])].filter((k) => k.startsWith("oc_"))).toEqual([]);
    expect(
      await arrivedRequest(new URL("https://auth.example/oauth/authorize?oc_resume=%%%"), key, 5000),
    ).toBeUndefined();
  });

  it("only this host's marker, for that very query, not stale, says when the request began (review 3, item 2)", async () => {
    const key = await resumeKey("a secret");
    const now = 2_000_000_000_000;
    const original = q("client_id=c&state=s&max_age=0");
    const path = await resumePath(original, now, key);
    const at = (p: string, when = now) => arrivedRequest(new URL(p, "https://auth.example"), key, when);
    const text = new TextDecoder().decode(
      base64url.decode(new URL(path, "https://x").searchParams.get("oc_resume") ?? ""),
    );
    const carried = (t: string) => `/oauth/authorize?oc_resume=${base64url.encode(t)}`;
    expect((await at(path))?.after).toBe(now);
    expect((await at(path, now + RESUME_TTL_MS))?.after).toBe(now);
    // Stale, or dated in the future.
    expect((await at(path, now + RESUME_TTL_MS + 1))?.after).toBeNull();
    expect((await at(path, now - 120_000))?.after).toBeNull();
    // Another host's key; the query changed under the MAC; the time changed; no MAC; a MAC of the wrong length.
    const other = await resumeKey("another secret");
    expect((await arrivedRequest(new URL(path, "https://x"), other, now))?.after).toBeNull();
    expect((await at(carried(text.replace("state=s", "state=t"))))?.after).toBeNull();
    expect((await at(carried(text.replace(`oc_after=${now}`, "oc_after=0"))))?.after).toBeNull();
    expect((await at(carried(text.replace(/&oc_mac=.*$/, ""))))?.after).toBeNull();
    expect((await at(carried(text.replace(/&oc_mac=.*$/, "&oc_mac=AAAA"))))?.after).toBeNull();
    // A second oc_after inside the signed part cannot be appended either (it changes the MAC's input).
    const forged = await at(carried(`${text}&oc_after=0`));
    expect(forged?.after).toBeNull();
    // A forged marker is still the request it carries, only fresh: the browser is sent to sign in.
    expect(forged?.query.get("state")).toBe("s");
    // A plain oc_after (or oc_mac) on a request as sent is dropped, and says nothing.
    const plain = await at("/oauth/authorize?client_id=c&oc_after=0&oc_mac=x");
    expect(plain).toEqual({ query: q("client_id=c"), after: null });
  });

  it("errors go back with state and iss", () => {
    const url = new URL(
      errorRedirect(
        {
          redirectUri: "https://app.example/cb?keep=1",
          state: "s",
          issuer: "https://auth.example",
          responseType: "code",
          clientId: "c",
          scope: [],
        },
        "login_required",
        "why",
      ),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      keep: "1",
      error: "login_required",
      error_description: "why",
      state: "s",
      iss: "https://auth.example",
    });
  });
});

describe("the nonce in the consent transaction (review 3, item 8)", () => {
  const request = {
    responseType: "code",
    clientId: "c",
    redirectUri: "https://app.example/cb",
    scope: ["openid"],
    state: "s",
  };
  it("rides with the request and comes back apart from it", () => {
    // The library keeps the request as JSON: what survives a round trip through it is what comes back.
    const stored = JSON.parse(JSON.stringify(withNonce(request, "n-1")));
    expect(nonceOf(stored)).toEqual({ request, nonce: "n-1" });
    expect(nonceOf(JSON.parse(JSON.stringify(withNonce(request, null))))).toEqual({ request, nonce: null });
  });
  it("a record without it (or with something else) is refused, never read as no nonce", () => {
    expect(nonceOf(request)).toBeUndefined();
    expect(nonceOf({ ...request, oc_nonce: 5 } as never)).toBeUndefined();
  });
});

describe("the consent page's policy (review 3, item 7)", () => {
  it("a logo is a plain https URL", () => {
    expect(isPlainHttpsUrl("https://cdn.example/a/logo.png?v=1&w=2")).toBe(true);
    expect(isPlainHttpsUrl("https://xn--9ca.example:8443/l.png")).toBe(true);
    for (const bad of [
      "https://x.example/l.png; frame-ancestors *",
      "https://x.example/l.png 'self'",
      "https://x.example/l'.png",
      "https://x.example/l,x.png",
      "https://x'y.example/",
      "https://é.example/l.png",
      "https://u:p@x.example/",
      "http://x.example/",
      "data:image/png;base64,AAAA",
      "//x.example/l.png",
      "",
    ]) {
      expect(isPlainHttpsUrl(bad), bad).toBe(false);
    }
  });
  it("only clean origins reach it", () => {
    expect(sourceOrigin("https://cdn.example/a?b#c")).toBe("https://cdn.example");
    expect(sourceOrigin("http://localhost:3000/cb")).toBe("http://localhost:3000");
    expect(sourceOrigin("https://x'y.example/")).toBeUndefined();
    expect(sourceOrigin("https://x,y.example/")).toBeUndefined();
    expect(sourceOrigin("javascript:alert(1)")).toBeUndefined();
    expect(sourceOrigin(null)).toBeUndefined();
    const policy = consentPolicy("https://app.example/cb", "https://cdn.example/l.png; frame-ancestors *");
    expect(policy).toContain("img-src 'self' data:;");
    expect(policy).toContain("form-action 'self' https://app.example;");
    expect(policy.match(/frame-ancestors/g)).toHaveLength(1);
    expect(consentPolicy("https://app.example/cb", "https://cdn.example/l.png")).toContain(
      "img-src 'self' data: https://cdn.example;",
    );
  });
});
