// Webhook secrets (form, sealing under WEBHOOK_MASTER_KEY) and delivery headers and signatures (WH-01, WH-02, WH-04).
import { base64, hex } from "@scure/base";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../shared/crypto/digest";
import { AppError } from "../../shared/errors";
import {
  type DeliveryInput,
  deliveryHeaders,
  newWebhookSecret,
  openSecret,
  sealSecret,
  secretKeyBytes,
  verifyServiceSignature,
  verifyStandardSignature,
} from "../../shared/webhooks";

const MASTER = "correct horse battery staple, 32+";
const NOW = Date.UTC(2026, 4, 1, 12, 0, 0);
const BODY = '{"id":"act_1","project_id":"proj_1","kind":"agent-action","envelope":{"b":1,"a":"ü"}}';

function input(overrides: Partial<DeliveryInput> = {}): DeliveryInput {
  return {
    secret: newWebhookSecret(),
    body: BODY,
    eventType: "action.registered",
    deliveryId: "dlv_1.1",
    idempotencyKey: "whk_0123456789abcdef",
    attempt: 1,
    manual: false,
    now: NOW,
    ...overrides,
  };
}

async function rejectsWith(promise: Promise<unknown>, reason: string): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).reason).toBe(reason);
}

describe("webhook secret", () => {
  it("is whsec_ + base64 of 32 random bytes, fresh each time", () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(base64.decode(a.slice(6))).toHaveLength(32);
    expect(secretKeyBytes(a)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it("refuses other forms as signing keys", () => {
    expect(() => secretKeyBytes("sk_abc")).toThrow(TypeError);
    expect(() => secretKeyBytes("whsec_not base64!")).toThrow(TypeError);
    expect(() => secretKeyBytes(`whsec_${base64.encode(new Uint8Array(16))}`)).toThrow(TypeError);
  });

  it("seals as v1.<iv>.<ciphertext> and opens with the same master key", async () => {
    const secret = newWebhookSecret();
    const sealed = await sealSecret(secret, MASTER);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(await sealSecret(secret, MASTER)).not.toBe(sealed); // random IV
    expect(await openSecret(sealed, MASTER)).toBe(secret);
  });

  it("does not open under another master key, or when altered or malformed", async () => {
    const sealed = await sealSecret(newWebhookSecret(), MASTER);
    await rejectsWith(openSecret(sealed, `${MASTER}x`), "webhook_not_configured");
    const [v, iv, data = ""] = sealed.split(".");
    const flipped = `${v}.${iv}.${data.slice(0, -2)}${data.endsWith("AA") ? "AB" : "AA"}`;
    await rejectsWith(openSecret(flipped, MASTER), "webhook_not_configured");
    await rejectsWith(openSecret(`v2.${iv}.${data}`, MASTER), "webhook_not_configured");
    await rejectsWith(openSecret("v1.short.x", MASTER), "webhook_not_configured");
  });

  it("needs a master key of at least 32 characters (503 webhook_master_key_unset)", async () => {
    await rejectsWith(sealSecret(newWebhookSecret(), "m".repeat(31)), "webhook_master_key_unset");
    await rejectsWith(sealSecret(newWebhookSecret(), undefined), "webhook_master_key_unset");
    await rejectsWith(openSecret("v1.a.b", ""), "webhook_master_key_unset");
  });
});

describe("delivery headers", () => {
  it("first attempt: the spec's headers, no retry markers", async () => {
    const i = input();
    const h = await deliveryHeaders(i);
    expect(Object.keys(h).sort()).toEqual(
      [
        "Content-Type",
        "X-Service-Event",
        "X-Service-Delivery",
        "X-Service-Idempotency-Key",
        "X-Service-Payload-SHA256",
        "X-Service-Signature",
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
      ].sort(),
    );
    expect(h["Content-Type"]).toBe("application/json");
    expect(h["X-Service-Event"]).toBe("action.registered");
    expect(h["X-Service-Delivery"]).toBe("dlv_1.1");
    expect(h["X-Service-Idempotency-Key"]).toBe(i.idempotencyKey);
    expect(h["webhook-id"]).toBe(i.idempotencyKey);
    expect(h["webhook-timestamp"]).toBe(String(NOW / 1000));
    expect(h["X-Service-Signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(h["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it("X-Service-Payload-SHA256 is the hex sha256 of the UTF-8 body bytes", async () => {
    const h = await deliveryHeaders(input());
    expect(h["X-Service-Payload-SHA256"]).toBe(await sha256Hex(new TextEncoder().encode(BODY)));
    expect(h["X-Service-Payload-SHA256"]).toBe(await sha256Hex(BODY));
  });

  it("retries carry X-Service-Attempt and X-Service-Redelivery; manual ones X-Service-Manual-Retry", async () => {
    const retry = await deliveryHeaders(input({ attempt: 3 }));
    expect(retry["X-Service-Attempt"]).toBe("3");
    expect(retry["X-Service-Redelivery"]).toBe("true");
    expect(retry["X-Service-Manual-Retry"]).toBeUndefined();
    const manual = await deliveryHeaders(input({ attempt: 2, manual: true }));
    expect(manual["X-Service-Manual-Retry"]).toBe("true");
    expect(manual["X-Service-Attempt"]).toBe("2");
    const manualFirst = await deliveryHeaders(input({ manual: true }));
    expect(manualFirst["X-Service-Manual-Retry"]).toBe("true");
    expect(manualFirst["X-Service-Attempt"]).toBeUndefined();
    expect(manualFirst["X-Service-Redelivery"]).toBeUndefined();
  });

  it("refuses an attempt below 1 and an idempotency key that would make the signed string ambiguous", async () => {
    await expect(deliveryHeaders(input({ attempt: 0 }))).rejects.toThrow(RangeError);
    await expect(deliveryHeaders(input({ idempotencyKey: "a.b" }))).rejects.toThrow(TypeError);
    await expect(deliveryHeaders(input({ idempotencyKey: "" }))).rejects.toThrow(TypeError);
  });

  it("WH-04: a later retry keeps webhook-id and is signed afresh", async () => {
    const secret = newWebhookSecret();
    const first = await deliveryHeaders(input({ secret }));
    const later = await deliveryHeaders(input({ secret, attempt: 5, deliveryId: "dlv_1.5", now: NOW + 2 * 3600_000 }));
    expect(later["webhook-id"]).toBe(first["webhook-id"]);
    expect(Number(later["webhook-timestamp"]) - Number(first["webhook-timestamp"])).toBe(7200);
    expect(later["webhook-signature"]).not.toBe(first["webhook-signature"]);
    expect(later["X-Service-Signature"]).toBe(first["X-Service-Signature"]); // body-only HMAC
  });
});

describe("signature verifiers", () => {
  it("WH-01: the Standard Webhooks known-answer vector, byte for byte", async () => {
    const h = await deliveryHeaders(
      input({
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        idempotencyKey: "msg_p5jXN8AQM9LWM0D4loKWxJek",
        now: 1614265330_000,
        body: '{"test": 2432232314}',
      }),
    );
    expect(h["webhook-signature"]).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("X-Service-Signature: accepts the exact body, refuses a changed one, a missing or malformed header", async () => {
    const i = input();
    const sig = (await deliveryHeaders(i))["X-Service-Signature"];
    expect(await verifyServiceSignature(i.secret, BODY, sig)).toEqual({ ok: true });
    expect(await verifyServiceSignature(i.secret, BODY, sig?.toUpperCase().replace("SHA256", "sha256"))).toEqual({
      ok: true,
    });
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 1); // WH-05
    expect(await verifyServiceSignature(i.secret, reserialised, sig)).toMatchObject({ reason: "invalid_signature" });
    expect(await verifyServiceSignature(newWebhookSecret(), BODY, sig)).toMatchObject({ reason: "invalid_signature" });
    expect(await verifyServiceSignature(i.secret, BODY, undefined)).toMatchObject({ reason: "missing_signature" });
    expect(await verifyServiceSignature(i.secret, BODY, `sha1=${"0".repeat(40)}`)).toMatchObject({
      reason: "invalid_signature",
    });
  });

  it("X-Service-Signature is HMAC-SHA256 keyed by the whole whsec_ string", async () => {
    const i = input();
    const key = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(i.secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(BODY)));
    expect((await deliveryHeaders(i))["X-Service-Signature"]).toBe(`sha256=${hex.encode(mac)}`);
  });

  it("WH-02: Standard Webhooks cases of the reference library", async () => {
    const i = input();
    const h = await deliveryHeaders(i);
    const check = (headers: Record<string, string | undefined>, now = NOW) =>
      verifyStandardSignature(i.secret, headers, BODY, now);
    const sig = h["webhook-signature"] ?? "";
    expect(await check(h)).toEqual({ ok: true });
    expect(await verifyStandardSignature(i.secret, new Headers(h), BODY, NOW)).toEqual({ ok: true });
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      expect(await check({ ...h, [name]: undefined })).toMatchObject({ reason: "missing_signature" });
    }
    expect(await check({ ...h, "webhook-timestamp": "hello" })).toMatchObject({ reason: "invalid_signature" });
    expect(await check({ ...h, "webhook-signature": "v1," })).toMatchObject({ reason: "invalid_signature" });
    expect(await check({ ...h, "webhook-signature": sig.slice(0, 8) })).toMatchObject({ reason: "invalid_signature" });
    const multi = `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,abc ${sig}`;
    expect(await check({ ...h, "webhook-signature": multi })).toEqual({ ok: true });
    expect(await check({ ...h, "webhook-signature": sig.replace("v1,", "v2,") })).toMatchObject({ ok: false });
    expect(await check(h, NOW + 300_000)).toEqual({ ok: true });
    expect(await check(h, NOW + 301_000)).toMatchObject({ reason: "invalid_signature" }); // too old
    expect(await check(h, NOW - 301_000)).toMatchObject({ reason: "invalid_signature" }); // too new
    expect(await verifyStandardSignature(i.secret, h, `${BODY} `, NOW)).toMatchObject({ reason: "invalid_signature" });
    const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await check(upper)).toEqual({ ok: true });
  });
});
