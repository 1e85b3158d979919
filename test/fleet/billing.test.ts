// Billing routes (service-spec Billing, rule 12): the plan view, card and lightning checkout against the loopback
// Stripe and BTCPay Server APIs, the customer portal, who may buy, and every config (503) and processor (502)
// reason. Webhook-driven plan changes are in billing-webhooks.test.ts.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/fleet/src/app";
import type { FleetBindings } from "../../workers/fleet/src/env";
import { billingOf, completeCardCheckout, lastSegment, planLog, postStripe } from "../helpers/billing";
import { FLEET, FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";

type Overrides = Partial<FleetBindings>;

/** A call through the app with some bindings changed (unset configuration, failing processor keys). */
async function withEnv(client: FleetClient, path: string, json: unknown, overrides: Overrides) {
  const res = await app.request(
    `${FLEET}${path}`,
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        cookie: `oc_session=${client.cookie}`,
        "sec-fetch-site": "same-origin",
        "cf-connecting-ip": client.ip,
      },
      body: JSON.stringify(json),
    },
    { ...(env as unknown as FleetBindings), ...overrides },
  );
  return { status: res.status, body: (await res.json()) as { reason?: string; detail?: string } };
}

async function paymentCount(projectId: string) {
  const row = await (await registryDb(projectId))
    .prepare("SELECT count(*) AS n FROM payments WHERE project_id = ?")
    .bind(projectId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("GET /api/billing", () => {
  it("shows a new project on community with no payments, to any member and to a token", async () => {
    const { owner, projectId } = await ownerWithProject();
    expect(await billingOf(owner, projectId)).toEqual({
      project_id: projectId,
      plan: "community",
      renews_at: null,
      expires_at: null,
      card_customer: false,
      payments: [],
    });
    const viewer = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: viewer.address, role: "viewer" });
    expect((await billingOf(viewer, projectId)).plan).toBe("community");
    const token = await owner.call<{ secret: string }>("POST", "/api/tokens", { project_id: projectId, name: "ci" });
    const bot = new FleetClient();
    bot.bearer = token.body.secret;
    expect((await billingOf(bot, projectId)).plan).toBe("community");
  });

  it("answers 404 to a signed-in outsider and 401 to nobody", async () => {
    const { projectId } = await ownerWithProject();
    const outsider = await signedIn();
    expect((await outsider.call("GET", `/api/billing?project_id=${projectId}`)).body.reason).toBe("not_found");
    const anonymous = await new FleetClient().call("GET", `/api/billing?project_id=${projectId}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.reason).toBe("unauthenticated");
  });
});

describe("POST /api/checkout/card", () => {
  it("answers the hosted checkout URL, records a pending payment and logs the checkout", async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await owner.call<{ url: string; payment_id: string }>("POST", "/api/checkout/card", {
      project_id: projectId,
      tier: "pro",
    });
    expect(res.status).toBe(200);
    expect(res.body.url.startsWith(`${env.STRIPE_API_BASE}/c/pay/cs_`)).toBe(true);
    const sent = (await (await fetch(`${env.STRIPE_API_BASE}/__admin/requests`)).json()) as {
      form: Record<string, string>;
      idempotencyKey: string;
    }[];
    const request = sent.find((r) => r.idempotencyKey === res.body.payment_id);
    expect(request?.form).toMatchObject({
      mode: "subscription",
      client_reference_id: projectId,
      "metadata[project_id]": projectId,
      "subscription_data[metadata][payment_id]": res.body.payment_id,
      "line_items[0][price_data][unit_amount]": "2900",
      "line_items[0][price_data][recurring][interval]": "month",
    });
    expect(request?.form.success_url).toBe(`http://localhost:8788/dashboard/?project=${projectId}&billing=paid`);
    const billing = await billingOf(owner, projectId);
    expect(billing.plan).toBe("community");
    expect(billing.payments).toMatchObject([
      { id: res.body.payment_id, processor: "card", status: "pending", amount: 2900, currency: "usd", paid_at: null },
    ]);
    expect(await planLog(owner, projectId, "billing.checkout_created")).toHaveLength(1);
  });

  it("refuses the enterprise tier (409 tier_not_self_serve) and unknown tiers (400 invalid_body)", async () => {
    const { owner, projectId } = await ownerWithProject();
    for (const route of ["/api/checkout/card", "/api/checkout/lightning"]) {
      const enterprise = await owner.call("POST", route, { project_id: projectId, tier: "enterprise" });
      expect(enterprise.status).toBe(409);
      expect(enterprise.body.reason).toBe("tier_not_self_serve");
      for (const body of [{ project_id: projectId, tier: "community" }, { project_id: projectId }, { tier: "pro" }]) {
        expect((await owner.call("POST", route, body)).body.reason).toBe("invalid_body");
      }
    }
    expect(await paymentCount(projectId)).toBe(0);
  });

  it("lets only a signed-in owner buy: admins and API tokens get 403 owner_required, outsiders 404", async () => {
    const { owner, projectId } = await ownerWithProject();
    const admin = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: admin.address, role: "admin" });
    const token = await owner.call<{ secret: string }>("POST", "/api/tokens", { project_id: projectId, name: "ci" });
    const bot = new FleetClient();
    bot.bearer = token.body.secret;
    const outsider = await signedIn();
    for (const route of ["/api/checkout/card", "/api/checkout/lightning", "/api/billing/portal"]) {
      const body = route === "/api/billing/portal" ? { project_id: projectId } : { project_id: projectId, tier: "pro" };
      expect((await admin.call("POST", route, body)).body.reason, route).toBe("owner_required");
      expect((await bot.call("POST", route, body)).body.reason, route).toBe("owner_required");
      expect((await outsider.call("POST", route, body)).body.reason, route).toBe("not_found");
    }
    expect(await paymentCount(projectId)).toBe(0);
  });

  it("is refused cross-site (same-origin rule)", async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await owner.fetch("/api/checkout/card", {
      method: "POST",
      headers: { "sec-fetch-site": "cross-site" },
      json: { project_id: projectId, tier: "pro" },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { reason: string }).reason).toBe("cross_site_blocked");
  });
});

