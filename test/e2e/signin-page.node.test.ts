// The sign-in page in a real browser: headless Chromium (Debian's package, installed here if missing) driven by
// playwright-core against the whole stack started as `npm start` would (on other ports), with a local mail API and
// a local OpenID Connect provider. Screenshots of each state go to test-artifacts/signin/.
import { type ChildProcess, execSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { Signer } from "bip322-js";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { startMail } from "../harness/mail-server.mjs";
import { startOidc } from "../harness/oidc-server.mjs";

const CHROMIUM = "/usr/bin/chromium";
const ORIGIN = "http://localhost:8797";
const STATE_DIR = ".build/e2e-state";
const root = path.join(import.meta.dirname, "../..");
const artifacts = path.join(root, "test-artifacts", "signin");

let stack: ChildProcess | undefined;
let browser: Browser | undefined;
let mail: Awaited<ReturnType<typeof startMail>>;
let oidc: Awaited<ReturnType<typeof startOidc>>;

function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  // The test setup installs Debian's chromium (the machine reaches Debian's package archive).
  execSync("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium", {
    stdio: "inherit",
  });
}

async function waitForStack() {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${ORIGIN}/api/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("the stack did not start");
}

beforeAll(async () => {
  ensureChromium();
  mkdirSync(artifacts, { recursive: true });
  // A fresh state per run: the hourly email-code limits would otherwise carry over between runs.
  rmSync(path.join(root, STATE_DIR), { recursive: true, force: true });
  mail = await startMail();
  oidc = await startOidc();
  stack = spawn(process.execPath, ["scripts/dev.mjs"], {
    cwd: root,
    detached: true,
    stdio: "ignore",
    env: {
      ...process.env,
      PORT_AUTH: "8797",
      PORT_FLEET: "8798",
      INSPECTOR_PORT_AUTH: "9239",
      INSPECTOR_PORT_FLEET: "9240",
      STATE_DIR,
      AUTH_ORIGIN: ORIGIN,
      FLEET_ORIGIN: "http://localhost:8798",
      MAIL_API_URL: mail.url,
      MAIL_API_KEY: mail.apiKey,
      MAIL_FROM: "e2e <e2e@example.com>",
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: "e2e-client",
      OIDC_CLIENT_SECRET: "e2e-secret",
      OIDC_LABEL: "Local OIDC",
    },
  });
  await waitForStack();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (stack?.pid) {
    try {
      process.kill(stack.pid, "SIGTERM");
    } catch {}
    await new Promise((r) => setTimeout(r, 4000));
  }
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
