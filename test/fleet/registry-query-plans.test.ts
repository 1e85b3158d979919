// Every read of the registry's envelopes is served by an index, never a scan of the table (issue 31, item 8): the
// indexes became partial so a registration writes fewer rows (d1-migrations/0013), and a partial index serves a
// query only when the query's WHERE implies the index's. Each statement a route ran is planned here by SQLite's own
// EXPLAIN QUERY PLAN, on the real schema. It also holds the cron's sweep of pending pledges to "due ones first":
// a batch of pledges not yet due no longer hides one that is.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RECONCILE_BATCH, reconcile } from "../../workers/fleet/src/cron";
import type { FleetBindings } from "../../workers/fleet/src/env";
import { type D1Recording, recordD1 } from "../helpers/d1-recorder";
import { action, delegation, HOUR_MS, keptOutcome, pledge, revocation, subdelegation } from "../helpers/envelopes";
import { FLEET, type FleetClient, signedIn } from "../helpers/fleet";
import { fleetAnswer } from "../helpers/fleet-app";
import { queryPlan } from "../helpers/query-plan";
import { newWallet } from "../helpers/wallet";

const plan = (sql: string) => queryPlan(sql);

/** Each statement of the recording that reads `envelopes`, with the plan lines that scan a table instead of searching it. */
async function scans(recording: D1Recording): Promise<{ sql: string; scans: string[] }[]> {
  const reads = recording.statements
    .map((s) => s.sql)
    .filter((sql) => /^\s*(select|with)\b/i.test(sql) && /\benvelopes\b/.test(sql));
  const found = [];
  for (const sql of reads) {
    // A recursive CTE's own rows (`below`) are scanned by design, and so is a work queue's partial index, which holds
    // only the rows waiting (leaves not yet hashed), and the cron's catch-up walks the projects (log/catch-up.ts: one
    // probe of each project's leaves, which are envelopes' rows since d1-migrations/0021); every envelope is searched.
    const lines = (await plan(sql)).filter(
      (d) =>
        /^SCAN /.test(d) &&
        !/^SCAN (below|CONSTANT ROW)|USING (COVERING )?INDEX envelopes_unhashed\b|^SCAN p USING COVERING INDEX sqlite_autoindex_projects_1$/.test(
          d,
        ),
    );
    found.push({ sql, scans: lines });
  }
  return found;
}

async function through(client: FleetClient | undefined, path: string, init: { method?: string; json?: unknown } = {}) {
  const recording = recordD1();
  const headers = new Headers({ "cf-connecting-ip": client?.ip ?? "203.0.113.9", "sec-fetch-site": "same-origin" });
  if (client?.cookie) headers.set("cookie", `oc_session=${client.cookie}`);
  if (init.json !== undefined) headers.set("content-type", "application/json");
  const { res, settled } = await fleetAnswer(
    new Request(`${FLEET}${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    }),
    { DB: recording.db },
  );
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
  await settled();
  return recording;
}

describe("registry reads use an index", () => {
  it("pledges by id and by swearer, actions by delegation, a revocation's cascade, a resolution, the cron's sweep", async () => {
    const [principal, agent, subagent, counterparty] = [newWallet(), newWallet("p2tr"), newWallet(), newWallet()];
    const owner = await signedIn(principal.address);
    const projectId = (await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "plans" })).body
      .project.id;
    const post = (path: string, envelope: unknown) =>
      through(owner, path, { method: "POST", json: { project_id: projectId, envelope } });
    const grant = await delegation(principal, agent);
    await post("/api/delegations", grant.envelope);
    await post("/api/subdelegations", (await subdelegation(grant.id, agent, subagent)).envelope);
    await post("/api/actions", (await action(grant.id, agent)).envelope);
    const kept = await pledge(principal, counterparty);
    await post("/api/pledges", kept.envelope);

    const recordings = [
      await through(undefined, `/api/pledges/${kept.id}`),
      await through(undefined, `/api/pledges?swearer=${principal.address}`),
      await through(owner, `/api/actions?project_id=${projectId}&delegation_id=${grant.id}`),
      await post(`/api/pledges/${kept.id}/outcome`, (await keptOutcome(kept.id, counterparty)).envelope),
      await through(undefined, `/api/pledges/${kept.id}`),
      await post("/api/revocations", (await revocation(grant.id, principal)).envelope),
    ];
    const sweep = recordD1();
    await reconcile({ ...env, DB: sweep.db } as unknown as FleetBindings, Date.now());
    recordings.push(sweep);

    const found = (await Promise.all(recordings.map(scans))).flat();
    expect(found.filter((f) => f.scans.length > 0)).toEqual([]);
    // The reads the partial indexes serve were among those planned.
    for (const column of ["swearer", "parent_id", "delegation_id", "pledge_id", "expires_at"])
      expect(
        found.some((f) => f.sql.includes(`"${column}"`) && /where/i.test(f.sql)),
        column,
      ).toBe(true);
    // A delegation's actions through envelopes_delegation, which holds actions only (d1-migrations/0021): the read
    // names the kind as a literal, or SQLite would walk every action of the project instead.
    const byDelegation = recordings[2]?.statements.find((s) => /"delegation_id" = \?/.test(s.sql));
    expect(await plan(byDelegation?.sql ?? "")).toEqual(
      expect.arrayContaining([expect.stringMatching(/USING INDEX envelopes_delegation\b/)]),
    );
  });

  it("the sweep expires a due pledge behind more pending ones than a batch holds", async () => {
    const principal = newWallet();
    const counterparty = newWallet();
    const owner = await signedIn(principal.address);
    const projectId = (await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "sweep" })).body
      .project.id;
    // More pending pledges than one sweep reads, registered before it and due long after it.
    const later = JSON.stringify({ expires_at: "2099-01-01T00:00:00Z" });
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${RECONCILE_BATCH})
       INSERT INTO envelopes (project_id, id, kind, body, status, swearer, expires_at, created_at)
       SELECT ?, printf('%064x', i), 'pledge', ?, 'pending', ?, '2099-01-01T00:00:00Z', 0 FROM n`,
    )
      .bind(projectId, later, principal.address)
      .run();
    const due = await pledge(principal, counterparty, { expiresIn: HOUR_MS });
    expect((await owner.call("POST", "/api/pledges", { project_id: projectId, envelope: due.envelope })).status).toBe(
      201,
    );
    const report = await reconcile(env as unknown as FleetBindings, Date.now() + 2 * HOUR_MS);
    expect(report.expired).toBe(1);
    const row = await env.DB.prepare("SELECT status FROM envelopes WHERE project_id = ? AND id = ?")
      .bind(projectId, due.id)
      .first<{ status: string }>();
    expect(row?.status).toBe("expired_unresolved");
  });
});
