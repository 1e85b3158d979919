// The browser sweep: every page of both hosts, signed out and signed in, at a desktop and a phone width, checked for
// what a person sees: no "[object", "undefined", "NaN" or a standalone "null" in the visible text, no sideways
// scrolling, no console error, no failed load of the page's own files, and no serious or critical accessibility
// violation (axe-core, WCAG 2.1 AA; a scrolling region a keyboard cannot reach is one). The pages come from the hosts themselves
// (each GET route whose OpenAPI description answers HTML), plus the dashboard and each of its views (its own VIEWS
// list), so a new page or view is swept without editing this file. Screenshots of the signed-in dashboard go to
// docs/screenshots/ (referenced from README.md).
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { inLanes } from "../../scripts/lib/lanes.mjs";
import { generateSigningWif } from "../../scripts/wif.mjs";
import { VIEWS } from "../../workers/fleet/dashboard/src/views";
import { axeViolations } from "../harness/axe";
import { browserSession, diagnosed, onceMore, pageCall, signInFromDashboard } from "../harness/browser-session";
import { signedDelegation } from "../harness/signed-delegation";
import { pledge } from "../helpers/envelopes";
import { newWallet } from "../helpers/wallet";

const WIDTHS = [1280, 390] as const;
/** Pages the sweep has open at once. */
const SWEEP_TABS = 2;
const HEIGHT = 844;
const screenshots = path.join(import.meta.dirname, "../..", "docs", "screenshots");
/** Words that mean a value reached the page unconverted. */
const LEAKS = /\[object|undefined|NaN|(?<![\w-])null(?![\w-])/;
/** The same on the API explorer, whose schemas name JSON's own types: `null` there is one (`object | null`). */
const EXPLORER_LEAKS = /\[object|undefined|NaN/;
const leaksOn = (url: string) => (new URL(url).pathname === "/api-explorer" ? EXPLORER_LEAKS : LEAKS);

/**
 * Problems on pages this sweep's branch may not change, each with why: reported on the console, not failed. Remove
 * an entry when its page is fixed.
 */
const OWNED_ELSEWHERE: readonly { url: RegExp; problem: RegExp; why: string }[] = [];

const knownOf = (url: string, problem: string) =>
  OWNED_ELSEWHERE.find((k) => k.url.test(url) && k.problem.test(problem));

// Ports of its own: the dashboard test runs just before it, and npm start refuses a port still held.
const session = browserSession({
  auth: 8837,
  fleet: 8838,
  authInspector: 9259,
  fleetInspector: 9260,
  stateDir: ".build/e2e-pages-state",
  env: { STRIPE_SECRET_KEY: "" },
});

/**
 * The host's HTML pages: GET routes without path or required query parameters whose 200 answer is text/html, from its
 * OpenAPI document. A page that needs parameters (the OpenID consent page: an app's request) is swept by its own test
 * with them (test/e2e/oidc-sign-in.node.test.ts).
 */
async function htmlPages(origin: string): Promise<string[]> {
  type Operation = {
    parameters?: { in: string; required?: boolean }[];
    responses?: Record<string, { content?: Record<string, unknown> }>;
  };
  const doc = (await (await fetch(`${origin}/api/openapi`)).json()) as { paths: Record<string, { get?: Operation }> };
  const needsQuery = (op: Operation | undefined) =>
    op?.parameters?.some((p) => p.in === "query" && p.required) ?? false;
  return Object.entries(doc.paths)
    .filter(([route, item]) => !route.includes("{") && !needsQuery(item.get))
    .filter(([, item]) => item.get?.responses?.["200"]?.content?.["text/html"])
    .map(([route]) => `${origin}${route}`);
}

/** Every page of both hosts: the described HTML routes, the dashboard's project list and each of its views. */
async function allPages(projectId: string): Promise<string[]> {
  const dashboard = `${session.stack.fleetOrigin}/dashboard/`;
  return [
    ...(await htmlPages(session.stack.authOrigin)),
    ...(await htmlPages(session.stack.fleetOrigin)),
    dashboard,
    ...VIEWS.map((view) => `${dashboard}#/p/${projectId}/${view.id}`),
  ];
}

/** Opens `url` in a fresh tab at `width` and returns what a person would be shown that is wrong. */
async function problemsOf(context: BrowserContext, url: string, width: number): Promise<string[]> {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: HEIGHT });
  const { origin } = new URL(url);
  const problems: string[] = [];
  // API calls answer 4xx by design (signed out, /api/auth/me is 401); the browser logs those as console errors too.
  const apiCalls = new Set<string>();
  page.on("request", (req) => {
    if (["fetch", "xhr"].includes(req.resourceType())) apiCalls.add(req.url());
  });
  page.on("console", (msg) => {
    if (msg.type() === "error" && !apiCalls.has(msg.location().url)) problems.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("requestfailed", (req) => {
    if (req.url().startsWith(origin)) problems.push(`failed: ${req.url()} ${req.failure()?.errorText}`);
  });
  page.on("response", (res) => {
    const own = res.url().startsWith(origin) && !apiCalls.has(res.url());
    if (own && res.status() >= 400) problems.push(`${res.status()}: ${res.url()}`);
  });
  try {
    await diagnosed(page, session.stack.logFile, () => page.goto(url, { waitUntil: "networkidle", timeout: 30_000 }));
  } catch (err) {
    await page.close();
    throw err;
  }
  // innerText, not textContent: the text as rendered (hidden elements and closed <details> left out). A string, as
  // this file is type-checked without the DOM library.
  const seen = (await page.evaluate(
    `({
      text: document.body.innerText,
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth,
      widest: [...document.body.querySelectorAll("*")]
        .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5 || e.scrollWidth > e.clientWidth + 1)
        .slice(-1)
        .map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : ""))
        .join(""),
    })`,
  )) as { text: string; scrollWidth: number; innerWidth: number; widest: string };
  const leak = leaksOn(url).exec(seen.text);
  if (leak) problems.push(`text: …${seen.text.slice(Math.max(0, leak.index - 40), leak.index + 40)}…`);
  if (seen.scrollWidth > seen.innerWidth) {
    problems.push(
      `overflow: ${seen.scrollWidth} px wide in ${seen.innerWidth} (${seen.widest || "?"} reaches past it)`,
    );
  }
  problems.push(...(await axeViolations(page)));
  await page.close();
  return problems;
}

/** A project with something in each view: a member, a token, a webhook endpoint with a delivery, a delegation, a
 * pledge, an audit bundle and the admin log entries those leave. */
async function projectWithData(page: Page, owner: { wif: string; address: string }): Promise<string> {
  const { project } = await pageCall<{ project: { id: string } }>(page, "POST", "/api/projects", {
    name: "Sweep fleet",
  });
  const member = generateSigningWif(undefined, "p2wpkh").address;
  await pageCall(page, "POST", `/api/projects/${project.id}/members`, { address: member, role: "member" });
  const { secret } = await pageCall<{ secret: string }>(page, "POST", "/api/tokens", {
    project_id: project.id,
    name: "ci",
  });
  const { endpoint } = await pageCall<{ endpoint: { id: string } }>(page, "POST", "/api/webhooks/endpoints", {
    project_id: project.id,
    url: `${session.receiver.url}/ok/pages`,
    event_types: ["*"],
  });
  await pageCall(page, "POST", `/api/webhooks/endpoints/${endpoint.id}/test`);
  const built = await signedDelegation(owner);
  const registered = await fetch(`${session.stack.fleetOrigin}/api/delegations`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ project_id: project.id, envelope: built.envelope }),
  });
  expect(registered.status).toBe(201);
  const sworn = await pledge(newWallet(), newWallet());
  const pledged = await fetch(`${session.stack.fleetOrigin}/api/pledges`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ project_id: project.id, envelope: sworn.envelope }),
  });
  expect(pledged.status).toBe(201);
  await pageCall(page, "GET", `/api/audit/export?project_id=${project.id}&format=ndjson`).catch(() => undefined);
  return project.id;
}

