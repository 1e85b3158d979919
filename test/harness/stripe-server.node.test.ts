// The local card processor (stripe-server.mjs, which `npm run fakes` and `npm run demo` serve): the URL of a customer
// portal session is a page, not a 404, and it leads back to the return_url the session was created with.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripe } from "./stripe-server.mjs";

let stripe: Awaited<ReturnType<typeof startStripe>>;
beforeAll(async () => {
  stripe = await startStripe();
});
afterAll(() => stripe.close());

/** A form-encoded call of the processor's API, as the fleet makes it (shared/billing/stripe.ts). */
async function post<T>(path: string, form: Record<string, string>): Promise<T> {
  const res = await fetch(`${stripe.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${stripe.secretKey}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

/** A customer, as a completed card checkout makes one. */
async function customer(): Promise<string> {
  const session = await post<{ id: string }>("/v1/checkout/sessions", {
    mode: "subscription",
    success_url: "http://localhost:8788/dashboard/?billing=paid",
    "line_items[0][price_data][unit_amount]": "900",
    "line_items[0][price_data][currency]": "usd",
  });
  const res = await fetch(`${stripe.url}/__admin/complete/${session.id}`, { method: "POST" });
  const { events } = (await res.json()) as { events: { type: string; body: string }[] };
  const completed = events.find((e) => e.type === "checkout.session.completed");
  return (JSON.parse(completed?.body ?? "{}") as { data: { object: { customer: string } } }).data.object.customer;
}

describe("the local card processor's customer portal", () => {
  it("serves the portal session's URL: a stand-in page linking back to the session's return_url", async () => {
    // The fleet's return_url (workers/fleet/src/billing/buyer.ts): its `&` must come back as the same link.
    const returnUrl = "http://localhost:8788/dashboard/?project=proj_0123456789abcdef01234567&billing=portal";
    const portal = await post<{ url: string; return_url: string }>("/v1/billing_portal/sessions", {
      customer: await customer(),
      return_url: returnUrl,
    });
    expect(portal.url.startsWith(`${stripe.url}/p/session/`)).toBe(true);
    expect(portal.return_url).toBe(returnUrl);

    const page = await fetch(portal.url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain("local card processor's stand-in for the customer portal");
    const href = /<a id="return" href="([^"]*)"/.exec(html)?.[1]?.replaceAll("&amp;", "&");
    expect(href).toBe(returnUrl);
  });

  it("answers 404 for a portal session it never made", async () => {
    expect((await fetch(`${stripe.url}/p/session/ps_test_0000000000000000`)).status).toBe(404);
  });
});
