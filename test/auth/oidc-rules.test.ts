// The OpenID provider's rules as pure functions (issue 33): the claims each scope releases, amr per sign-in path,
// the ID token's claims, prompt and max_age, when a fresh sign-in is needed, and the request's round trip through
// the sign-in page.
import { describe, expect, it } from "vitest";
import { safeReturnTo } from "../../shared/auth/oauth/return-to";
import {
  AFTER_PARAM,
  errorRedirect,
  needsSignIn,
  readPrompt,
  requestQuery,
  resumePath,
} from "../../workers/auth/src/oidc/authorize";
import { amrOf, grantedScopes, idTokenClaims, userClaims } from "../../workers/auth/src/oidc/claims";

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

  it("the request survives the sign-in page's return_to policy and comes back whole", () => {
    const original = q(
      "client_id=c&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&scope=openid%20email&state=s&prompt=login",
    );
    const path = resumePath(original, 1234);
    expect(safeReturnTo(path, { authOrigin: "https://auth.example" })).toBe(path);
    const back = requestQuery(new URL(path, "https://auth.example")) as URLSearchParams;
    expect(back.get("redirect_uri")).toBe("https://app.example/cb");
    expect(back.get("scope")).toBe("openid email");
    expect(back.get(AFTER_PARAM)).toBe("1234");
    expect(requestQuery(new URL("https://auth.example/oauth/authorize?oc_resume=%%%"))).toBeUndefined();
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
