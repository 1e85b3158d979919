// What an OpenID Connect account is called: the provider's name claims, else its email, so the sign-in page shows
// a person something they know rather than a did. Shown only: the account is still matched by subject (OA-06).
import { describe, expect, it } from "vitest";
import type { AccountBody } from "../helpers/browser";
import { outcome, ProviderBrowser } from "../helpers/provider-browser";

describe("an OpenID Connect account's display name", () => {
  it("is the id_token's email when the provider sends no name", async () => {
    const browser = new ProviderBrowser({ OIDC_CLIENT_ID: "with-email" });
    expect((await outcome(await browser.callback(await browser.consent("oidc")))).status).toBe(302);
    const me = (await (await browser.fetch("/api/auth/me")).json()) as { account: AccountBody };
    expect(me.account.display_name).toBe("ada@example.com");
    expect(me.account.display_identity.kind).toBe("did");
  });
});
