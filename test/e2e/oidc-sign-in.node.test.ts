// "Sign in with Bitcoin" from another site, in Chromium (issue 33): a developer registers an app on the account page;
// a relying party on its own origin, written with oidc-client-ts (a browser OpenID client independent of the
// oauth4webapi tests in test/auth/), signs a person in by BIP-322 through the sign-in and consent pages, then the
// same account by an email code (the consent remembered), and both times reads the same `sub`. The consent page is
// checked at 1280 and 390 px as the page sweep checks every page (no overflow, no console error, no serious or
// critical axe-core violation), with screenshots.
import path from "node:path";
import { Signer } from "bip322-js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { axeViolations } from "../harness/axe";
import { pageErrors } from "../harness/browser-session";
import { ensureChromium, launchChromium, startStack } from "../harness/browser-stack.mjs";
import { startMail } from "../harness/mail-server.mjs";
import { startRelyingParty } from "../harness/oidc-rp.mjs";

const screenshots = path.join(import.meta.dirname, "../..", "docs", "screenshots");
let stack: Awaited<ReturnType<typeof startStack>>;
let mail: Awaited<ReturnType<typeof startMail>>;
let rp: Awaited<ReturnType<typeof startRelyingParty>>;
let chromium: Browser;

beforeAll(async () => {
  ensureChromium();
  mail = await startMail();
  stack = await startStack({
    auth: 8897,
    fleet: 8898,
    authInspector: 9327,
    fleetInspector: 9328,
    stateDir: ".build/e2e-oidc-state",
    env: { MAIL_API_URL: mail.url, MAIL_API_KEY: mail.apiKey, MAIL_FROM: "e2e <e2e@example.com>" },
  });
  rp = await startRelyingParty({ authority: stack.authOrigin });
  chromium = await launchChromium();
}, 240_000);

afterAll(async () => {
  await chromium?.close();
  await stack?.stop();
  await mail?.close();
  await rp?.close();
});

/** On the sign-in page: a BIP-322 sign-in with `key` (the page then goes to its return_to). */
async function signInByBip322(page: Page, key: { wif: string; address: string }) {
  await page.fill("#btc-address", key.address);
  await page.click("#btc-challenge");
  await page.waitForSelector("#btc-signature", { state: "visible" });
  const message = await page.inputValue("#btc-message");
  await page.fill("#btc-signature", Signer.sign(key.wif, key.address, message) as string);
  await page.click("#btc-signin");
}

/** The page's own API call on the auth host (same origin, its session cookie). */
const authCall = (page: Page, method: string, pathname: string, body?: unknown) =>
  page.evaluate(
    async ([m, p, b]) => {
      const init =
        b === undefined ? { method: m } : { method: m, headers: { "content-type": "application/json" }, body: b };
      const res = await fetch(p, init);
      return { status: res.status, body: await res.json() };
    },
    [method, pathname, body === undefined ? undefined : JSON.stringify(body)] as const,
  );

/** What the page shows wrongly at `width`: sideways scrolling (the sweep's rule, test/e2e/pages.node.test.ts). */
async function overflowAt(page: Page, width: number): Promise<number> {
  await page.setViewportSize({ width, height: 844 });
  return (await page.evaluate("document.documentElement.scrollWidth")) as number;
}

describe("Sign in with Bitcoin from another site", () => {
  it("a developer registers an app; a person signs in by BIP-322, then by an email code, with the same sub", async () => {
    // The developer: signs in on the auth host and registers a public app on the account page.
    const dev = await (await chromium.newContext()).newPage();
    const devErrors = pageErrors(dev);
    await dev.goto(`${stack.authOrigin}/signin`);
    await signInByBip322(dev, generateSigningWif(undefined, "p2wpkh"));
    await dev.waitForFunction("document.cookie !== null");
    await dev.goto(`${stack.authOrigin}/account`);
    await dev.locator("#developer").waitFor();
    await dev.fill("#client-name", "Example app");
    await dev.fill("#client-redirects", `${rp.origin}/callback`);
    await dev.selectOption("#client-type", "public");
    await dev.click("#client-create");
    const listed = dev.locator("#client-list li[data-client]");
    await listed.waitFor();
    const clientId = (await listed.getAttribute("data-client")) as string;
    expect(await dev.locator("#client-secret").isHidden()).toBe(true); // a public app has no secret
    expect(await dev.locator("#oidc-issuer").textContent()).toBe(stack.authOrigin);
    rp.setClient(clientId);
    expect(devErrors).toEqual([]);

    // The person, by BIP-322: the app's button, the sign-in page, the consent page, back to the app.
    const person = generateSigningWif(undefined, "p2wpkh");
    const context = await chromium.newContext();
    const page = await context.newPage();
    const errors = pageErrors(page);
    await page.goto(rp.origin);
    await page.click("#signin");
    await page.waitForURL((url) => url.origin === stack.authOrigin && url.pathname === "/signin");
    await signInByBip322(page, person);
    await page.locator("#consent").waitFor();
    expect(await page.locator("h1").innerText()).toBe("Sign in to Example app");
    expect(await page.locator("#consent-scopes li").allInnerTexts()).toEqual([
      "Know which account you are (an identifier for this account that stays the same)",
      "See your display name",
      "See your primary Bitcoin address (one you proved you hold by signing)",
    ]);
    expect(await page.locator("#consent").innerText()).toContain("on this computer"); // the loopback warning
    for (const width of [1280, 390]) {
      expect(await overflowAt(page, width)).toBeLessThanOrEqual(width);
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: path.join(screenshots, `oidc-consent-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.click("#consent-allow");
    await page.waitForURL((url) => url.origin === rp.origin && url.pathname === "/callback");
    const profile = page.locator("#profile[data-done]");
    await profile.waitFor();
    const first = JSON.parse(await profile.innerText()) as Record<string, unknown>;
    const me = (await (await page.context().request.get(`${stack.authOrigin}/api/auth/me`)).json()) as {
      account: { did_oc: string };
    };
    expect(first).toMatchObject({ sub: me.account.did_oc, primary_btc: person.address, iss: stack.authOrigin });
    expect(first.amr).toEqual(["bip322", "swk"]);

    // The same person links an email on the auth host, then signs in by a code in a new browser: same sub.
    await page.goto(`${stack.authOrigin}/account`);
    const email = `person-${Date.now()}@example.com`;
    expect((await authCall(page, "POST", "/api/auth/identities/email/start", { email })).status).toBe(200);
    const linked = await authCall(page, "POST", "/api/auth/identities/email/verify", {
      email,
      code: await mail.nextCode(email, 0),
    });
    expect(linked.status).toBe(200);
    const byEmail = await (await chromium.newContext()).newPage();
    const emailErrors = pageErrors(byEmail);
    await byEmail.goto(rp.origin);
    await byEmail.click("#signin");
    await byEmail.waitForURL((url) => url.pathname === "/signin");
    await byEmail.fill("#email", email);
    await byEmail.click("#email-send");
    await byEmail.fill("#email-code", await mail.nextCode(email, 1));
    await byEmail.click("#email-verify");
    // Allowed before by this account: no consent page, straight back to the app.
    await byEmail.waitForURL((url) => url.origin === rp.origin && url.pathname === "/callback");
    const second = byEmail.locator("#profile[data-done]");
    await second.waitFor();
    const again = JSON.parse(await second.innerText()) as Record<string, unknown>;
    expect(again.sub).toBe(first.sub);
    expect(again.amr).toEqual(["email", "otp"]);
    expect(errors).toEqual([]);
    expect(emailErrors).toEqual([]);
  }, 180_000);
});
