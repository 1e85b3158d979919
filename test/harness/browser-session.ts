// What every browser test starts with: a webhook receiver, the whole stack on the test's own ports and state folder
// (browser-stack.mjs) and Chromium, stopped after the file; a page's errors collected; and signing in on the auth
// host's page with a Bitcoin key, as a person would.
import { Signer } from "bip322-js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { ensureChromium, launchChromium, stackLogTail, startStack } from "./browser-stack.mjs";
import { startReceiver } from "./webhook-receiver.mjs";

export interface BrowserSession {
  stack: Awaited<ReturnType<typeof startStack>>;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  browser: Browser;
}

/** Registers the file's beforeAll and afterAll; the session's fields are set once beforeAll has run. */
export function browserSession(options: Parameters<typeof startStack>[0]): BrowserSession {
  const session = {} as BrowserSession;
  beforeAll(async () => {
    ensureChromium();
    session.receiver = await startReceiver();
    session.stack = await startStack(options);
    session.browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await session.browser?.close();
    await session.stack?.stop();
    await session.receiver?.close();
  });
  return session;
}

/**
 * The page's console errors and uncaught exceptions, collected as they come. The browser's own line for an API
 * answer of 4xx ("Failed to load resource") is not the page's error: being signed out (401 from /api/auth/me) and a
 * refused request are such answers, and what the page makes of them is asserted on screen.
 */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(`uncaught: ${err.message}`));
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return;
    errors.push(message.text());
  });
  return errors;
}

/** On the auth host's sign-in page: a challenge for `owner`'s address, signed, then back on the fleet's origin. */
export async function signInWithBitcoin(page: Page, fleetOrigin: string, owner: { wif: string; address: string }) {
  // The page's script (a module, run before DOMContentLoaded) wires the buttons: a click before it runs does nothing.
  await page.waitForURL((url) => url.pathname === "/signin", { waitUntil: "domcontentloaded" });
  await page.fill("#btc-address", owner.address);
  await page.click("#btc-challenge");
  await page.waitForSelector("#btc-signature", { state: "visible" });
  const challenge = await page.inputValue("#btc-message");
  await page.fill("#btc-signature", Signer.sign(owner.wif, owner.address, challenge) as string);
  await page.click("#btc-signin");
  await page.waitForURL((url) => url.origin === fleetOrigin);
}

/** Signs in from the dashboard's link with a fresh Bitcoin key, as a person would; the key. */
export async function signInFromDashboard(page: Page, stack: BrowserSession["stack"]) {
  const owner = generateSigningWif(undefined, "p2wpkh");
  await page.goto(`${stack.fleetOrigin}/dashboard/`);
  await page.click("#signin-link");
  await diagnosed(page, stack.logFile, () => signInWithBitcoin(page, stack.fleetOrigin, owner));
  await page.waitForSelector("#signed-in-as");
  return owner;
}

/** The dashboard's own API call (same origin, the session cookie and Sec-Fetch-Site as the page sends them). */
export async function pageCall<T>(page: Page, method: string, pathname: string, body?: unknown): Promise<T> {
  return page.evaluate(
    async ([m, p, b]) => {
      const init =
        b === undefined ? { method: m } : { method: m, headers: { "content-type": "application/json" }, body: b };
      return (await fetch(p, init)).json();
    },
    [method, pathname, body === undefined ? undefined : JSON.stringify(body)] as const,
  ) as Promise<T>;
}

/**
 * Runs `step` on `page`; when it fails (a wait that timed out), the error also names the page's requests still
 * unanswered, what the page shows, and the end of the stack's output: what a failure on a loaded CI run needs.
 */
export async function diagnosed<T>(page: Page, logFile: string, step: () => Promise<T>): Promise<T> {
  const pending = new Map<object, string>();
  const started = Date.now();
  const onRequest = (req: { url(): string; method(): string }) =>
    pending.set(req, `${req.method()} ${req.url()} (+${Date.now() - started} ms)`);
  const onDone = (req: object) => pending.delete(req);
  page.on("request", onRequest);
  page.on("requestfinished", onDone);
  page.on("requestfailed", onDone);
  try {
    return await step();
  } catch (err) {
    const shown = await page
      .evaluate("document.body ? document.body.innerText.slice(0, 300) : ''")
      .catch(() => "(page unreadable)");
    throw new Error(
      `${(err as Error).message}\nunanswered: ${[...pending.values()].join("; ") || "none"}\npage shows: ${JSON.stringify(shown)}\nstack output ended with:\n${stackLogTail(logFile, 30)}`,
    );
  } finally {
    page.off("request", onRequest);
    page.off("requestfinished", onDone);
    page.off("requestfailed", onDone);
  }
}

/**
 * `step`, and once more when it fails, saying why on the console: for the waits that a loaded machine has made
 * miss (a page that never went network-idle, a sign-in field that never showed) while the same step passes alone.
 * A second failure fails the test with its diagnosis.
 */
export async function onceMore<T>(label: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    console.warn(`${label}: failed once, trying again. ${(err as Error).message}`);
    return step();
  }
}
