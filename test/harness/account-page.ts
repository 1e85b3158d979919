// What the account page's browser tests share: a page at a width with its errors collected, Chromium's virtual
// authenticator, the text a person reads, the two layout checks (nothing past the viewport, nothing past its
// section), and signing in with a Bitcoin key from the sign-in page as a person does.
import { Signer } from "bip322-js";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { pageErrors } from "./browser-session";

/** A page at `width` whose console errors and uncaught exceptions are collected (pageErrors). */
export async function openPage(
  browser: Browser,
  width: number,
  options: { acceptDownloads?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, ...options });
  const page = await context.newPage();
  return { context, page, errors: pageErrors(page) };
}

/** Chromium's virtual authenticator: a platform authenticator with passkeys and user verification. */
export async function virtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return { credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials };
}

// biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads.
export const text = async (page: Page, selector: string) => (await page.innerText(selector)).trim();

/** How far the page reaches past the viewport's width (0: nothing does). */
export const overflow = async (page: Page) =>
  (await page.evaluate("document.documentElement.scrollWidth - innerWidth")) as number;

/** Elements that reach past the right edge of the section holding them (a long address in a button, say). */
export const spills = async (page: Page) =>
  (await page.evaluate(`[...document.querySelectorAll("section *")].filter((el) => {
    const box = el.closest("section").getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.right > box.right + 1;
  }).map((el) => el.tagName + ": " + el.textContent.slice(0, 40))`)) as string[];

/** A BIP-322 signature of `message` by `owner`, as a wallet makes it. */
export const sign = (owner: { wif: string; address: string }, message: string) =>
  Signer.sign(owner.wif, owner.address, message) as string;

/** Signs `owner` in on `page` from the sign-in page (the message pasted into a wallet, its signature pasted back). */
export async function signInWithKey(
  page: Page,
  authOrigin: string,
  owner: { wif: string; address: string },
): Promise<void> {
  await page.goto(`${authOrigin}/signin`);
  await page.fill("#btc-address", owner.address);
  await page.click("#btc-challenge");
  await page.waitForSelector("#btc-signature", { state: "visible" });
  await page.fill("#btc-signature", sign(owner, await page.inputValue("#btc-message")));
  await page.click("#btc-signin");
  await expect.poll(() => text(page, "#active")).toBe(`Signed in as ${owner.address}`);
}
