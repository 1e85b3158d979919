// The dashboard's charts in a real browser (issue 30), against the whole stack as `npm start` runs it: a new
// project's empty states say what will appear; a busy one's overview opens with its activity charts and a health
// line per webhook endpoint, and each endpoint's card has its delivery chart, at 1280 and 390 px: drawn by uPlot
// with the window's number of points, the same numbers as text, nothing wider than the screen, no console error.
// Screenshots go to docs/screenshots/ (the README's dashboard section shows them).
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserSession, pageCall, pageErrors, signInFromDashboard } from "../harness/browser-session";
import { signedDelegation } from "../harness/signed-delegation";
import { pledge } from "../helpers/envelopes";
import { newWallet } from "../helpers/wallet";

const screenshots = path.join(import.meta.dirname, "../..", "docs", "screenshots");
const WIDTHS = [1280, 390] as const;

const session = browserSession({
  auth: 8887,
  fleet: 8888,
  authInspector: 9317,
  fleetInspector: 9318,
  stateDir: ".build/e2e-charts-state",
  env: { STRIPE_SECRET_KEY: "" },
});

/** A string, as this file is type-checked without the DOM library. */
const WIDTH_CHECK = `(() => ({
  page: document.documentElement.scrollWidth,
  canvases: [...document.querySelectorAll(".chart canvas")].map((c) => c.getBoundingClientRect().right),
  inner: innerWidth,
}))()`;

async function fitsWidth(page: Page, width: number) {
  const seen = (await page.evaluate(WIDTH_CHECK)) as { page: number; canvases: number[]; inner: number };
  expect(seen.inner).toBe(width);
  expect(seen.page).toBeLessThanOrEqual(width);
  for (const right of seen.canvases) expect(right).toBeLessThanOrEqual(width);
}

/** A drawn chart: uPlot's point count, the caption, and the numbers table's rows. */
async function drawn(page: Page, id: string) {
  const figure = page.locator(`figure#${id}[data-drawn]`);
  await figure.waitFor();
  expect(await figure.getAttribute("aria-labelledby")).toBe(`${id}-caption`);
  expect(await figure.locator(".chart-canvas").getAttribute("aria-hidden")).toBe("true");
  expect(await figure.locator("canvas").count()).toBeGreaterThan(0);
  return {
    points: Number(await figure.getAttribute("data-points")),
    caption: (await figure.locator("figcaption").innerText()).replace(/\s+/g, " "),
    rows: await figure.locator(".numbers tbody tr").count(),
  };
}

describe("dashboard charts", () => {
  it("empty states, then activity, health lines and delivery charts at 1280 and 390 px", async () => {
    const { stack, receiver, browser } = session;
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = pageErrors(page);
    const owner = await signInFromDashboard(page, stack);
    const dashboard = `${stack.fleetOrigin}/dashboard/`;

    // A new project: nothing to chart yet, and each empty state says what will appear there.
    const empty = await pageCall<{ project: { id: string } }>(page, "POST", "/api/projects", { name: "Quiet" });
    await page.goto(`${dashboard}#/p/${empty.project.id}/overview`);
    await page.locator("#activity-empty").waitFor();
    expect(await page.locator("#activity-empty").innerText()).toContain(
      "No registrations in the last 24 hours. Each envelope this project registers appears here",
    );
    expect(await page.locator("#refusals-empty").innerText()).toContain("No request was refused");
    expect(await page.locator("#webhook-health").innerText()).toContain("No webhook endpoints. Add one under Webhooks");
    await page.setViewportSize({ width: 390, height: 844 });
    await fitsWidth(page, 390);
    await page.screenshot({ path: path.join(screenshots, "dashboard-activity-empty-390.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // A busy project: two endpoints (one accepts, one fails), three delegations and a pledge from its token.
    const { project } = await pageCall<{ project: { id: string } }>(page, "POST", "/api/projects", { name: "Busy" });
    const endpointIds: Record<string, string> = {};
    for (const name of ["ok", "fail"]) {
      const made = await pageCall<{ endpoint: { id: string } }>(page, "POST", "/api/webhooks/endpoints", {
        project_id: project.id,
        url: `${receiver.url}/${name}/charts`,
        event_types: ["*"],
      });
      endpointIds[name] = made.endpoint.id;
    }
    const { secret } = await pageCall<{ secret: string }>(page, "POST", "/api/tokens", {
      project_id: project.id,
      name: "agent",
    });
    const register = async (kind: string, envelope: unknown) => {
      const res = await fetch(`${stack.fleetOrigin}/api/${kind}`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ project_id: project.id, envelope }),
      });
      expect(res.status).toBe(201);
    };
    for (let i = 0; i < 3; i++) await register("delegations", (await signedDelegation(owner)).envelope);
    await register("pledges", (await pledge(newWallet(), newWallet())).envelope);

    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 844 });
      // The overview: counted once the log's checkpoint covers the leaves (its integrator runs within a second).
      await expect
        .poll(
          async () => {
            await page.goto(`${dashboard}#/p/${project.id}/overview`);
            await page.reload();
            await page.locator("#activity section, #activity .empty, #activity figure").first().waitFor();
            return page.locator("#chart-registrations").count();
          },
          { timeout: 20_000 },
        )
        .toBe(1);
      const registrations = await drawn(page, "chart-registrations");
      expect(registrations).toMatchObject({ points: 24, rows: 24 });
      expect(registrations.caption).toContain("4 registrations in the last 24 hours (delegation 3, pledge 1)");
      const logSize = await drawn(page, "chart-log-size");
      expect(logSize).toMatchObject({ points: 24, rows: 24 });
      expect(logSize.caption).toContain("holds 4 leaves");
      // A health line per endpoint, its state in words beside its colour, the failing one with its reason.
      await expect
        .poll(() => page.locator(`#webhook-health li[data-endpoint="${endpointIds.fail}"]`).innerText(), {
          timeout: 20_000,
        })
        .toMatch(/^failing .*http_500/);
      expect(await page.locator(`#webhook-health li[data-endpoint="${endpointIds.ok}"]`).innerText()).toMatch(
        /^healthy .* 24 h: [1-9]\d* succeeded, 0 retried, 0 failed/,
      );
      await fitsWidth(page, width);
      await page.screenshot({ path: path.join(screenshots, `dashboard-activity-${width}.png`), fullPage: true });
      // Another window: the same charts by the day.
      await page.selectOption("#activity-window", "7d");
      await page.locator("#chart-registrations[data-points='7']").waitFor();
      expect((await drawn(page, "chart-registrations")).rows).toBe(7);

      // The webhooks view: each endpoint's card has its delivery chart and health.
      await page.goto(`${dashboard}#/p/${project.id}/webhooks`);
      const okChart = await drawn(page, `chart-deliveries-${endpointIds.ok}`);
      expect(okChart).toMatchObject({ points: 24, rows: 24 });
      expect(okChart.caption).toMatch(
        /[1-9]\d* succeeded, 0 retried and 0 failed in the last 24 hours; latency p50 ≤ /,
      );
      const failChart = await drawn(page, `chart-deliveries-${endpointIds.fail}`);
      expect(failChart.caption).toMatch(/0 succeeded, [1-9]\d* retried and 0 failed/);
      expect(
        await page.locator(`section.endpoint[data-endpoint="${endpointIds.fail}"] .endpoint-stats .health`).innerText(),
      ).toMatch(/failing · last failure http_500/);
      await fitsWidth(page, width);
      await page.screenshot({ path: path.join(screenshots, `dashboard-deliveries-${width}.png`), fullPage: true });
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);
});
