// Review 3, item 6: a step-up needs an assertion with the UV flag (PIN, biometrics), whatever WEBAUTHN_USER_VERIFICATION
// says; a passkey sign-in without UV still signs in (with the default `preferred`) but is no step-up.
import { describe, expect, it } from "vitest";
import { makeStale, signedInBrowser } from "../helpers/account-security";
import { Browser } from "../helpers/browser";
import type { SoftAuthenticator } from "../helpers/soft-authenticator";
import { addKeys, answer, optionsFrom, passkeySignIn, stepUp } from "../helpers/webauthn-flows";

const revoke = async (browser: Browser, id: string) =>
  answer(await browser.fetch(`/api/auth/webauthn/credentials/${id}`, { method: "DELETE" }));
const freshness = async (browser: Browser) =>
  (await answer(await browser.fetch("/api/auth/freshness"))).body.freshness as { step_up_at: string | null };

describe("user verification", () => {
  it("a step-up asks for UV; an assertion with UP but not UV is refused and the revoke still needs a step-up", async () => {
    const { browser } = await signedInBrowser();
    const [first, second] = (await addKeys(browser, 2)) as [
      { soft: SoftAuthenticator; id: string },
      { soft: SoftAuthenticator; id: string },
    ];
    await makeStale(browser);
    const options = (await optionsFrom(browser, "/api/auth/webauthn/stepup/options")) as { userVerification?: string };
    expect(options.userVerification).toBe("required");
    const without = await stepUp(browser, second.soft, { uv: false });
    expect(without).toMatchObject({ status: 401, body: { reason: "webauthn_response_invalid" } });
    expect(await revoke(browser, first.id)).toMatchObject({ status: 403, body: { reason: "step_up_required" } });
    // With UV: a step-up, and the revoke goes through.
    expect((await stepUp(browser, second.soft)).status).toBe(200);
    expect(await revoke(browser, first.id)).toMatchObject({ status: 200, body: { ok: true } });
  });

  it("a passkey sign-in without UV signs in but sets no step_up_at; with UV it does", async () => {
    const owner = await signedInBrowser();
    const [, second] = (await addKeys(owner.browser, 2)) as { soft: SoftAuthenticator; id: string }[];
    const soft = second?.soft as SoftAuthenticator;
    const browser = new Browser();
    expect((await passkeySignIn(browser, soft, { uv: false })).status).toBe(200);
    expect((await freshness(browser)).step_up_at).toBeNull();
    const keys = (await answer(await browser.fetch("/api/auth/webauthn/credentials"))).body.keys as { id: string }[];
    expect(await revoke(browser, keys[0]?.id as string)).toMatchObject({
      status: 403,
      body: { reason: "step_up_required" },
    });
    const verified = new Browser();
    expect((await passkeySignIn(verified, soft)).status).toBe(200);
    expect((await freshness(verified)).step_up_at).not.toBeNull();
  });
});
