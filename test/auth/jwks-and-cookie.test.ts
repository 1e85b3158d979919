// The published key set, the cookie's attributes, and a consumer verifying oc_session locally with a stock client.
import { SELF } from "cloudflare:test";
import { createRemoteJWKSet, customFetch, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { clearedSessionCookie, readSessionCookies, sessionCookie } from "../../shared/auth/cookie";
import { MAX_SESSION_COOKIES } from "../../shared/auth/current-session";
import { AUTH_ORIGIN, Browser } from "../helpers/browser";
import { setCookies } from "../helpers/email-code";
import { decodePart, encodePart } from "../helpers/tokens";
import { newWallet } from "../helpers/wallet";

describe("JWKS", () => {
  it("publishes the Ed25519 key (and retired and published keys) at both paths, cacheable", async () => {
    const a = await SELF.fetch(`${AUTH_ORIGIN}/api/auth/jwks`);
    const b = await SELF.fetch(`${AUTH_ORIGIN}/.well-known/jwks.json`);
    expect(a.status).toBe(200);
    expect(a.headers.get("cache-control")).toBe("public, max-age=300");
    expect(a.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await a.json()) as { keys: Record<string, string>[] };
    expect(await b.json()).toEqual(body);
    expect(body.keys.length).toBe(3);
    for (const key of body.keys) {
      expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "oc_use", "use", "x"]);
    }
    // The current and retired session keys, then the fleet's audit key, marked so it never verifies a session.
    expect(body.keys.map((k) => k.oc_use)).toEqual(["session", "session", "audit"]);
  });

  it("a consumer verifies the cookie with jose.createRemoteJWKSet, with no other call to the auth host", async () => {
    const browser = new Browser();
    const signin = await browser.signIn(newWallet());
    const { account } = (await signin.json()) as { account: { did_oc: string } };
    const calls: string[] = [];
    const jwks = createRemoteJWKSet(new URL(`${AUTH_ORIGIN}/.well-known/jwks.json`), {
      [customFetch]: (url: string, init: RequestInit) => {
        calls.push(url);
        return SELF.fetch(url, init);
      },
    });
    const { payload, protectedHeader } = await jwtVerify(browser.cookie as string, jwks, {
      issuer: AUTH_ORIGIN,
      algorithms: ["EdDSA"],
    });
    expect(protectedHeader).toMatchObject({ alg: "EdDSA", typ: "JWT" });
    expect(payload).toMatchObject({ did_oc: account.did_oc, display_identity: { kind: "btc" } });
    for (const claim of ["sub", "jti", "iat", "exp", "step_up_at", "sudo_at", "display_name", "primary_btc"]) {
      expect(payload).toHaveProperty(claim);
    }
    await jwtVerify(browser.cookie as string, jwks, { issuer: AUTH_ORIGIN, algorithms: ["EdDSA"] });
    expect(calls).toEqual([`${AUTH_ORIGIN}/.well-known/jwks.json`]);
  });
});

describe("oc_session cookie", () => {
  it("is set with Path=/, HttpOnly, Secure, SameSite=Lax and a 30-day Max-Age", async () => {
    const res = await new Browser().signIn(newWallet());
    const cookie = setCookies(res).find((line) => line.startsWith("oc_session=")) ?? "";
    expect(cookie).toMatch(/^oc_session=[\w-]+\.[\w-]+\.[\w-]+; /);
    for (const attr of ["Path=/", "HttpOnly", "Secure", "SameSite=Lax", "Max-Age=2592000"]) {
      expect(cookie.split("; ")).toContain(attr);
    }
    expect(cookie.length).toBeLessThan(4096);
  });

  it("names the shared Domain when one is configured, and clears with the same attributes", () => {
    expect(sessionCookie("t", ".example.com")).toBe(
      "oc_session=t; Path=/; HttpOnly; Secure; SameSite=Lax; Domain=.example.com; Max-Age=2592000",
    );
    expect(clearedSessionCookie(".example.com")).toBe(
      "oc_session=; Path=/; HttpOnly; Secure; SameSite=Lax; Domain=.example.com; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    );
    expect(clearedSessionCookie(undefined)).not.toMatch(/__secure-|__Secure-|__Host-/);
  });

  it("reads every oc_session copy a browser sends", () => {
    expect(readSessionCookies("a=1; oc_session=x; xoc_session=y; oc_session=z")).toEqual(["x", "z"]);
    expect(readSessionCookies(undefined)).toEqual([]);
  });

  it("when several copies are sent, the first live one wins and dead ones are skipped", async () => {
    const browser = new Browser();
    await browser.signIn(newWallet());
    const live = browser.cookie as string;
    const res = await browser.fetch("/api/auth/me", { headers: { cookie: `oc_session=garbage; oc_session=${live}` } });
    expect(res.status).toBe(200);
    const flood = Array.from({ length: MAX_SESSION_COOKIES }, (_, i) => `oc_session=junk${i}`).join("; ");
    const capped = await browser.fetch("/api/auth/me", { headers: { cookie: `${flood}; oc_session=${live}` } });
    expect(capped.status).toBe(401);
  });
});

describe("acting as another account", () => {
  it("a cookie minted for A with its payload changed to B is refused", async () => {
    const a = new Browser();
    await a.signIn(newWallet());
    const b = new Browser();
    const signinB = await b.signIn(newWallet());
    const { account: accountB } = (await signinB.json()) as { account: { did_oc: string } };
    const [header, , signature] = (a.cookie as string).split(".");
    const claimsB = decodePart(b.cookie as string, 1);
    const forged = new Browser();
    forged.cookie = `${header}.${encodePart({ ...decodePart(a.cookie as string, 1), sub: claimsB.sub, did_oc: accountB.did_oc })}.${signature}`;
    expect((await forged.me()).status).toBe(401);
    const switched = await forged.post("/api/auth/switch", { did_oc: accountB.did_oc });
    expect(switched.status).toBe(401);
  });

  it("A's valid cookie cannot switch to B, who is not in A's roster", async () => {
    const a = new Browser();
    await a.signIn(newWallet());
    const b = await new Browser().signIn(newWallet());
    const { account } = (await b.json()) as { account: { did_oc: string } };
    const res = await a.post("/api/auth/switch", { did_oc: account.did_oc });
    expect(res.status).toBe(403);
  });
});

describe("GET /api/auth/me", () => {
  it("answers 401 not_authenticated when anonymous, never cached", async () => {
    const res = await new Browser().fetch("/api/auth/me");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ ok: false, reason: "not_authenticated" });
    expect(res.headers.get("cache-control")).toBe("no-store, private");
    expect(res.headers.get("vary")).toBe("Cookie");
  });
});
