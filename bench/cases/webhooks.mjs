// Webhook fan-out: `events` events in one project with 3 endpoints on loopback receivers, one of which fails 30 %
// of first attempts (chosen by a hash of the delivery's webhook-id, so the same deliveries fail on every run).
// The events are seeded as the registrations would have written them (each action's envelope row and its outbox
// row, whose delivery body is built from the envelope when sent), then the reconciler route is called until everything is fanned out (it runs the same dispatch() as
// each registration's after-write hook; in production one per registration or per 5-minute cron tick). Retries
// run on the real schedule (first retry after 1 min ± 10 %), driven by the dispatchers' own alarms: nothing is
// sped up. Baseline: the bare worker POSTing the same bodies to the same receivers, 5 at a time (first attempts
// only, no signing or state). Scale: the endpoints' past deliveries (succeeded rows) already in D1.
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { seedProject } from "../lib/fleet-seed.mjs";
import { startFleetAndBare } from "../lib/stack.mjs";

const FAIL_SHARE = 30; // percent of first attempts the flaky endpoint answers 500

function startReceivers() {
  const state = { ok: new Map(), firstAttempts: 0, attempts: 0, failed: 0, lastOkAt: 0, lastFirstAt: 0, bare: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url.startsWith("/bare/")) {
        state.bare += 1;
        return res.end("ok");
      }
      const id = `${req.url}|${req.headers["webhook-id"]}`;
      const attempt = Number(req.headers["x-service-attempt"] ?? "1");
      state.attempts += 1;
      if (attempt === 1) {
        state.firstAttempts += 1;
        state.lastFirstAt = performance.now();
      }
      const hash = createHash("sha256").update(String(req.headers["webhook-id"])).digest().readUInt32BE(0);
      if (req.url === "/flaky" && attempt === 1 && hash % 100 < FAIL_SHARE) {
        state.failed += 1;
        res.statusCode = 500;
        return res.end("try later");
      }
      state.ok.set(id, (state.ok.get(id) ?? 0) + 1);
      state.lastOkAt = performance.now();
      res.end("ok");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, state, close: () => server.close() }),
    ),
  );
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function seedHistory(db, projectId, endpointIds, count) {
  for (const endpointId of endpointIds) {
    const n = Math.ceil(count / endpointIds.length);
    await db
      .prepare(
        `INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_id, event_type, idempotency_key, state,
           attempt_count, status_code, next_retry_at, succeeded_at, created_at, updated_at)
         WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
         SELECT 'whd_' || lower(hex(randomblob(12))), ?, ?, 'evt_old' || i, 'action.registered', 'whk_old' || i,
           'succeeded', 1, 200, NULL, ?, ?, ? FROM c`,
      )
      .bind(n, projectId, endpointId, Date.now() - 3_600_000, Date.now() - 3_600_000, Date.now() - 3_600_000)
      .run();
  }
}

