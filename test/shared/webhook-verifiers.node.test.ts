// Deliveries verify with the stock receivers unchanged (DECISIONS 15): @octokit/webhooks-methods for
// X-Service-Signature and standardwebhooks for webhook-*. Node only: both are Node packages.
import { verify as verifyGithubStyle } from "@octokit/webhooks-methods";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { type DeliveryInput, deliveryHeaders, newWebhookSecret } from "../../shared/webhooks";

const BODY = '{"id":"act_1","project_id":"proj_1","kind":"agent-action","envelope":{"note":"naïve ✓"}}';

function input(overrides: Partial<DeliveryInput> = {}): DeliveryInput {
  return {
    secret: newWebhookSecret(),
    body: BODY,
    eventType: "action.registered",
    deliveryId: "dlv_1.1",
    idempotencyKey: "whk_00112233445566778899aabbccddeeff",
    attempt: 1,
    manual: false,
    now: Date.now(),
    ...overrides,
  };
}

describe("stock verifiers accept our deliveries", () => {
  it("@octokit/webhooks-methods verifies X-Service-Signature with the whole whsec_ secret", async () => {
    const i = input();
    const h = await deliveryHeaders(i);
    expect(await verifyGithubStyle(i.secret, BODY, h["X-Service-Signature"] ?? "")).toBe(true);
  });

  it("standardwebhooks verifies webhook-* (it base64-decodes the part after whsec_)", async () => {
    const i = input();
    const h = await deliveryHeaders(i);
    expect(new Webhook(i.secret).verify(BODY, h)).toEqual(JSON.parse(BODY));
  });

  it("a tampered body fails both", async () => {
    const i = input();
    const h = await deliveryHeaders(i);
    const tampered = BODY.replace("act_1", "act_2");
    expect(await verifyGithubStyle(i.secret, tampered, h["X-Service-Signature"] ?? "")).toBe(false);
    expect(() => new Webhook(i.secret).verify(tampered, h)).toThrow(WebhookVerificationError);
  });

  it("another endpoint's secret fails both", async () => {
    const i = input();
    const h = await deliveryHeaders(i);
    const other = newWebhookSecret();
    expect(await verifyGithubStyle(other, BODY, h["X-Service-Signature"] ?? "")).toBe(false);
    expect(() => new Webhook(other).verify(BODY, h)).toThrow(/No matching signature/);
  });

  it("a webhook-timestamp older than 5 minutes fails Standard Webhooks (why each attempt is signed at send time)", async () => {
    const i = input({ now: Date.now() - 6 * 60_000 });
    const h = await deliveryHeaders(i);
    expect(() => new Webhook(i.secret).verify(BODY, h)).toThrow(/too old/);
    expect(await verifyGithubStyle(i.secret, BODY, h["X-Service-Signature"] ?? "")).toBe(true);
  });

  it("retries keep the idempotency key as webhook-id, each freshly signed and verifiable", async () => {
    const secret = newWebhookSecret();
    const now = Date.now();
    const first = await deliveryHeaders(input({ secret, now: now - 60_000 }));
    const retry = await deliveryHeaders(input({ secret, attempt: 2, deliveryId: "dlv_1.2", now }));
    const manual = await deliveryHeaders(input({ secret, attempt: 3, manual: true, deliveryId: "dlv_1.3", now }));
    expect(retry["webhook-id"]).toBe(first["webhook-id"]);
    expect(manual["webhook-id"]).toBe(first["webhook-id"]);
    expect(retry["webhook-id"]).toBe(retry["X-Service-Idempotency-Key"]);
    for (const h of [first, retry, manual]) {
      expect(new Webhook(secret).verify(BODY, h)).toEqual(JSON.parse(BODY));
      expect(await verifyGithubStyle(secret, BODY, h["X-Service-Signature"] ?? "")).toBe(true);
    }
  });
});
