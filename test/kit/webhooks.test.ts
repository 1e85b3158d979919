// The kit's webhook receiver helper (fleet project): real deliveries sent by the fleet's dispatcher to the
// loopback receiver, re-verified with verifyWebhook over the bytes received; deliveries signed by the project's
// own deliveryHeaders: tampered body, stale and future timestamps, wrong secret, missing headers, secret rotation,
// raw bytes, the idempotency stores (memory LRU, KV), handleWebhook and the ready Fetch-API receiver.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { utf8 } from "../../shared/crypto/digest";
import {
  handleWebhook,
  kvIdempotencyStore,
  MemoryIdempotencyStore,
  receiveWebhook,
  verifyWebhook,
} from "../../shared/kit/webhooks";
import { deliveryHeaders, newWebhookSecret } from "../../shared/webhooks";
import { delegation } from "../helpers/envelopes";
import { signedIn } from "../helpers/fleet";
import { newWallet } from "../helpers/wallet";

const RECEIVER = env.TEST_RECEIVER as string;
const NOW = Date.parse("2026-06-01T12:00:00Z");
const BODY = '{"id":"abc","project_id":"proj_1","kind":"agent-delegation","envelope":{"v":1}}';

async function signed(
  secret: string,
  overrides: { attempt?: number; manual?: boolean; body?: string; idempotencyKey?: string; now?: number } = {},
) {
  return deliveryHeaders({
    secret,
    body: overrides.body ?? BODY,
    eventType: "delegation.registered",
    deliveryId: "del_1.1",
    idempotencyKey: overrides.idempotencyKey ?? "idem_0123456789",
    attempt: overrides.attempt ?? 1,
    manual: overrides.manual ?? false,
    now: overrides.now ?? NOW,
  });
}

/** A delivery signed now under a key of its own (for tests that run a store or a receiver). */
const signedNow = (secret: string) =>
  signed(secret, { idempotencyKey: `idem_${crypto.randomUUID()}`, now: Date.now() });

describe("verifyWebhook against real deliveries", () => {
  it("accepts what the fleet actually sent, byte for byte, and refuses it altered", async () => {
    const principal = newWallet();
    const owner = await signedIn(principal.address);
    const project = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "kit hooks" });
    const projectId = project.body.project.id;
    const path = `/ok/${crypto.randomUUID()}`;
    const created = await owner.call<{ secret: string }>("POST", "/api/webhooks/endpoints", {
      project_id: projectId,
      url: `${RECEIVER}${path}`,
      event_types: ["delegation.registered"],
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret;
    const d = await delegation(principal, newWallet());
    expect((await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: d.envelope })).status).toBe(
      201,
    );
    type Received = { headers: Record<string, string>; body: string; at: number };
    let got: Received | undefined;
    for (let i = 0; i < 100 && !got; i++) {
      [got] = (await (await fetch(`${RECEIVER}/__admin/received?path=${path}`)).json()) as Received[];
      if (!got) await new Promise((r) => setTimeout(r, 50));
    }
    if (!got) throw new Error("no delivery arrived");
    const result = await verifyWebhook({ secret, headers: got.headers, body: got.body });
    expect(result).toMatchObject({
      ok: true,
      eventType: "delegation.registered",
      idempotencyKey: got.headers["webhook-id"],
      attempt: 1,
      redelivery: false,
      event: { id: d.id, project_id: projectId, kind: "agent-delegation", envelope: d.envelope },
    });
    // The fleet's own X-Service-Signature too, when a receiver opts in.
    expect(await verifyWebhook({ secret, headers: got.headers, body: got.body, scheme: "both" })).toMatchObject({
      ok: true,
    });
    const store = new MemoryIdempotencyStore();
    const runs: string[] = [];
    const deliver = () =>
      handleWebhook({ secret, headers: got.headers, body: got.body, store }, (d) => runs.push(d.event.id));
    expect(await deliver()).toEqual({ status: 200, body: { ok: true } });
    expect(await deliver()).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(runs).toEqual([d.id]);
    expect(await verifyWebhook({ secret, headers: got.headers, body: `${got.body} ` })).toMatchObject({
      reason: "invalid_signature",
    });
    expect(await verifyWebhook({ secret: newWebhookSecret(), headers: got.headers, body: got.body })).toMatchObject({
      reason: "invalid_signature",
    });
    const sentAt = Number(got.headers["webhook-timestamp"]) * 1000;
    expect(await verifyWebhook({ secret, headers: got.headers, body: got.body, now: sentAt + 301_000 })).toMatchObject({
      reason: "timestamp_out_of_window",
    });
  });
});

