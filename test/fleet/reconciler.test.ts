// The pledge reconciler: pending pledges past expires_at resolve to the deterministic expired_unresolved outcome,
// idempotently (twice or concurrently), through the cron route (CRON_SECRET) and the scheduled handler; and the
// re-arm of a webhook dispatcher whose alarm was lost.

import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomHex } from "../../shared/crypto/digest";
import { createPledgeEnvelope } from "../../shared/envelopes/pledge";
import { isoSeconds } from "../../shared/time";
import worker from "../../workers/fleet/src/index";
import { FleetClient, signedIn, subscribed } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";
import v03 from "../vectors/oc-pledge/v03-pledge-counterparty-signs-bilateral.json";

async function pledgeExpiringSoon() {
  const swearer = newWallet();
  const counterparty = newWallet();
  const owner = await signedIn(swearer.address);
  const project = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "reconcile" });
  await subscribed(owner, project.body.project.id); // so the reconciler's event is kept, and counted
  const now = Date.now();
  const p = await createPledgeEnvelope(
    {
      ...(v03.inputs as object),
      swearer: swearer.address,
      counterparty: counterparty.address,
      resolution: {
        mechanism: "counterparty_signs",
        query: `counterparty(${counterparty.address}) signs outcome over pledge_id`,
      },
      resolves_at: { time: isoSeconds(now + 1000) },
      expires_at: isoSeconds(now + 2000),
      sworn_at: isoSeconds(now - 60_000),
      nonce: randomHex(16),
    } as never,
    swearer,
  );
  const res = await owner.call("POST", "/api/pledges", { project_id: project.body.project.id, envelope: p.envelope });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { owner, projectId: project.body.project.id, pledgeId: p.id };
}

const cron = (secret?: string) => {
  const client = new FleetClient();
  return client.fetch("/api/cron/reconcile", {
    method: "POST",
    fetchMetadata: false,
    headers: secret ? { authorization: `Bearer ${secret}` } : {},
  });
};

describe("pledge reconciler", () => {
  it("resolves an expired pending pledge to expired_unresolved once, however often it runs", async () => {
    const { owner, projectId, pledgeId } = await pledgeExpiringSoon();
    expect(((await (await cron("test-cron-secret")).json()) as { expired: number }).expired).toBe(0);
    await new Promise((r) => setTimeout(r, 3100));
    const [a, b] = await Promise.all([cron("test-cron-secret"), cron("test-cron-secret")]);
    const expired = [
      ((await a.json()) as { expired: number }).expired,
      ((await b.json()) as { expired: number }).expired,
    ];
    expect(expired.sort()).toEqual([0, 1]);
    expect(((await (await cron("test-cron-secret")).json()) as { expired: number }).expired).toBe(0);
    const read = await owner.call<{ pledge: { status: string } }>("GET", `/api/pledges/${pledgeId}`);
    expect(read.body.pledge.status).toBe("expired_unresolved");
    const outcomes = await (await registryDb(projectId))
      .prepare("SELECT body FROM envelopes WHERE kind = 'outcome' AND pledge_id = ?")
      .bind(pledgeId)
      .all<{ body: string }>();
    expect(outcomes.results).toHaveLength(1);
    expect(JSON.parse(outcomes.results[0]?.body ?? "{}")).toMatchObject({
      outcome: "expired_unresolved",
      resolved_by: "deterministic",
    });
    const events = await (await registryDb(projectId))
      .prepare(
        `SELECT count(*) AS n FROM outbox JOIN envelopes ON envelopes.project_id = outbox.project_id
        AND envelopes.id = outbox.envelope_id WHERE outbox.event_type = 'pledge.outcome' AND envelopes.pledge_id = ?`,
      )
      .bind(pledgeId)
      .first<{ n: number }>();
    expect(events?.n).toBe(1);
  }, 15_000);

  it("runs from the Cron Trigger too", async () => {
    const { owner, pledgeId } = await pledgeExpiringSoon();
    await new Promise((r) => setTimeout(r, 3100));
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }),
      env as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(
      (await owner.call<{ pledge: { status: string } }>("GET", `/api/pledges/${pledgeId}`)).body.pledge.status,
    ).toBe("expired_unresolved");
  }, 15_000);

  it("needs the cron secret: 401 unauthorized without or with a wrong one", async () => {
    for (const secret of [undefined, "wrong"]) {
      const res = await cron(secret);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { reason: string }).reason).toBe("unauthorized");
    }
  });
});
