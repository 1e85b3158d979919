// The sign-in page in a real browser: headless Chromium (Debian's package, installed here if missing) driven by
// playwright-core against the whole stack started as `npm start` would (on other ports), with a local mail API and
// a local OpenID Connect provider. Screenshots of each state go to test-artifacts/signin/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Signer } from "bip322-js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { ensureChromium, launchChromium, startStack } from "../harness/browser-stack.mjs";
import { startMail } from "../harness/mail-server.mjs";
import { startOidc } from "../harness/oidc-server.mjs";

const ORIGIN = "http://localhost:8797";
const root = path.join(import.meta.dirname, "../..");
const artifacts = path.join(root, "test-artifacts", "signin");

let stack: Awaited<ReturnType<typeof startStack>> | undefined;
let browser: Browser | undefined;
let mail: Awaited<ReturnType<typeof startMail>>;
let oidc: Awaited<ReturnType<typeof startOidc>>;

beforeAll(async () => {
  ensureChromium();
  mkdirSync(artifacts, { recursive: true });
  mail = await startMail();
  oidc = await startOidc();
  // A fresh state per run (startStack empties it): the hourly email-code limits would otherwise carry over.
  stack = await startStack({
    auth: 8797,
    fleet: 8798,
    authInspector: 9239,
    fleetInspector: 9240,
    stateDir: ".build/e2e-state",
    env: {
      MAIL_API_URL: mail.url,
      MAIL_API_KEY: mail.apiKey,
      MAIL_FROM: "e2e <e2e@example.com>",
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: "e2e-client",
      OIDC_CLIENT_SECRET: "e2e-secret",
      OIDC_LABEL: "Local OIDC",
    },
  });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await mail?.close();
  await oidc?.close();
});

async function lastCode(email: string): Promise<string> {
  const mails = (await (await fetch(`${mail.url}/__admin/emails?to=${encodeURIComponent(email)}`)).json()) as {
    subject: string;
  }[];
  return /(\d{6})/.exec(mails[mails.length - 1]?.subject ?? "")?.[1] ?? "";
}

/** The email-code path on the page, with the code read from the local mail API. */
async function signInByEmail(page: Page, email: string): Promise<string> {
  await page.fill("#email", email);
  await page.click("#email-send");
  await page.waitForSelector("#email-code", { state: "visible" });
  await expect.poll(() => lastCode(email)).toMatch(/^\d{6}$/);
  await page.fill("#email-code", await lastCode(email));
  await page.click("#email-verify");
  await expect.poll(() => page.textContent("#active")).toContain(email);
  return email;
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

describe("sign-in page", () => {
  it("signs in by email code, adds a Bitcoin account, switches, and signs out of one", async () => {
    const page = await (await (browser as Browser).newContext()).newPage();
    await page.goto(`${ORIGIN}/signin`);
    await expect.poll(() => page.textContent("#active")).toBe("Not signed in.");
    await shot(page, "1-anonymous");

    const email = await signInByEmail(page, `e2e-${Date.now()}@example.com`);
    await shot(page, "2-email-signed-in");

    await page.goto(`${ORIGIN}/signin?add=1`);
    const { wif, address } = generateSigningWif(undefined, "p2wpkh");
    await page.fill("#btc-address", address);
    await page.click("#btc-challenge");
    await page.waitForSelector("#btc-signature", { state: "visible" });
    const message = await page.inputValue("#btc-message");
    await page.fill("#btc-signature", Signer.sign(wif, address, message) as string);
    await page.click("#btc-signin");
    await expect.poll(() => page.textContent("#active")).toContain(address);
    await expect.poll(() => page.textContent("#accounts")).toContain(email);
    await shot(page, "3-two-accounts");

    await page.click("[data-switch]");
    await expect.poll(() => page.textContent("#active")).toContain(email);
    await shot(page, "4-switched");

    await page.click("#signout-current");
    await expect.poll(() => page.textContent("#active")).toContain(address);
    await expect.poll(() => page.textContent("#accounts")).toBe("");
    await shot(page, "5-signed-out-of-one");
  }, 60_000);

  it("signs in through a provider button (local OpenID Connect) beside the account already there", async () => {
    const page = await (await (browser as Browser).newContext()).newPage();
    await page.goto(`${ORIGIN}/signin`);
    const email = await signInByEmail(page, `e2e-oidc-${Date.now()}@example.com`);

    await page.goto(`${ORIGIN}/signin?add=1`);
    await page.click('[data-provider="oidc"]');
    await page.waitForURL(`${ORIGIN}/signin?add=1`);
    await expect.poll(() => page.textContent("#active")).not.toContain(email);
    await expect.poll(() => page.textContent("#accounts")).toContain(email);
    await shot(page, "6-provider-added");
  }, 60_000);
});
