// Browser-only endpoints refuse cross-site state changes (security-and-reliability.md §1.4, CSRF-01…CSRF-10).
import { describe, expect, it } from "vitest";
import { judgeOrigin } from "../../shared/http/same-origin";
import { AUTH_ORIGIN, Browser } from "../helpers/browser";
import { newWallet } from "../helpers/wallet";

async function signedIn(): Promise<Browser> {
  const browser = new Browser();
  await browser.signIn(newWallet());
  return browser;
}

async function logoutWith(headers: Record<string, string>) {
  const browser = await signedIn();
  const res = await browser.fetch("/api/auth/logout", { method: "POST", headers });
  const body = (await res.json()) as { reason?: string };
  return { status: res.status, reason: body.reason, stillSignedIn: (await browser.me()).status === 200 };
}

describe("same-origin guard", () => {
  it("CSRF-01/02/04: Sec-Fetch-Site other than same-origin is refused, and nothing changes", async () => {
    for (const site of ["cross-site", "same-site", "none"]) {
      const res = await logoutWith({ "sec-fetch-site": site });
      expect(res, site).toEqual({ status: 403, reason: "cross_site_blocked", stillSignedIn: true });
    }
  });

  it("CSRF-03: same-origin passes", async () => {
    const res = await logoutWith({ "sec-fetch-site": "same-origin" });
    expect(res.status).toBe(200);
    expect(res.stillSignedIn).toBe(false);
  });

  it("CSRF-05/09/10: without Sec-Fetch-Site, Origin must equal this origin exactly", async () => {
    for (const origin of ["https://evil.example", "null", `${AUTH_ORIGIN}.evil.com`, "http://localhost:87870"]) {
      const browser = await signedIn();
      const res = await browser.fetch("/api/auth/logout", {
        method: "POST",
        fetchMetadata: false,
        headers: { origin },
      });
      expect(res.status, origin).toBe(403);
      expect((await browser.me()).status).toBe(200);
    }
    const browser = await signedIn();
    const res = await browser.fetch("/api/auth/logout", {
      method: "POST",
      fetchMetadata: false,
      headers: { origin: AUTH_ORIGIN },
    });
    expect(res.status).toBe(200);
  });

  it("CSRF-06: neither Sec-Fetch-Site nor Origin, with a session cookie, is refused", async () => {
    const browser = await signedIn();
    const res = await browser.fetch("/api/auth/logout", { method: "POST", fetchMetadata: false });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { reason: string }).reason).toBe("cross_site_blocked");
  });

  it("CSRF-06/07: no Fetch Metadata and no Origin with a session cookie is refused; text/plain is never JSON", async () => {
    const browser = await signedIn();
    const headers = new Headers({ "sec-fetch-site": "same-origin", "content-type": "Text/Plain" });
    const res = await browser.fetch("/api/auth/switch", { method: "POST", headers, body: '{"did_oc":"x"}' });
    expect(res.status).toBe(415);
    expect(
      judgeOrigin({
        method: "POST",
        requestOrigin: AUTH_ORIGIN,
        secFetchSite: undefined,
        origin: undefined,
        hasSessionCookie: true,
      }),
    ).toBe("block");
  });

  it("the decision table", () => {
    const base: Parameters<typeof judgeOrigin>[0] = {
      method: "POST",
      requestOrigin: AUTH_ORIGIN,
      secFetchSite: undefined,
      origin: undefined,
      hasSessionCookie: false,
    };
    const cases: [Partial<typeof base>, "allow" | "block"][] = [
      [{ secFetchSite: "same-origin" }, "allow"],
      [{ secFetchSite: "same-site" }, "block"],
      [{ secFetchSite: "cross-site" }, "block"],
      [{ secFetchSite: "none" }, "block"],
      [{ origin: AUTH_ORIGIN }, "allow"],
      [{ origin: "null" }, "block"],
      [{ origin: `${AUTH_ORIGIN}.evil.com` }, "block"],
      [{ origin: "http://localhost" }, "block"],
      [{ hasSessionCookie: true }, "block"],
      [{}, "allow"], // a script or server client: no browser headers, no cookie
      [{ method: "GET", secFetchSite: "cross-site" }, "allow"],
      [{ method: "DELETE", secFetchSite: "cross-site" }, "block"],
      [{ method: "PATCH", origin: "https://evil.example" }, "block"],
    ];
    for (const [input, expected] of cases)
      expect(judgeOrigin({ ...base, ...input }), JSON.stringify(input)).toBe(expected);
  });

  it("a script without browser headers or cookie may sign in", async () => {
    const wallet = newWallet();
    const browser = new Browser();
    const { message, nonce } = await browser.challenge(wallet.address);
    const res = await browser.fetch("/api/auth/signin", {
      method: "POST",
      fetchMetadata: false,
      json: { address: wallet.address, message, signature: wallet.sign(message), nonce },
    });
    expect(res.status).toBe(200);
  });

  it("CSRF-08: GET on a state-changing route is 405 with Allow", async () => {
    for (const path of ["/api/auth/signin", "/api/auth/switch", "/api/auth/logout"]) {
      const res = await new Browser().fetch(path);
      expect(res.status, path).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(await res.json()).toEqual({ ok: false, reason: "method_not_allowed" });
    }
    const res = await new Browser().fetch("/api/auth/account", { method: "DELETE" });
    expect(res.headers.get("allow")).toBe("PATCH");
  });
});