describe("verifyWebhook with deliveryHeaders", () => {
  it("accepts both schemes over text, bytes and ArrayBuffer, and reads the attempt headers", async () => {
    const secret = newWebhookSecret();
    const headers = await signed(secret, { attempt: 3, manual: true });
    for (const body of [BODY, utf8(BODY), utf8(BODY).buffer as ArrayBuffer]) {
      expect(await verifyWebhook({ secret, headers: new Headers(headers), body, now: NOW })).toMatchObject({
        ok: true,
        attempt: 3,
        redelivery: true,
        manualRetry: true,
        deliveryId: "del_1.1",
        idempotencyKey: "idem_0123456789",
        timestamp: NOW / 1000,
        event: { id: "abc" },
      });
    }
  });

  it("holds the ±300 s window in both directions", async () => {
    const secret = newWebhookSecret();
    const headers = await signed(secret);
    for (const [now, ok] of [
      [NOW + 300_000, true],
      [NOW - 300_000, true],
      [NOW + 301_000, false],
      [NOW - 301_000, false],
    ] as const) {
      const result = await verifyWebhook({ secret, headers, body: BODY, now });
      expect(result.ok ? "ok" : result.reason).toBe(ok ? "ok" : "timestamp_out_of_window");
    }
    // Only X-Service-Signature (no timestamp in it): no window, as documented.
    expect((await verifyWebhook({ secret, headers, body: BODY, now: NOW + 86_400_000, scheme: "service" })).ok).toBe(
      true,
    );
  });

  it("refuses a tampered body, a wrong secret, a missing or forged header, each with its reason", async () => {
    const secret = newWebhookSecret();
    const headers = await signed(secret);
    const check = async (h: Record<string, string>, body = BODY, s: string | string[] = secret, scheme?: "both") => {
      const result = await verifyWebhook({ secret: s, headers: h, body, now: NOW, scheme });
      return result.ok ? "ok" : result.reason;
    };
    expect(await check(headers, BODY.replace("abc", "abd"))).toBe("invalid_signature");
    expect(await check(headers, BODY, newWebhookSecret())).toBe("invalid_signature");
    expect(await check(headers, BODY, [newWebhookSecret(), secret])).toBe("ok");
    // By default the Standard Webhooks headers alone: a proxy that drops X-Service-* loses nothing (issue 45).
    const noService = Object.fromEntries(Object.entries(headers).filter(([name]) => !/^x-service-/i.test(name)));
    expect(await check(noService)).toBe("ok");
    expect(await check(noService, BODY, secret, "both")).toBe("missing_signature");
    const { "webhook-signature": _w, ...noStandard } = headers;
    expect(await check(noStandard)).toBe("missing_signature");
    expect(await check({ ...headers, "webhook-timestamp": "soon" })).toBe("invalid_signature");
    // With "both", both must hold: a valid Standard signature with a forged X-Service-Signature is refused.
    const forged = { ...headers, "X-Service-Signature": `sha256=${"0".repeat(64)}` };
    expect(await check(forged, BODY, secret, "both")).toBe("invalid_signature");
    expect(await check(forged)).toBe("ok");
    const notJson = await signed(secret, { body: "not json" });
    expect(await check(notJson, "not json")).toBe("malformed_body");
  });
});

