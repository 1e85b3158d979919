// The account security page and hardware keys in a real browser (issue 27): headless Chromium's own WebAuthn,
// answered by its virtual authenticator (DevTools protocol `WebAuthn.addVirtualAuthenticator`: CTAP2, internal
// transport, resident keys, user verification), against the whole stack. A person signs in with a Bitcoin key,
// opens the account page from the sign-in page, adds a passkey, links a second address; ten minutes later (the
// session's proofs aged in the local D1) choosing that address as primary asks them inline to confirm it is them,
// which the passkey does (a step-up), and the change goes through; they sign out, sign back in with the passkey
// button, and remove the key. At 1280 and 390 px: what the person sees, nothing wider than the page, no error.
// Screenshots: test-artifacts/account/.
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type { BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { openPage, overflow, sign, signInWithKey, spills, text, virtualAuthenticator } from "../harness/account-page";
import { browserSession, diagnosed } from "../harness/browser-session";

const root = path.join(import.meta.dirname, "../..");
const artifacts = path.join(root, "test-artifacts", "account");
const STATE = ".build/e2e-account-state";
const run = promisify(execFile);

// Ports of its own: npm start refuses a port another browser test's stack still holds.
const session = browserSession({ auth: 8857, fleet: 8858, authInspector: 9287, fleetInspector: 9288, stateDir: STATE });

/** The session cookie's claims, as the browser holds it. */
async function cookieClaims(context: BrowserContext): Promise<Record<string, unknown>> {
  const cookie = (await context.cookies(session.stack.authOrigin)).find((c) => c.name === "oc_session");
  const payload = cookie?.value.split(".")[1] ?? "";
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
}

/** Ten minutes and more pass: every session's proofs in the stack's local D1 are aged past the windows. */
async function proofsAge(): Promise<void> {
  const sql =
    "UPDATE sessions SET authenticated_at = authenticated_at - 660000, " +
    "stepped_up_at = CASE WHEN stepped_up_at IS NULL THEN NULL ELSE stepped_up_at - 660000 END";
  const args = ["d1", "execute", "oc-db", "--local", "--persist-to", STATE, "-c", "wrangler.toml", "--command", sql];
  await run(path.join(root, "node_modules/.bin/wrangler"), args, { cwd: root });
}

describe("the account security page, with Chromium's virtual authenticator", () => {
  for (const width of [1280, 390]) {
    it(`adds a passkey, links an address, confirms it is you inline, signs in with the passkey, removes it (${width} px)`, async () => {
      mkdirSync(artifacts, { recursive: true });
      const { context, page, errors } = await openPage(session.browser, width);
      const shot = (name: string) =>
        page.screenshot({ path: path.join(artifacts, `${width}-${name}.png`), fullPage: true });
      const authenticator = await virtualAuthenticator(context, page);
      const owner = generateSigningWif(undefined, "p2wpkh");
      const second = generateSigningWif(undefined, "p2tr");
      const { authOrigin, logFile } = session.stack;
      await diagnosed(page, logFile, async () => {
        // Signed out, the page says so and offers nothing to change.
        await page.goto(`${authOrigin}/account`);
        await expect.poll(() => text(page, "#who")).toBe("Not signed in. Sign in to see this account's security.");
        expect(await page.locator("#signed-in").isVisible()).toBe(false);

        await signInWithKey(page, authOrigin, owner);
        expect(await text(page, "#passkey-signin")).toBe("Sign in with a passkey");
        await page.click("#account-link");
        await expect.poll(() => text(page, "#who")).toBe(`Signed in as ${owner.address}`);
        await expect.poll(() => text(page, "#identity-list")).toContain("primary");
        expect(await text(page, "#key-list")).toBe("No security key or passkey yet.");
        expect(await text(page, "#recovery-now")).toContain("None.");
        expect(await text(page, "#session-list")).toContain("active");
        await shot("1-signed-in");

        // A passkey, just after signing in (sudo is fresh).
        await page.fill("#key-name", "Laptop passkey");
        await page.click("#key-add");
        await expect.poll(() => text(page, "#keys-msg")).toBe("Added. It can sign you in and confirm it is you.");
        expect(await text(page, "#key-list")).toContain("Laptop passkey");
        const held = await authenticator.credentials();
        expect(held.map((c) => [c.isResidentCredential, c.rpId])).toEqual([[true, "localhost"]]);

        // A second Bitcoin address, signed for the challenge of purpose `link`.
        await page.fill("#link-btc-address", second.address);
        await page.click("#link-btc-challenge");
        await page.waitForSelector("#link-btc-signature", { state: "visible" });
        const message = await page.inputValue("#link-btc-message");
        expect(message).toContain("purpose: link");
        await page.fill("#link-btc-signature", sign(second, message));
        await page.click("#link-btc-submit");
        await expect.poll(() => text(page, "#identities-msg")).toBe(`Linked ${second.address}.`);
        expect(await page.locator("#identity-list > li").count()).toBe(2);
        await shot("2-key-and-address");

        // Eleven minutes later: making it primary asks inline for a proof; the passkey gives it (a step-up).
        await proofsAge();
        expect((await cookieClaims(context)).step_up_at).toBeNull();
        await page.locator(`[data-identity="btc:${second.address}"] button`, { hasText: "Make primary" }).click();
        await page.waitForSelector("#reauth", { state: "visible" });
        expect(await text(page, "#reauth-why")).toContain("within the last 10 minutes");
        expect(await spills(page)).toEqual([]);
        await shot("3-confirm-it-is-you");
        await page.click("#reauth-methods button:text-is('Use a security key or passkey')");
        await expect.poll(() => text(page, "#identities-msg")).toBe(`${second.address} is primary.`);
        expect(await page.locator("#reauth").isVisible()).toBe(false);
        const claims = await cookieClaims(context);
        expect(claims.primary_btc).toBe(second.address);
        expect(claims.step_up_at).toEqual(expect.any(Number));
        await expect
          .poll(() => page.locator("#log-list > li").allInnerTexts())
          .toEqual([
            expect.stringContaining("Primary address chosen"),
            expect.stringContaining("Confirmed it was you"),
            expect.stringContaining("Identity linked"),
            expect.stringContaining("Security key added"),
          ]);

        // Signed out, the passkey signs them back in from the sign-in page.
        await page.click("#session-list button:text-is('Sign out of this account')");
        await expect.poll(() => text(page, "#who")).toBe("Not signed in. Sign in to see this account's security.");
        await page.goto(`${authOrigin}/signin`);
        await page.click("#passkey-signin");
        await expect.poll(() => text(page, "#active")).toBe(`Signed in as ${second.address}`);
        await page.click("#account-link");
        await expect.poll(() => text(page, "#key-list")).toContain("Laptop passkey");
        expect(await text(page, "#key-list")).toMatch(/last used \d{4}-\d\d-\d\d/);
        await shot("4-passkey-signed-in");

        // The account's only key: the passkey sign-in's fresh proofs are enough to remove it.
        await page.locator("#key-list button", { hasText: "Remove" }).click();
        await expect.poll(() => text(page, "#keys-msg")).toBe("Removed Laptop passkey.");
        expect(await text(page, "#key-list")).toBe("No security key or passkey yet.");
        await shot("5-key-removed");
      });
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      expect(await spills(page)).toEqual([]);
      expect(await page.locator(".msg.error").count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    }, 180_000);
  }
});
