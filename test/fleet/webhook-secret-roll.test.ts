// Rolling a webhook endpoint's secret (issue 18, issue 26): for the overlap every delivery's Standard Webhooks
// header carries a signature by each secret, so a receiver that switches secrets at any moment of it fails no
// delivery; the spec's one-value X-Service-Signature stays by the old secret until the overlap ends, with the new
// secret's HMAC in X-Service-Signature-Next. The receiver is the test harness's, verifying with the stock libraries
// and whichever secret it was last given; the kit's verifyWebhook is run over the same captured deliveries.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hmacSha256 } from "../../shared/crypto/hmac";
import { verifyWebhook } from "../../shared/kit/webhooks";
import { deliveryHeaders, newWebhookSecret, verifyStandardSignature } from "../../shared/webhooks";
import { delegation } from "../helpers/envelopes";
import { type FleetClient, signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

const RECEIVER = env.TEST_RECEIVER as string;
type Received = { headers: Record<string, string>; body: string; serviceOk: boolean; standardOk: boolean };
type Rolled = { endpoint: { id: string }; secret: string; previous_secret_until: string | null };

const received = async (path: string) =>
  (await (await fetch(`${RECEIVER}/__admin/received?path=${encodeURIComponent(path)}`)).json()) as Received[];
const receiverHolds = (path: string, secret: string) =>
  fetch(`${RECEIVER}/__admin/secret`, { method: "PUT", body: JSON.stringify({ path, secret }) });

async function receivedCount(path: string, n: number): Promise<Received[]> {
  const until = Date.now() + 5_000;
  for (;;) {
    const got = await received(path);
    if (got.length >= n) return got;
    if (Date.now() > until) throw new Error(`${got.length} of ${n} deliveries arrived`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function setup() {
  const principal = newWallet();
  const owner = await signedIn(principal.address);
  const project = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "roll" });
  const projectId = project.body.project.id;
  const path = `/ok/${crypto.randomUUID()}`;
  const res = await owner.call<{ endpoint: { id: string }; secret: string }>("POST", "/api/webhooks/endpoints", {
    project_id: projectId,
    url: `${RECEIVER}${path}`,
    event_types: ["delegation.registered"],
  });
  expect(res.status).toBe(201);
  await receiverHolds(path, res.body.secret);
  const deliverOne = async (n: number): Promise<Received> => {
    const d = await delegation(principal, newWallet());
    const stored = await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: d.envelope });
    expect(stored.status).toBe(201);
    return (await receivedCount(path, n))[n - 1] as Received;
  };
  return { owner, projectId, path, id: res.body.endpoint.id, first: res.body.secret, deliverOne };
}

const roll = (owner: FleetClient, id: string, query = "") =>
  owner.call<Rolled>("POST", `/api/webhooks/endpoints/${id}/rotate-secret${query}`);