describe("every page, as a person sees it", () => {
  it("shows no leaked value, no sideways scroll, no console error, no failed load and no serious accessibility violation, signed out and in", async () => {
    const signedOut = await session.browser.newContext();
    const signedIn = await session.browser.newContext();
    const page = await signedIn.newPage();
    const owner = await onceMore("signing in", () => signInFromDashboard(page, session.stack));
    const projectId = await projectWithData(page, owner);
    const pages = await allPages(projectId);
    expect(pages.some((url) => url.endsWith("/signin"))).toBe(true);

    const visits = (
      [
        ["signed out", signedOut],
        ["signed in", signedIn],
      ] as const
    ).flatMap(([state, context]) => WIDTHS.flatMap((width) => pages.map((url) => ({ state, context, width, url }))));
    // SWEEP_TABS visits at a time: most of a visit is waiting for the page to go network-idle.
    const found = await inLanes(visits, SWEEP_TABS, async ({ state, context, width, url }) => {
      const seen = await onceMore(`${url} at ${width} px`, () => problemsOf(context, url, width));
      return seen.map((problem) => ({ where: `${state} ${width}px ${url}`, problem, known: knownOf(url, problem) }));
    });
    const problems: string[] = [];
    for (const { where, problem, known } of found.flat()) {
      if (known) console.warn(`${where}: ${problem} (known: ${known.why})`);
      else problems.push(`${where}: ${problem}`);
    }
    expect(problems).toEqual([]);

    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: HEIGHT });
      await page.goto(`${session.stack.fleetOrigin}/dashboard/#/p/${projectId}/overview`, { waitUntil: "networkidle" });
      await page.screenshot({ path: path.join(screenshots, `dashboard-${width}.png`) });
    }
    await signedOut.close();
    await signedIn.close();
  }, 300_000);
});