describe("POST /api/checkout/lightning", () => {
  it("answers the invoice's checkout link for an amount in sats", async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await owner.call<{ url: string; invoice_id: string; amount_sats: number; payment_id: string }>(
      "POST",
      "/api/checkout/lightning",
      { project_id: projectId, tier: "pro" },
    );
    expect(res.status).toBe(200);
    expect(res.body.url).toBe(`${env.BTCPAY_URL}/i/${res.body.invoice_id}`);
    expect(res.body.amount_sats).toBe(50_000);
    const invoice = (await (
      await fetch(`${env.BTCPAY_URL}/api/v1/stores/${env.BTCPAY_STORE_ID}/invoices/${res.body.invoice_id}`, {
        headers: { authorization: `token ${env.BTCPAY_API_KEY}` },
      })
    ).json()) as {
      amount: string;
      currency: string;
      metadata: Record<string, string>;
      checkout: { redirectURL: string };
    };
    expect(invoice).toMatchObject({
      amount: "50000",
      currency: "SATS",
      metadata: { orderId: res.body.payment_id, project_id: projectId, tier: "pro" },
    });
    expect(invoice.checkout.redirectURL).toBe(`http://localhost:8788/dashboard/?project=${projectId}&billing=paid`);
    expect((await billingOf(owner, projectId)).payments).toMatchObject([
      { id: res.body.payment_id, processor: "lightning", status: "pending", amount: 50_000, currency: "sats" },
    ]);
  });

  it("the local lightning checkout page offers Pay until its invoice is settled, then no more", async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await owner.call<{ url: string }>("POST", "/api/checkout/lightning", {
      project_id: projectId,
      tier: "pro",
    });
    const page = async () => (await fetch(res.body.url)).text();
    expect(await page()).toContain("<button>Pay");
    await fetch(`${res.body.url}/pay`, { method: "POST", redirect: "manual" });
    const settled = await page();
    expect(settled).toContain("Status: Settled");
    expect(settled).not.toContain("<button>Pay");
  });
});