describe("the dedupe key is the signed webhook-id (issue 26)", () => {
  const CHANGED = "idem_attacker_chosen";

  it("refuses a delivery whose X-Service-Idempotency-Key was changed, under scheme both and standard", async () => {
    const secret = newWebhookSecret();
    const headers = await signed(secret);
    const changed = { ...headers, "X-Service-Idempotency-Key": CHANGED };
    for (const scheme of ["both", "standard"] as const) {
      expect(await verifyWebhook({ secret, headers, body: BODY, now: NOW, scheme })).toMatchObject({
        ok: true,
        idempotencyKey: headers["webhook-id"],
      });
      expect(await verifyWebhook({ secret, headers: changed, body: BODY, now: NOW, scheme })).toMatchObject({
        ok: false,
        reason: "idempotency_key_mismatch",
      });
    }
    // Absent, it says nothing against the signed id: the key is webhook-id.
    const { "X-Service-Idempotency-Key": _k, ...without } = headers;
    expect(await verifyWebhook({ secret, headers: without, body: BODY, now: NOW })).toMatchObject({
      ok: true,
      idempotencyKey: headers["webhook-id"],
    });
  });

  it("a replay with a changed X-Service-Idempotency-Key after the first was handled is not run again", async () => {
    const secret = newWebhookSecret();
    const headers = await signedNow(secret);
    const store = new MemoryIdempotencyStore();
    const handled: string[] = [];
    const handler = (delivery: { idempotencyKey: string }) => {
      handled.push(delivery.idempotencyKey);
    };
    const post = (h: Record<string, string>) =>
      receiveWebhook(
        new Request("https://example.com/hook", { method: "POST", headers: h, body: BODY }),
        {
          secret,
          store,
        },
        handler,
      );
    expect((await post(headers)).status).toBe(200);
    const replay = await post({ ...headers, "X-Service-Idempotency-Key": CHANGED });
    expect([replay.status, await replay.json()]).toEqual([401, { ok: false, reason: "idempotency_key_mismatch" }]);
    // The same replay without the header meets the signed id in the store.
    const { "X-Service-Idempotency-Key": _k, ...without } = headers;
    const bare = await post(without);
    expect([bare.status, await bare.json()]).toEqual([200, { ok: true, duplicate: true }]);
    expect(handled).toEqual([headers["webhook-id"]]);
    for (const scheme of ["both", "standard"] as const) {
      const again = { ...headers, "X-Service-Idempotency-Key": CHANGED };
      expect((await verifyWebhook({ secret, headers: again, body: BODY, scheme })).ok).toBe(false);
    }
  });

  it("scheme service keys on the unsigned X-Service-Idempotency-Key, so a replay under a new key passes it", async () => {
    const secret = newWebhookSecret();
    const headers = await signed(secret);
    const store = new MemoryIdempotencyStore();
    const service = { secret, body: BODY, now: NOW, store, scheme: "service" as const };
    const first = await handleWebhook({ ...service, headers }, () => undefined);
    expect(first).toEqual({ status: 200, body: { ok: true } });
    expect(await handleWebhook({ ...service, headers }, () => undefined)).toEqual({
      status: 200,
      body: { ok: true, duplicate: true },
    });
    // Documented (docs/kit.md): nothing signed binds a service-only delivery to its key or a time. The Standard
    // headers do: the same replay is refused there.
    const replay = { ...headers, "X-Service-Idempotency-Key": CHANGED };
    expect(await verifyWebhook({ secret, headers: replay, body: BODY, now: NOW, scheme: "service" })).toMatchObject({
      ok: true,
      idempotencyKey: CHANGED,
    });
    expect(await verifyWebhook({ secret, headers: replay, body: BODY, now: NOW })).toMatchObject({
      ok: false,
      reason: "idempotency_key_mismatch",
    });
  });
});

describe("idempotency stores and the ready receiver", () => {
  it("MemoryIdempotencyStore forgets the oldest key past its size and keys past their TTL", () => {
    const clock = { t: 0 };
    const store = new MemoryIdempotencyStore(2, 60, () => clock.t);
    store.add("a");
    store.add("b");
    store.add("c");
    expect([store.has("a"), store.has("b"), store.has("c"), store.size]).toEqual([false, true, true, 2]);
    clock.t = 61_000;
    expect(store.has("b")).toBe(false);
  });

  it("kvIdempotencyStore keeps keys in a KV namespace", async () => {
    const store = kvIdempotencyStore(env.KV as KVNamespace, { prefix: `kit-${crypto.randomUUID()}:` });
    expect(await store.has("k1")).toBe(false);
    await store.add("k1");
    expect(await store.has("k1")).toBe(true);
  });

  it("receiveWebhook: 200 once handled, 200 duplicate after, 500 and a second chance when the handler throws", async () => {
    const secret = newWebhookSecret();
    const headers = await signedNow(secret);
    const request = () => new Request("https://example.com/hook", { method: "POST", headers, body: BODY });
    const store = new MemoryIdempotencyStore();
    const handled: string[] = [];
    let fail = true;
    const handler = (delivery: { event: { id: string } }) => {
      if (fail) throw new Error("database down");
      handled.push(delivery.event.id);
    };
    const first = await receiveWebhook(request(), { secret, store }, handler);
    expect([first.status, await first.json()]).toEqual([500, { ok: false, reason: "handler_failed" }]);
    fail = false;
    expect((await receiveWebhook(request(), { secret, store }, handler)).status).toBe(200);
    const again = await receiveWebhook(request(), { secret, store }, handler);
    expect([again.status, await again.json()]).toEqual([200, { ok: true, duplicate: true }]);
    expect(handled).toEqual(["abc"]);
    const bad = await receiveWebhook(request(), { secret: newWebhookSecret(), store }, handler);
    expect([bad.status, await bad.json()]).toEqual([401, { ok: false, reason: "invalid_signature" }]);
  });

  it("handleWebhook: the same delivery arriving twice at once runs the handler once (409, then duplicate)", async () => {
    const secret = newWebhookSecret();
    const headers = await signedNow(secret);
    const store = new MemoryIdempotencyStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    const handler = async () => {
      runs += 1;
      await gate;
    };
    const first = handleWebhook({ secret, headers, body: BODY, store }, handler);
    await new Promise((r) => setTimeout(r, 10));
    expect(await handleWebhook({ secret, headers, body: BODY, store }, handler)).toEqual({
      status: 409,
      body: { ok: false, reason: "in_progress" },
    });
    release();
    expect(await first).toEqual({ status: 200, body: { ok: true } });
    expect((await handleWebhook({ secret, headers, body: BODY, store }, handler)).body).toEqual({
      ok: true,
      duplicate: true,
    });
    expect(runs).toBe(1);
  });
});
