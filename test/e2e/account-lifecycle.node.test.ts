// Leaving and taking one's data in a real browser (issue 46, items 3 to 5): headless Chromium with its virtual
// authenticator, against the whole stack. A person signs in with a Bitcoin key, adds a passkey, downloads their data
// (one JSON file), asks to delete the account (the page asks inline for the passkey: a step-up), sees the banner with
// the date, signs out, signs back in with the passkey (the sign-in page offers to keep the account) and keeps it.
// At 1280 and 390 px: what the person sees, nothing wider than the page, no error. Screenshots:
// docs/screenshots/account-*.png (the README shows them).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { openPage, overflow, signInWithKey, spills, text, virtualAuthenticator } from "../harness/account-page";
import { browserSession, diagnosed } from "../harness/browser-session";

const screenshots = path.join(import.meta.dirname, "../..", "docs", "screenshots");
const STATE = ".build/e2e-lifecycle-state";

// Ports of its own: npm start refuses a port another browser test's stack still holds.
const session = browserSession({ auth: 8881, fleet: 8882, authInspector: 9311, fleetInspector: 9312, stateDir: STATE });

describe("leaving and the data download, with Chromium's virtual authenticator", () => {
  for (const width of [1280, 390]) {
    it(`downloads the data, asks for deletion with a step-up, and keeps the account after signing in again (${width} px)`, async () => {
      const { context, page, errors } = await openPage(session.browser, width, { acceptDownloads: true });
      await virtualAuthenticator(context, page);
      const owner = generateSigningWif(undefined, "p2wpkh");
      const { authOrigin, logFile } = session.stack;
      await diagnosed(page, logFile, async () => {
        await signInWithKey(page, authOrigin, owner);
        await page.click("#account-link");
        await expect.poll(() => text(page, "#who")).toBe(`Signed in as ${owner.address}`);
        await page.fill("#key-name", "Phone passkey");
        await page.click("#key-add");
        // The stack's first WebAuthn ceremony can take longer than the poll's default second on a cold start.
        await expect
          .poll(() => text(page, "#keys-msg"), { timeout: 15_000 })
          .toBe("Added. It can sign you in and confirm it is you.");

        // The download: one JSON file with the account, its identity and the passkey's metadata.
        const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-download")]);
        expect(download.suggestedFilename()).toMatch(/^orangecheck-account-\d{4}-\d\d-\d\d\.json$/);
        const file = await download.path();
        const doc = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
        expect(doc.format).toBe("oc-account-export/1");
        expect(doc.identities).toEqual([expect.objectContaining({ kind: "btc", value: owner.address })]);
        expect((doc.passkeys as { name: string }[]).map((k) => k.name)).toEqual(["Phone passkey"]);
        await expect.poll(() => text(page, "#export-msg")).toMatch(/^Downloaded orangecheck-account-/);
        await page.locator("#export").scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(screenshots, `account-download-${width}.png`), fullPage: true });

        // Deletion: confirmed, then the passkey asked for inline (the account has a key: a step-up).
        expect(await page.locator("#leave-banner").isVisible()).toBe(false);
        await page.click("#leave-ask");
        await page.waitForSelector("#leave-confirm", { state: "visible" });
        await page.click("#leave-confirm-button");
        await page.waitForSelector("#reauth", { state: "visible" });
        expect(await text(page, "#reauth-why")).toContain("security keys");
        await page.click("#reauth-methods button:text-is('Use a security key or passkey')");
        await expect
          .poll(() => text(page, "#leave-msg"))
          .toBe("Deletion scheduled. Every address of the account was told by mail.");
        await page.waitForSelector("#leave-banner", { state: "visible" });
        expect(await text(page, "#leave-when")).toMatch(/^This account is scheduled for deletion on \d{4}-\d\d-\d\d /);
        expect(await page.locator("#leave-ask").isVisible()).toBe(false);
        await expect.poll(() => text(page, "#log-list")).toContain("Deletion of the account asked");
        expect(await spills(page)).toEqual([]);
        await page.screenshot({
          path: path.join(screenshots, `account-deletion-scheduled-${width}.png`),
          fullPage: true,
        });

        // Signed out, then back in with the passkey: the page offers to keep the account, and keeping it undoes it.
        await page.click("#session-list button:text-is('Sign out of this account')");
        await expect.poll(() => text(page, "#who")).toBe("Not signed in. Sign in to see this account's security.");
        await page.goto(`${authOrigin}/signin`);
        await page.click("#passkey-signin");
        await expect.poll(() => text(page, "#active")).toBe(`Signed in as ${owner.address}`);
        await page.waitForSelector("#deletion-offer", { state: "visible" });
        expect(await text(page, "#deletion-offer")).toMatch(/scheduled for deletion on \d{4}-\d\d-\d\d /);
        await page.screenshot({ path: path.join(screenshots, `account-deletion-offer-${width}.png`), fullPage: true });
        await page.click("#account-link");
        await page.waitForSelector("#leave-banner", { state: "visible" });
        await page.click("#leave-undo");
        await expect.poll(() => text(page, "#leave-msg")).toBe("Your account is kept: the deletion is undone.");
        expect(await page.locator("#leave-banner").isVisible()).toBe(false);
        expect(await page.locator("#leave-ask").isVisible()).toBe(true);
        await expect.poll(() => text(page, "#log-list")).toContain("Deletion of the account undone");
      });
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      expect(await spills(page)).toEqual([]);
      expect(await page.locator(".msg.error").count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    }, 180_000);
  }
});
