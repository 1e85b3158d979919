// RFC 9207 mix-up defence against a provider that announces it: a local issuer whose metadata says
// `authorization_response_iss_parameter_supported: true` and whose callbacks carry `iss` (test/harness/oidc-server.mjs).
// The generic provider is pointed at it; each case breaks the callback's `iss` and asserts the reason.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { outcome, ProviderBrowser } from "../helpers/provider-browser";

const ISSUER = env.TEST_OIDC_RFC9207_ISSUER ?? "";

function announcingBrowser(): ProviderBrowser {
  return new ProviderBrowser({ OIDC_ISSUER: ISSUER });
}

describe("RFC 9207: a provider whose metadata announces the iss parameter", () => {
  it("signs in when the callback carries the provider's own iss", async () => {
    const browser = announcingBrowser();
    const back = await browser.consent("oidc");
    expect(back.searchParams.get("iss")).toBe(ISSUER);
    expect(await outcome(await browser.callback(back))).toMatchObject({ status: 302, location: "/" });
    expect(browser.session).toBeDefined();
  });

  it("refuses a callback without iss (an attacker's or another provider's response stripped of it)", async () => {
    const browser = announcingBrowser();
    const back = await browser.consent("oidc");
    back.searchParams.delete("iss");
    expect(await outcome(await browser.callback(back))).toMatchObject({
      status: 401,
      reason: "oauth_response_invalid",
      detail: expect.stringMatching(/iss/),
    });
    expect(browser.session).toBeUndefined();
    // The state went with the refused callback: the same response cannot be retried with iss put back.
    back.searchParams.set("iss", ISSUER);
    expect((await outcome(await browser.callback(back))).reason).toBe("oauth_state_invalid");
  });

  it("refuses a callback whose iss names another issuer", async () => {
    const browser = announcingBrowser();
    const back = await browser.consent("oidc");
    back.searchParams.set("iss", env.OIDC_ISSUER ?? "");
    expect(await outcome(await browser.callback(back))).toMatchObject({
      status: 401,
      reason: "oauth_response_invalid",
      detail: expect.stringMatching(/iss/),
    });
    expect(browser.session).toBeUndefined();
  });
});

describe("RFC 9207 for GitHub (plain OAuth 2.0, no metadata): iss is optional but must be GitHub's", () => {
  it("accepts a callback without iss or with the configured issuer, and refuses another issuer", async () => {
    const cases: [string | undefined, number][] = [
      [undefined, 302],
      [env.GITHUB_ISSUER, 302],
      ["https://evil.example", 401],
    ];
    for (const [iss, status] of cases) {
      const browser = new ProviderBrowser({});
      const back = await browser.consent("github");
      if (iss !== undefined) back.searchParams.set("iss", iss);
      const result = await outcome(await browser.callback(back));
      expect(result.status, `iss=${iss}: ${result.detail}`).toBe(status);
      if (status === 401) expect(result.reason).toBe("oauth_response_invalid");
    }
  });
});
