// The fleet dashboard in a real browser (headless Debian chromium, playwright-core) against the whole stack as
// `npm start` runs it, on its own ports: sign in through the auth host's page, then every screen's main flow, with a
// loopback webhook receiver. Screenshots of each screen and the downloaded audit bundle go to test-artifacts/dashboard/.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { browserSession, diagnosed, signInWithBitcoin } from "../harness/browser-session";
import { signedDelegation } from "../harness/signed-delegation";
import { pledge } from "../helpers/envelopes";
import { newWallet } from "../helpers/wallet";

const artifacts = path.join(import.meta.dirname, "../..", "test-artifacts", "dashboard");

const session = browserSession({
  auth: 8807,
  fleet: 8808,
  authInspector: 9247,
  fleetInspector: 9248,
  stateDir: ".build/dashboard-state",
  // No card processor, whatever the developer's environment holds: checkout then answers its 503 reason.
  env: { STRIPE_SECRET_KEY: "" },
});

beforeAll(() => mkdirSync(artifacts, { recursive: true }));

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });

/** Words that mean a value reached the page unconverted (the page sweep's list, test/e2e/pages.node.test.ts). */
const LEAKS = /\[object|undefined|NaN|(?<![\w-])null(?![\w-])/;

/** The text of `selector` as a person sees it (innerText: rendered, hidden parts left out). */
const visible = async (page: Page, selector: string) => (await page.locator(selector).allInnerTexts()).join("\n");

/** The reason of the last error a screen's notice shows. */
const reasonIn = (page: Page, selector: string) => page.locator(`${selector} code.reason`).textContent();

async function received(pathname: string) {
  const res = await fetch(`${session.receiver.url}/__admin/received?path=${encodeURIComponent(pathname)}`);
  return (await res.json()) as {
    headers: Record<string, string>;
    body: string;
    serviceOk: boolean;
    standardOk: boolean;
  }[];
}

describe("fleet dashboard", () => {
  it("runs a project owner's day: projects, members, tokens, webhooks, envelopes, pledges, audit, log, billing", async () => {
    const { stack, receiver, browser } = session;
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    page.on("dialog", (dialog) => dialog.accept());
    const { fleetOrigin } = stack;
    const dashboard = `${fleetOrigin}/dashboard/`;

    // Served by the fleet only (the auth host has no fleet API), with its own CSP; the fleet's root leads to it.
    const root = await fetch(`${fleetOrigin}/`, { redirect: "manual" });
    expect([root.status, root.headers.get("location")]).toEqual([302, "/dashboard/"]);
    expect((await fetch(dashboard)).headers.get("content-security-policy")).toContain("connect-src 'self'");
    expect((await fetch(`${stack.authOrigin}/dashboard/`)).status).toBe(404);

    // Signed out: the dashboard links to the auth host's sign-in page, which brings the browser back.
    await page.goto(dashboard);
    await page.waitForSelector("#signin-link");
    await shot(page, "01-signed-out");
    await page.click("#signin-link");
    await page.waitForURL((url) => url.origin === stack.authOrigin && url.pathname === "/signin");
    const owner = generateSigningWif(undefined, "p2wpkh");
    await diagnosed(page, stack.logFile, () => signInWithBitcoin(page, fleetOrigin, owner));
    await expect.poll(() => page.textContent("#signed-in-as")).toContain(owner.address);
    await shot(page, "02-projects");

    // Projects: create, then rename from the overview.
    await page.fill("#project-name", "Dashboard fleet");
    await page.click("#project-create");
    await page.waitForSelector("#screen-overview");
    const projectId = /#\/p\/(proj_[0-9a-f]+)\//.exec(page.url())?.[1] ?? "";
    expect(projectId).toMatch(/^proj_/);
    await page.fill("#screen-overview input[name=name]", "Dashboard fleet (renamed)");
    await page.click("#rename");
    await expect.poll(() => page.textContent("h2")).toContain("Dashboard fleet (renamed)");
    // Where its registry database is (issue 31): one place in this stack, so the create form offered no choice.
    await expect.poll(() => visible(page, "#screen-overview .details")).toMatch(/Location\s+default/);
    await shot(page, "03-overview");
    const project = `${dashboard}#/p/${projectId}`;
    // Its log made public from the overview (issue 48): the box stays checked once the page reloads the project, and
    // anyone then reads the checkpoint without a credential.
    const anonymousCheckpoint = () => fetch(`${fleetOrigin}/api/log/${projectId}/checkpoint`).then((r) => r.status);
    expect(await anonymousCheckpoint()).toBe(401);
    await page.check("#log-public");
    await expect.poll(anonymousCheckpoint).toBe(200);
    await expect.poll(() => page.isChecked("#log-public")).toBe(true);

    // Members: invite, change the role, and the last owner refused a demotion with its reason.
    await page.goto(`${project}/members`);
    const member = generateSigningWif(undefined, "p2wpkh").address;
    await page.fill("#invite-address", member);
    await page.selectOption("#invite-role", "member");
    await page.click("#invite");
    await page.waitForSelector(`select[data-member="${member}"]`);
    await page.selectOption(`select[data-member="${member}"]`, "admin");
    await page.click(`button[data-save="${member}"]`);
    await expect.poll(() => page.textContent("#member-status")).toContain(`${member} is now admin`);
    await expect.poll(() => page.inputValue(`select[data-member="${member}"]`)).toBe("admin");
    await page.selectOption(`select[data-member="${owner.address}"]`, "admin");
    await page.click(`button[data-save="${owner.address}"]`);
    await expect.poll(() => reasonIn(page, "#member-status")).toBe("last_owner_cannot_demote");
    await shot(page, "04-members");

    // Tokens: the secret is shown once; a reload shows the token without it. A second token is revoked.
    await page.goto(`${project}/tokens`);
    await page.fill("#token-name", "ci");
    await page.click("#token-create");
    const secret = await page.locator("#token-secret input.secret").inputValue();
    /** What an agent's tool does with the token: register an envelope over the API. */
    const registerWithToken = (kind: "delegations" | "pledges", envelope: unknown) =>
      fetch(`${fleetOrigin}/api/${kind}`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ project_id: projectId, envelope }),
      });
    expect(secret).toMatch(/^ock_[0-9a-f]{64}$/);
    await shot(page, "05-token-secret-once");
    await page.reload();
    await page.waitForSelector("#token-list table");
    expect(await page.locator("#token-secret").textContent()).toBe("");
    expect(await page.content()).not.toContain(secret);
    await expect.poll(() => page.textContent("#token-list")).toContain(`ock_…${secret.slice(-4)}`);
    await page.fill("#token-name", "old");
    await page.click("#token-create");
    await page.waitForSelector('button[data-token="old"][data-action="revoke"]');
    await page.click('button[data-token="old"][data-action="revoke"]');
    await page.waitForSelector('button[data-token="old"][data-action="restore"]');
    await shot(page, "06-tokens-after-reload");
    // A restore is a new secret, shown once like a new token's (issue 26); the revoked one stays dead.
    await page.click('button[data-token="old"][data-action="restore"]');
    await page.locator("#token-secret h4", { hasText: "New secret of old" }).waitFor();
    const renewed = await page.locator("#token-secret input.secret").inputValue();
    expect(renewed).toMatch(/^ock_[0-9a-f]{64}$/);
    expect(renewed).not.toBe(secret);
    await page.waitForSelector('button[data-token="old"][data-action="revoke"]');

    // Webhooks: one endpoint that accepts, one that fails; each secret shown once and handed to the receiver.
    await page.goto(`${project}/webhooks`);
    for (const name of ["/ok/dashboard", "/fail/dashboard"]) {
      await page.fill("#endpoint-url", `${receiver.url}${name}`);
      await page.click("#endpoint-create");
      await page.locator("#endpoint-secret h4", { hasText: name }).waitFor();
      const whsec = await page.locator("#endpoint-secret input.secret").inputValue();
      expect(whsec).toMatch(/^whsec_/);
      await fetch(`${receiver.url}/__admin/secret`, {
        method: "PUT",
        body: JSON.stringify({ path: name, secret: whsec }),
      });
      await expect.poll(() => page.locator("section.endpoint").count()).toBe(name.startsWith("/ok") ? 1 : 2);
    }
    await shot(page, "07-webhook-secret-once");

    // A delegation registered with the token (as an agent's tool would) is listed with its status.
    const built = await signedDelegation(owner);
    const registered = await registerWithToken("delegations", built.envelope);
    expect(registered.status).toBe(201);
    await page.goto(`${project}/envelopes`);
    const row = page.locator("#envelope-list tr", { hasText: built.id.slice(0, 12) });
    await expect.poll(() => row.textContent()).toContain("active");
    await shot(page, "08-envelopes");

    // Pledges: none yet is a sentence; one registered with the token is listed with its swearer, state and expiry,
    // its id shortened with the whole id in the title; a state filter with no match says so.
    await page.goto(`${project}/pledges`);
    await expect.poll(() => visible(page, "#pledge-list")).toContain("No pledges are registered in this project yet.");
    const swearer = newWallet();
    const sworn = await pledge(swearer, newWallet());
    const pledged = await registerWithToken("pledges", sworn.envelope);
    expect(pledged.status).toBe(201);
    await page.click("#pledge-apply");
    const pledgeRow = page.locator("#pledge-list tbody tr", { hasText: sworn.id.slice(0, 12) });
    await pledgeRow.waitFor();
    const cells = await pledgeRow.locator("td").allInnerTexts();
    expect(cells.slice(0, 4)).toEqual([
      `${sworn.id.slice(0, 12)}…`,
      swearer.address,
      "pending",
      `${sworn.envelope.expires_at.replace("T", " ").slice(0, 19)} UTC`,
    ]);
    expect(await pledgeRow.locator("code[title]").getAttribute("title")).toBe(sworn.id);
    const listed = await visible(page, "#pledge-list");
    expect(listed).not.toMatch(LEAKS);
    expect(listed).not.toContain("No pledges");
    await shot(page, "08b-pledges");
    // On a phone the list fits: neither the page nor the table's own box scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    // A string, as this file is type-checked without the DOM library.
    const [pageWidth, tableWidth, boxWidth] = (await page.evaluate(
      `(() => { const box = document.querySelector("#pledge-list .table-scroll");
        return [document.documentElement.scrollWidth, box.scrollWidth, box.clientWidth]; })()`,
    )) as [number, number, number];
    expect(pageWidth).toBeLessThanOrEqual(390);
    expect(tableWidth).toBeLessThanOrEqual(boxWidth);
    await shot(page, "08c-pledges-390");
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.selectOption("#pledge-filter", "kept");
    await page.click("#pledge-apply");
    await expect.poll(() => visible(page, "#pledge-list")).toContain("No pledges in this project are kept.");
    expect(await visible(page, "#screen-pledges")).not.toMatch(LEAKS);

    // Deliveries inline: succeeded at /ok; pending http_500 at /fail, retried by hand.
    await page.goto(`${project}/webhooks`);
    const okCard = page.locator("section.endpoint", { hasText: "/ok/dashboard" });
    const failCard = page.locator("section.endpoint", { hasText: "/fail/dashboard" });
    const refreshed = async (card: typeof okCard) => {
      await card.getByRole("button", { name: "Refresh deliveries" }).click();
      return card.locator(".deliveries tbody").textContent();
    };
    await expect.poll(() => refreshed(okCard), { timeout: 30_000 }).toContain("succeeded");
    await expect.poll(() => refreshed(failCard), { timeout: 30_000 }).toContain("http_500");
    expect((await received("/ok/dashboard"))[0]).toMatchObject({ serviceOk: true, standardOk: true });
    await failCard.locator("button[data-retry]").first().click();
    await expect.poll(() => failCard.locator(":scope > .notice").textContent()).toContain("Retried: attempt 2");
    // The attempt failed again: the outcome is amber (pending), not a green success.
    expect(await failCard.locator(":scope > .notice").getAttribute("class")).toBe("notice warn");
    const manual = (await received("/fail/dashboard")).filter((r) => r.headers["x-service-manual-retry"] === "true");
    expect(manual).toHaveLength(1);
    await shot(page, "09-webhook-deliveries");

    // Paused, an endpoint misses what is registered meanwhile; resumed, its card offers to recover it (issue 26).
    await okCard.getByRole("button", { name: "Pause" }).click();
    await expect.poll(() => visible(page, "#endpoint-status")).toContain("Paused.");
    const missed = await signedDelegation(owner);
    const whilePaused = await registerWithToken("delegations", missed.envelope);
    expect(whilePaused.status).toBe(201);
    await okCard.getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => visible(page, "#endpoint-status")).toContain("Resumed.");
    expect((await received("/ok/dashboard")).some((r) => r.body.includes(missed.id))).toBe(false);
    await okCard.getByRole("button", { name: "Recover events since the pause" }).click();
    await expect
      .poll(() => okCard.locator(":scope > .notice").textContent())
      .toContain("Queued 1 event registered since the pause.");
    await expect
      .poll(async () => (await received("/ok/dashboard")).filter((r) => r.body.includes(missed.id)).length, {
        timeout: 30_000,
      })
      .toBe(1);
    await shot(page, "09b-webhook-recovered");

    // Audit export: the ndjson bundle downloads, holds the delegations (then the pledge) and ends with the signed
    // manifest.
    await page.goto(`${project}/audit`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click('a[data-format="ndjson"]')]);
    const saved = path.join(artifacts, "audit-bundle.ndjson");
    await download.saveAs(saved);
    const lines = readFileSync(saved, "utf8").trim().split("\n");
    expect(lines[0]).toContain(built.id);
    expect(lines[1]).toContain(missed.id);
    expect(lines[2]).toContain(sworn.id);
    expect(JSON.parse(lines[lines.length - 1] ?? "{}")).toHaveProperty("manifest.total", 3);
    await expect
      .poll(async () => {
        await page.click("#bundles-refresh");
        return page.textContent("#bundle-list tbody");
      })
      .toContain("ndjson");
    await shot(page, "10-audit-export");

    // Admin log: every privilege change so far, newest first, and a filter.
    await page.goto(`${project}/log`);
    await page.waitForSelector("#log-entries table");
    const types = await page.locator("#log-entries .event-type").allTextContents();
    for (const type of ["project.renamed", "member.created", "member.updated", "token.created", "token.updated"]) {
      expect(types).toContain(type);
    }
    expect(types.filter((t) => t === "webhook_endpoint.created")).toHaveLength(2);
    await shot(page, "11-admin-log");
    await page.selectOption("#log-filter", "token.created");
    await page.click("#log-apply");
    await expect
      .poll(async () => [...new Set(await page.locator("#log-entries .event-type").allTextContents())])
      .toEqual(["token.created"]);

    // Billing: the community plan; with no card processor configured, checkout shows the server's reason.
    await page.goto(`${project}/billing`);
    await expect.poll(() => page.textContent("#billing-plan")).toBe("community");
    await page.click("#checkout-card");
    await expect.poll(() => reasonIn(page, "#billing-status")).toBe("card_processor_not_configured");
    await shot(page, "12-billing");
    // A processor sends the buyer back to /dashboard/?project=…&billing=…: this project's billing, with a notice.
    await page.goto(`${dashboard}?project=${projectId}&billing=cancelled`);
    await expect.poll(() => page.textContent("#billing-return")).toContain("cancelled");

    // Archived: read-only, so no view offers a form; the overview says so instead.
    await page.goto(`${project}/overview`);
    await page.click("#archive");
    await page.locator("h2 .badge", { hasText: "archived" }).waitFor();
    for (const view of ["overview", "members", "tokens", "webhooks"]) {
      await page.goto(`${project}/${view}`);
      await page.locator(`#screen-${view} .read-only`).first().waitFor();
      expect(await page.locator(`#screen-${view} form`).count()).toBe(0);
    }
    await context.close();
  }, 180_000);
});