describe("configuration and processor failures", () => {
  const card = (projectId: string) => ({ project_id: projectId, tier: "pro" });

  it("answers 503 card_processor_not_configured, lightning_processor_not_configured, checkout_not_configured", async () => {
    const { owner, projectId } = await ownerWithProject();
    const cases: [string, Overrides, string][] = [
      ["/api/checkout/card", { STRIPE_SECRET_KEY: undefined }, "card_processor_not_configured"],
      ["/api/checkout/card", { FLEET_ORIGIN: undefined }, "checkout_not_configured"],
      ["/api/checkout/lightning", { BTCPAY_URL: undefined }, "lightning_processor_not_configured"],
      ["/api/checkout/lightning", { BTCPAY_WEBHOOK_SECRET: undefined }, "lightning_processor_not_configured"],
      ["/api/checkout/lightning", { FLEET_ORIGIN: undefined }, "checkout_not_configured"],
    ];
    for (const [route, overrides, reason] of cases) {
      const res = await withEnv(owner, route, card(projectId), overrides);
      expect(res.status, reason).toBe(503);
      expect(res.body.reason).toBe(reason);
    }
    expect(await paymentCount(projectId)).toBe(0);
  });

  it("answers 502 for each way a processor fails, and stores nothing", async () => {
    const { owner, projectId } = await ownerWithProject();
    const closed = "http://127.0.0.1:9";
    const cases: [string, Overrides, string][] = [
      ["/api/checkout/card", { STRIPE_SECRET_KEY: `${env.STRIPE_SECRET_KEY}_fail_error` }, "card_processor_error"],
      ["/api/checkout/card", { STRIPE_API_BASE: closed }, "card_processor_error"],
      ["/api/checkout/card", { STRIPE_SECRET_KEY: `${env.STRIPE_SECRET_KEY}_fail_no_url` }, "card_processor_no_url"],
      ["/api/checkout/lightning", { BTCPAY_API_KEY: `${env.BTCPAY_API_KEY}-fail-error` }, "lightning_processor_error"],
      [
        "/api/checkout/lightning",
        { BTCPAY_API_KEY: `${env.BTCPAY_API_KEY}-fail-no-link` },
        "lightning_processor_error",
      ],
      ["/api/checkout/lightning", { BTCPAY_URL: closed }, "lightning_processor_fetch_error"],
    ];
    for (const [route, overrides, reason] of cases) {
      const res = await withEnv(owner, route, card(projectId), overrides);
      expect(res.status, `${route} ${JSON.stringify(overrides)}`).toBe(502);
      expect(res.body.reason).toBe(reason);
    }
    // card_processor_error carries the processor's own words in its detail (service-spec: "see detail").
    const declined = await withEnv(owner, "/api/checkout/card", card(projectId), {
      STRIPE_SECRET_KEY: `${env.STRIPE_SECRET_KEY}_fail_error`,
    });
    expect(declined.body.detail).toBe("Your account cannot currently make live charges.");
    expect(await paymentCount(projectId)).toBe(0);
  });
});

describe("POST /api/billing/portal", () => {
  it("needs a prior card payment: 503 no_card_processor_customer before, a 303 to the portal after", async () => {
    const { owner, projectId } = await ownerWithProject();
    const before = await owner.call("POST", "/api/billing/portal", { project_id: projectId });
    expect(before.status).toBe(503);
    expect(before.body.reason).toBe("no_card_processor_customer");

    const checkout = await owner.call<{ url: string }>("POST", "/api/checkout/card", {
      project_id: projectId,
      tier: "pro",
    });
    for (const event of await completeCardCheckout(checkout.body.url))
      expect((await postStripe(event)).status).toBe(200);
    expect((await billingOf(owner, projectId)).card_customer).toBe(true);

    const redirect = await owner.fetch("/api/billing/portal", {
      method: "POST",
      json: { project_id: projectId },
      redirect: "manual",
    });
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get("location")?.startsWith(`${env.STRIPE_API_BASE}/p/session/`)).toBe(true);
    const asJson = await owner.fetch("/api/billing/portal", {
      method: "POST",
      headers: { accept: "application/json" },
      json: { project_id: projectId },
    });
    expect(asJson.status).toBe(200);
    const { url } = (await asJson.json()) as { url: string };
    expect(url.startsWith(`${env.STRIPE_API_BASE}/p/session/`)).toBe(true);
    // The local processor's portal is a page that leads back to this project's billing view.
    const portal = await fetch(url);
    expect(portal.status).toBe(200);
    expect(await portal.text()).toContain(
      `href="http://localhost:8788/dashboard/?project=${projectId}&amp;billing=portal"`,
    );
    expect(lastSegment(checkout.body.url).startsWith("cs_")).toBe(true);
  });

  it("answers 503 card_processor_not_configured without a card processor", async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await withEnv(
      owner,
      "/api/billing/portal",
      { project_id: projectId },
      { STRIPE_SECRET_KEY: undefined },
    );
    expect(res.status).toBe(503);
    expect(res.body.reason).toBe("card_processor_not_configured");
  });
});
