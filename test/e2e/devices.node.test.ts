// Devices in a real browser (issue 46, item 1): one person signs in with the same Bitcoin key in two browsers
// (two Chromium contexts, each its own cookie jar), and from the first one's account page sees both listed (this
// one marked "this device"), signs the other out, and that other browser, reloading its account page, is signed
// out; the mail setting toggles and holds across a reload. At 1280 and 390 px: nothing wider than the page, no
// error. Screenshots: docs/screenshots/devices-<width>.png.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { openPage, overflow, signInWithKey, text } from "../harness/account-page";
import { browserSession, diagnosed } from "../harness/browser-session";

const screenshots = path.join(import.meta.dirname, "../..", "docs", "screenshots");
const STATE = ".build/e2e-devices-state";

// Ports of its own: npm start refuses a port another browser test's stack still holds.
const session = browserSession({ auth: 8871, fleet: 8872, authInspector: 9301, fleetInspector: 9302, stateDir: STATE });

/** Signs `owner` in on `page` from the sign-in page, then opens the account page. */
async function signInThenAccount(page: Page, authOrigin: string, owner: { wif: string; address: string }) {
  await signInWithKey(page, authOrigin, owner);
  await page.goto(`${authOrigin}/account`);
  await expect.poll(() => text(page, "#who")).toBe(`Signed in as ${owner.address}`);
}

describe("the devices list, in two Chromium browsers", () => {
  for (const width of [1280, 390]) {
    it(`lists both browsers and signs the other one out (${width} px)`, async () => {
      mkdirSync(screenshots, { recursive: true });
      const owner = generateSigningWif(undefined, "p2wpkh");
      const { authOrigin, logFile } = session.stack;
      const first = await openPage(session.browser, width);
      const second = await openPage(session.browser, width);
      await diagnosed(first.page, logFile, async () => {
        await signInThenAccount(second.page, authOrigin, owner);
        await signInThenAccount(first.page, authOrigin, owner);
        const { page } = first;
        await expect.poll(() => page.locator("#device-list > li").count()).toBe(2);
        expect(await text(page, "#device-list > li[data-current='true']")).toContain("this device");
        expect(await text(page, "#device-list")).toContain("Chrome");
        expect(await text(page, "#device-list")).toContain("with a Bitcoin signature");
        expect(await page.locator("#devices-others").isVisible()).toBe(true);
        expect(await page.locator("#mail-app-allowed").isChecked()).toBe(true);
        await page.locator("#devices").screenshot({ path: path.join(screenshots, `devices-${width}.png`) });

        // The other browser, signed out from here.
        await page.locator("#device-list > li:not([data-current]) button", { hasText: "Sign out" }).click();
        await expect.poll(() => text(page, "#devices-msg")).toMatch(/^Signed out of Chrome/);
        expect(await page.locator("#device-list > li").count()).toBe(1);
        expect(await page.locator("#devices-others").isVisible()).toBe(false);
        await second.page.reload();
        await expect
          .poll(() => text(second.page, "#who"))
          .toBe("Not signed in. Sign in to see this account's security.");

        // The optional notice, turned off, stays off.
        await page.locator("#mail-app-allowed").uncheck();
        await expect.poll(() => text(page, "#mail-msg")).toBe("No more mails when you allow an app.");
        await page.reload();
        await expect.poll(() => page.locator("#device-list > li").count()).toBe(1);
        await expect.poll(() => page.locator("#mail-app-allowed").isChecked()).toBe(false);
      });
      for (const { page, errors, context } of [first, second]) {
        expect(await overflow(page)).toBeLessThanOrEqual(0);
        expect(await page.locator(".msg.error").count()).toBe(0);
        expect(errors).toEqual([]);
        await context.close();
      }
    }, 180_000);
  }
});
