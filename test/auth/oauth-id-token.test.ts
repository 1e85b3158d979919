// The id_token checks end to end: the local provider signs, with its own key, an id_token broken in one way for a
// client named after the break (test/harness/oidc-server.mjs TAMPER), and the callback must refuse it. The nonce
// case lives in oauth.test.ts.
import { describe, expect, it } from "vitest";
import { outcome, ProviderBrowser } from "../helpers/provider-browser";

const BROKEN = [
  { client: "tamper-aud", what: "an audience that is another client", detail: /aud/ },
  { client: "tamper-azp", what: "several audiences, authorized for another client", detail: /azp/ },
  { client: "tamper-iss", what: "another issuer", detail: /iss/ },
  { client: "tamper-exp", what: "an expiry ten minutes past", detail: /exp/ },
  { client: "tamper-kid", what: "a key the issuer never published (the signature is checked)", detail: /key/ },
];

describe("id_token checks (OpenID Connect Core §3.1.3.7)", () => {
  it.each(BROKEN)("refuses an id_token with $what", async ({ client, detail }) => {
    const browser = new ProviderBrowser({ OIDC_CLIENT_ID: client });
    const res = await browser.callback(await browser.consent("oidc"));
    expect(await outcome(res)).toMatchObject({
      status: 401,
      reason: "oauth_response_invalid",
      detail: expect.stringMatching(detail),
    });
    expect(browser.session).toBeUndefined();
  });

  it("accepts the same provider's untampered id_token (the control)", async () => {
    const browser = new ProviderBrowser({ OIDC_CLIENT_ID: "untampered-client" });
    const res = await browser.callback(await browser.consent("oidc"));
    expect((await outcome(res)).status).toBe(302);
    expect(browser.session).toBeDefined();
  });
});
