// An app's logo and the consent page's Content-Security-Policy (review 3, item 7): registration takes only a plain
// https URL as logo_uri (no `;`, spaces, quotes or commas that would end a CSP source list or directive), and the
// consent page's policy allows only the logo's origin, taken from the parsed URL and checked again, so a value
// stored before this rule cannot rewrite the page's directives either.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { reasonOf, signedInBrowser } from "../helpers/account-security";
import { authorize, registerClient, startFlow } from "../helpers/oidc";

/** The policy's directives by name, each name with every value it was given (a duplicate is an injection). */
function directives(policy: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (policy ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (!name) continue;
    out.set(name, [...(out.get(name) ?? []), values.join(" ")]);
  }
  return out;
}

async function consentPolicyFor(logoUri: string, stored?: string) {
  const { browser } = await signedInBrowser();
  const app = await registerClient(browser, { logo_uri: logoUri });
  if (stored !== undefined) {
    await env.DB.prepare("UPDATE oidc_clients SET logo_uri = ? WHERE client_id = ?").bind(stored, app.client_id).run();
  }
  const { res } = await authorize(browser, (await startFlow(app, "openid")).params);
  expect(res.status).toBe(200);
  return { policy: directives(res.headers.get("content-security-policy")), html: await res.text() };
}

describe("logo_uri at registration", () => {
  it("refuses anything but a plain https URL: invalid_body", async () => {
    const { browser } = await signedInBrowser();
    for (const logo of [
      "https://x.example/l.png; frame-ancestors *",
      "https://x.example/l.png;frame-ancestors *",
      "https://x.example/l.png 'unsafe-inline'",
      "https://x.example/l'.png",
      'https://x.example/l".png',
      "https://x.example/l.png,https://evil.example",
      "https://x'y.example/l.png",
      "https://user@x.example/l.png",
      "http://x.example/l.png",
    ]) {
      const res = await browser.post("/api/oidc/clients", {
        name: "Logo",
        redirect_uris: ["https://app.example/callback"],
        type: "public",
        logo_uri: logo,
      });
      expect(res.status, logo).toBe(400);
      expect(await reasonOf(res), logo).toBe("invalid_body");
    }
  });
});

describe("the consent page's policy", () => {
  it("allows the logo's origin only, not its path or query", async () => {
    const { policy, html } = await consentPolicyFor("https://cdn.example/img/logo.png?v=1");
    expect(policy.get("img-src")).toEqual(["'self' data: https://cdn.example"]);
    expect(html).toContain('<img src="https://cdn.example/img/logo.png?v=1"');
  });

  it("never trusts a stored logo: an injected directive does not reach the policy", async () => {
    for (const stored of [
      "https://x.example/l.png; frame-ancestors *",
      "https://x.example/l.png; script-src 'unsafe-inline'",
      "https://x'y.example/l.png",
      "https://x,y.example/l.png",
      "not a url; frame-ancestors *",
    ]) {
      const { policy } = await consentPolicyFor("https://cdn.example/logo.png", stored);
      expect(policy.get("frame-ancestors"), stored).toEqual(["'none'"]);
      expect(policy.get("script-src"), stored).toEqual(["'self'"]);
      const images = policy.get("img-src") ?? [];
      expect(images).toHaveLength(1);
      expect(["'self' data:", "'self' data: https://x.example"]).toContain(images[0]);
    }
  });
});