export async function webhooks({ fx, bundles, sizes, events, timeoutMs, log }) {
  const receivers = await startReceivers();
  const { stack, db, secrets } = await startFleetAndBare(bundles, (s) => ({
    WEBHOOK_MASTER_KEY: s.WEBHOOK_MASTER_KEY,
    CRON_SECRET: s.CRON_SECRET,
    WEBHOOK_ALLOW_LOOPBACK: "true",
  }));
  const rows = [];
  try {
    const owner = fx.newWallet();
    const agent = fx.newWallet();
    const d = await fx.delegation(owner, agent);
    let ip = 0;
    for (const size of sizes) {
      const p = await seedProject(db, owner);
      const call = async (method, path, body, bearer = p.secret) => {
        const res = await fetch(`${stack.urls.fleet}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${bearer}`,
            "content-type": "application/json",
            "cf-connecting-ip": `172.17.${size % 250}.${++ip % 250}`,
          },
          body: body && JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      };
      const endpointIds = [];
      for (const name of ["a", "b", "flaky"]) {
        const url = `${receivers.url}/${name === "flaky" ? "flaky" : `ok-${name}`}`;
        const made = await call("POST", "/api/webhooks/endpoints", {
          project_id: p.projectId,
          url,
          event_types: ["*"],
        });
        if (made.status !== 201) throw new Error(`endpoint: ${JSON.stringify(made)}`);
        endpointIds.push(made.body.endpoint.id);
      }
      await seedHistory(db, p.projectId, endpointIds, size);
      // The events, as `register` writes them: the action row and its outbox row.
      const payloads = [];
      const statements = [];
      for (let i = 0; i < events; i++) {
        const built = await fx.action(d.envelope.id, agent);
        const row = {
          projectId: p.projectId,
          id: built.envelope.id,
          kind: "action",
          body: JSON.stringify(built.envelope),
          delegationId: d.envelope.id,
        };
        const payload = fx.eventPayload(row);
        payloads.push(payload);
        // The outbox row carries no copy of the envelope: the delivery body is built from the envelope row.
        statements.push(
          db
            .prepare(
              "INSERT INTO envelopes (project_id, id, kind, body, delegation_id, created_at) VALUES (?, ?, 'action', ?, ?, ?)",
            )
            .bind(p.projectId, row.id, row.body, row.delegationId, Date.now() + i),
          db
            .prepare(
              "INSERT INTO outbox (id, project_id, event_type, envelope_id, payload, created_at) VALUES (?, ?, 'action.registered', ?, '', ?)",
            )
            .bind(`evt_${randomBytes(12).toString("hex")}`, p.projectId, row.id, Date.now() + i),
        );
      }
      for (let i = 0; i < statements.length; i += 500) await db.batch(statements.slice(i, i + 500));
      Object.assign(receivers.state, {
        ok: new Map(),
        firstAttempts: 0,
        attempts: 0,
        failed: 0,
        lastOkAt: 0,
        lastFirstAt: 0,
      });
      const expected = events * 3;
      const start = performance.now();
      let reconcileCalls = 0;
      for (;;) {
        const r = await call("POST", "/api/cron/reconcile", undefined, secrets.CRON_SECRET);
        if (r.status !== 200) throw new Error(`reconcile: ${JSON.stringify(r)}`);
        reconcileCalls += 1;
        const pending = await db.prepare("SELECT count(*) AS n FROM outbox WHERE fanned_out_at IS NULL").first();
        if (pending.n === 0) break;
      }
      const fannedOutMs = performance.now() - start;
      while (receivers.state.ok.size < expected && performance.now() - start < timeoutMs) await sleep(250);
      const s = receivers.state;
      const duplicates = [...s.ok.values()].reduce((sum, n) => sum + n - 1, 0);
      const project = {
        events,
        deliveries: expected,
        fannedOutMs,
        reconcileCalls,
        firstPassMs: s.lastFirstAt - start,
        allDeliveredMs: s.ok.size >= expected ? s.lastOkAt - start : Number.NaN,
        delivered: s.ok.size,
        losses: expected - s.ok.size,
        duplicates,
        failedFirstAttempts: s.failed,
        attempts: s.attempts,
      };
      const bareStart = performance.now();
      receivers.state.bare = 0;
      const res = await fetch(`${stack.urls.bare}/fanout`, {
        method: "POST",
        body: JSON.stringify({
          urls: ["a", "b", "c"].map((n) => `${receivers.url}/bare/${n}`),
          bodies: payloads,
          parallel: 5,
        }),
      });
      const bareBody = await res.json();
      const bare = { ms: performance.now() - bareStart, ok: bareBody.ok, received: receivers.state.bare };
      log(`webhooks ${size}: project ${JSON.stringify(project)} bare ${JSON.stringify(bare)}`);
      rows.push({ size, project, bare });
    }
  } finally {
    await stack.dispose().catch(() => {});
    receivers.close();
  }
  return rows;
}