describe("rolling a webhook secret", () => {
  it("a receiver that switches secrets at any point of the overlap verifies every delivery", async () => {
    const { owner, path, id, first, deliverOne } = await setup();
    const seen: Received[] = [];
    let rolled: Rolled | undefined;
    // A stream of deliveries: the endpoint rolls at the 5th, the receiver takes the new secret at the 12th.
    for (let n = 1; n <= 16; n++) {
      if (n === 5) {
        const res = await roll(owner, id);
        expect(res.status).toBe(200);
        rolled = res.body;
      }
      if (n === 12) await receiverHolds(path, rolled?.secret ?? "");
      seen.push(await deliverOne(n));
    }
    expect(rolled?.secret).toMatch(/^whsec_/);
    expect(rolled?.secret).not.toBe(first);
    expect(Date.parse(rolled?.previous_secret_until ?? "") - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(JSON.stringify(rolled)).not.toContain(first);
    expect(seen.filter((r) => !r.standardOk)).toHaveLength(0); // 0 failed verifications across the roll
    const signatures = seen.map((r) => r.headers["webhook-signature"]?.split(" ").length);
    expect(signatures).toEqual([1, 1, 1, 1, ...Array(12).fill(2)]);
    // The spec's own header stays by the old secret for the overlap: a stock receiver that has not switched keeps
    // passing it; one that switched early needs X-Service-Signature-Next (the kit reads it) until the overlap ends.
    expect(seen.map((r) => r.serviceOk)).toEqual([...Array(11).fill(true), ...Array(5).fill(false)]);
    expect(seen.map((r) => r.headers["x-service-signature-next"] !== undefined)).toEqual([
      ...Array(4).fill(false),
      ...Array(12).fill(true),
    ]);
  });

  it("the old secret stops signing when the overlap ends, or at once with overlap_hours=0", async () => {
    const { owner, path, id, deliverOne, projectId } = await setup();
    const rolled = await roll(owner, id);
    await (await registryDb(projectId))
      .prepare("UPDATE webhook_endpoints SET previous_secret_until = ? WHERE id = ?")
      .bind(Date.now() - 1, id)
      .run();
    const after = await deliverOne(1);
    expect(after.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    expect(after.headers["x-service-signature-next"]).toBeUndefined();
    expect(after.serviceOk).toBe(false); // X-Service-Signature is by the new secret now
    expect(after.standardOk).toBe(false); // the receiver still holds the first secret
    await receiverHolds(path, rolled.body.secret);
    const now = await roll(owner, id, "?overlap_hours=0");
    expect(now.body.previous_secret_until).toBeNull();
    const cut = await deliverOne(2);
    expect(cut.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    expect(cut.standardOk).toBe(false); // signed by the newest secret only
  });

  it("is logged without the secret; refuses a bad overlap (400 invalid_query) and strangers (404 not_found)", async () => {
    const { owner, projectId, id, first } = await setup();
    expect((await roll(owner, id, "?overlap_hours=169")).body).toMatchObject({ reason: "invalid_query" });
    expect((await roll(owner, id, "?overlap_hours=soon")).body).toMatchObject({ reason: "invalid_query" });
    const stranger = await signedIn(newWallet().address);
    expect((await roll(stranger, id)).body).toMatchObject({ reason: "not_found" });
    const rolled = await roll(owner, id, "?overlap_hours=2");
    const log = await owner.call<{ entries: { event_type: string; detail: unknown }[] }>(
      "GET",
      `/api/admin/log?project_id=${projectId}&event_type=webhook_endpoint.secret_rotated`,
    );
    expect(log.body.entries).toHaveLength(1);
    expect(log.body.entries[0]?.detail).toMatchObject({ overlap_hours: 2 });
    const text = JSON.stringify(log.body);
    expect(text).not.toContain(first);
    expect(text).not.toContain(rolled.body.secret);
  });
});

describe("X-Service-Signature during a roll (issue 26)", () => {
  const BODY = '{"id":"abc","project_id":"proj_1","kind":"agent-delegation","envelope":{"v":1}}';
  const serviceMac = async (secret: string) => {
    const mac = await hmacSha256(new TextEncoder().encode(secret), new TextEncoder().encode(BODY));
    return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  };
  const sign = (secret: string, previousSecret?: string) =>
    deliveryHeaders({
      secret,
      ...(previousSecret === undefined ? {} : { previousSecret }),
      body: BODY,
      eventType: "delegation.registered",
      deliveryId: "del_1.1",
      idempotencyKey: "idem_roll",
      attempt: 1,
      manual: false,
      now: Date.now(),
    });

  it("deliveryHeaders with a previous secret: X-Service-Signature by it, -Next by the new, webhook-signature by both", async () => {
    const [secret, previous] = [newWebhookSecret(), newWebhookSecret()];
    const rolling = await sign(secret, previous);
    expect(rolling["X-Service-Signature"]).toBe(await serviceMac(previous));
    expect(rolling["X-Service-Signature-Next"]).toBe(await serviceMac(secret));
    const [byNew, byOld, ...more] = (rolling["webhook-signature"] ?? "").split(" ");
    expect(more).toEqual([]);
    const only = (signature: string | undefined) => ({ ...rolling, "webhook-signature": signature ?? "" });
    expect(await verifyStandardSignature(secret, only(byNew), BODY, Date.now())).toEqual({ ok: true });
    expect(await verifyStandardSignature(previous, only(byOld), BODY, Date.now())).toEqual({ ok: true });
    // No roll: one secret signs X-Service-Signature, and there is no Next header.
    const plain = await sign(secret);
    expect(plain["X-Service-Signature"]).toBe(await serviceMac(secret));
    expect(plain["X-Service-Signature-Next"]).toBeUndefined();
  });

  it("a kit receiver holding only the old secret, or only the new, verifies every delivery of the overlap", async () => {
    const { owner, id, first, deliverOne, projectId } = await setup();
    const before = [await deliverOne(1), await deliverOne(2)];
    const rolled = await roll(owner, id);
    expect(rolled.status).toBe(200);
    const next = rolled.body.secret;
    const during = [await deliverOne(3), await deliverOne(4), await deliverOne(5)];
    // The overlap ends (as 24 hours later): the old secret stops signing.
    await (await registryDb(projectId))
      .prepare("UPDATE webhook_endpoints SET previous_secret_until = ? WHERE id = ?")
      .bind(Date.now() - 1, id)
      .run();
    const after = [await deliverOne(6), await deliverOne(7)];
    const verdicts = (deliveries: Received[], secret: string | string[]) =>
      Promise.all(
        deliveries.map(async (r) => {
          const result = await verifyWebhook({ secret, headers: r.headers, body: r.body, scheme: "both" });
          return result.ok ? "ok" : result.reason;
        }),
      );
    expect(await verdicts(before, first)).toEqual(["ok", "ok"]);
    expect(await verdicts(during, first)).toEqual(["ok", "ok", "ok"]);
    expect(await verdicts(during, next)).toEqual(["ok", "ok", "ok"]);
    expect(await verdicts(during, [next, first])).toEqual(["ok", "ok", "ok"]);
    expect(await verdicts(after, next)).toEqual(["ok", "ok"]);
    // The old secret alone no longer verifies once the overlap is over, nor the new one before the roll.
    expect(await verdicts(after, first)).toEqual(["invalid_signature", "invalid_signature"]);
    expect(await verdicts(before, next)).toEqual(["invalid_signature", "invalid_signature"]);
    // Stock receivers of X-Service-Signature alone: the old secret through the overlap, the new one after it.
    expect(during.every((r) => r.serviceOk)).toBe(true);
    expect(during.every((r) => r.headers["x-service-signature-next"]?.startsWith("sha256="))).toBe(true);
    expect(after.some((r) => r.headers["x-service-signature-next"] !== undefined)).toBe(false);
  });
});
