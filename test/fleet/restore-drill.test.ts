// The recovery drill (issue 28, docs/recovery.md), end to end in workerd: a project registers every kind of envelope
// through the API (a sub-delegation, actions, a revocation that cascades, a kept, an abandoned, an expired and a
// pending pledge), then its CSV bundle, leaves and checkpoint are exported and checked with the kit; the project is
// wiped from D1; the statements `oc restore` writes to its SQL file are run against the database; and the fleet
// then serves the same checkpoint, exports the same envelope bytes in the same order, holds rows equal to the
// registrations' own (statuses included), queued no event, and keeps registering on top of the restored log.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { splitBundle } from "../../shared/audit/bundle-format";
import { planRestore } from "../../shared/audit/restore/plan";
import { publishedJwk, toPublicJwk } from "../../shared/crypto/signing-key";
import { createAbandonmentEnvelope } from "../../shared/envelopes/pledge";
import { verifyBundle } from "../../shared/kit/envelopes/bundle";
import { checkBundleLog } from "../../shared/kit/envelopes/bundle-log";
import { isoSeconds } from "../../shared/time";
import { parseCheckpoint } from "../../shared/tlog/checkpoint";
import { openNote, parseVerifierKey } from "../../shared/tlog/note";
import { reconcile } from "../../workers/fleet/src/cron";
import type { FleetBindings } from "../../workers/fleet/src/env";
import { action, delegation, HOUR_MS, keptOutcome, pledge, revocation, subdelegation } from "../helpers/envelopes";
import { FLEET, type FleetClient, signedIn } from "../helpers/fleet";
import { integrateLog, loggedProject } from "../helpers/log";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

/** The fleet's host, as it names its checkpoints: the restore's trusted input, as --fleet gives it to the CLI. */
const FLEET_HOST = new URL(FLEET).host;
/** The JWKS as the auth host publishes the fleet's audit key (workers/auth/src/routes/jwks.ts). */
const JWKS = { keys: [publishedJwk(toPublicJwk(JSON.parse(env.FLEET_SIGNING_KEY as string)), "audit")] };
/** Columns a restore cannot give back as they were: the row order number, the registration time, its event. */
const NOT_RESTORED = ["seq", "created_at", "event_id"];

async function storedRows(projectId: string) {
  const { results } = await (await registryDb(projectId))
    .prepare("SELECT * FROM envelopes WHERE project_id = ? ORDER BY seq")
    .bind(projectId)
    .all<Record<string, unknown>>();
  return results.map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => !NOT_RESTORED.includes(key))));
}

/** The checkpoint once the project's integrator has caught up with its leaves (a restored log's too). */
async function checkpointOf(owner: FleetClient, projectId: string) {
  await integrateLog(projectId);
  const keyPath = `/api/log/key?project_id=${projectId}`;
  const key = parseVerifierKey((await owner.call<{ verifier_key: string }>("GET", keyPath)).body.verifier_key);
  const res = await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`);
  const note = await res.text();
  const checkpoint = key && parseCheckpoint(openNote(note, [key])?.text ?? "");
  return { status: res.status, note, checkpoint };
}

/** A project with one registration of every kind, its statuses moved by a revocation, resolutions and the cron. */
async function busyProject() {
  const [principal, agent, subagent, counterparty] = [newWallet(), newWallet("p2tr"), newWallet(), newWallet()];
  const owner = await signedIn(principal.address);
  const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "drill" });
  const projectId = created.body.project.id;
  const post = async (path: string, envelope: unknown) => {
    const res = await owner.call("POST", path, { project_id: projectId, envelope });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  const revoked = await delegation(principal, agent);
  await post("/api/delegations", revoked.envelope);
  const below = await subdelegation(revoked.id, agent, subagent);
  await post("/api/subdelegations", below.envelope);
  await post("/api/actions", (await action(revoked.id, agent)).envelope);
  await post("/api/actions", (await action(below.id, subagent)).envelope);
  const active = await delegation(principal, agent);
  await post("/api/delegations", active.envelope);
  await post("/api/actions", (await action(active.id, agent)).envelope);
  // A reason a careless SQL writer would break: a quote, a statement end, a comment, wrangler's transaction words.
  await post("/api/revocations", (await revocation(revoked.id, principal, "it's over; -- BEGIN TRANSACTION")).envelope);
  const kept = await pledge(principal, counterparty);
  await post("/api/pledges", kept.envelope);
  await post(`/api/pledges/${kept.id}/outcome`, (await keptOutcome(kept.id, counterparty)).envelope);
  const abandoned = await pledge(principal, counterparty);
  await post("/api/pledges", abandoned.envelope);
  const abandonment = await createAbandonmentEnvelope(
    { pledge_id: abandoned.id, abandoned_at: isoSeconds(Date.now()), reason: "changed plans" },
    principal,
  );
  await post("/api/pledge-abandonments", abandonment.envelope);
  const expired = await pledge(principal, counterparty, { expiresIn: HOUR_MS });
  await post("/api/pledges", expired.envelope);
  const open = await pledge(principal, counterparty, { expiresIn: 10 * HOUR_MS });
  await post("/api/pledges", open.envelope);
  // The reconciler, two hours on, registers the expired pledge's expired_unresolved outcome (a leaf like any other).
  expect((await reconcile(env as unknown as FleetBindings, Date.now() + 2 * HOUR_MS)).expired).toBe(1);
  return { owner, principal, agent, projectId, ids: { revoked, below, active, kept, abandoned, expired, open } };
}

describe("restore drill", () => {
  it("export, wipe, restore, compare: the same checkpoint, the same export bytes, the same rows and statuses", async () => {
    const { owner, principal, agent, projectId, ids } = await busyProject();
    const before = await storedRows(projectId);
    expect(before).toHaveLength(14);

    // Export: what an operator keeps (docs/recovery.md), checked with the kit as `oc bundle verify` checks it.
    const bundle = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    const original = await checkpointOf(owner, projectId);
    const leaves = (await owner.call<{ ids: string[] }>("GET", `/api/log/leaves?project_id=${projectId}`)).body.ids;
    expect(original.checkpoint?.size).toBe(14);
    const verified = await verifyBundle(bundle, JWKS);
    expect(verified).toMatchObject({ ok: true, checked: 14 });
    const logCheck = checkBundleLog({
      ...{ bundle, format: "csv", leaves, checkpoints: [original.note], jwks: JWKS },
      ...{ projectId, fleetHost: FLEET_HOST },
    });
    expect(logCheck.ok).toBe(true);
    const plan = await planRestore({
      ...{ bundle, leaves, checkpoints: [original.note], jwks: JWKS, fleetHost: FLEET_HOST },
      ...{ name: "drill (restored)", owner: principal.address },
    });
    if (!plan.ok) throw new Error(`${plan.reason}: ${plan.detail}`);
    expect(plan.proof.root).toEqual(original.checkpoint?.root);
    expect(plan.proof).toMatchObject({ size: 14, dropped: 0 });

    // Wipe: the project is gone from D1 (from its shard, in the fleet-shards pass), as after a lost database or a
    // bad migration. The restore file is run in the same database.
    const db = await registryDb(projectId);
    await db.batch(
      ["envelopes", "log_tiles", "log_state", "members", "audit_bundles", "admin_log", "outbox", "projects"].map(
        (table) =>
          db.prepare(`DELETE FROM ${table} WHERE ${table === "projects" ? "id" : "project_id"} = ?`).bind(projectId),
      ),
    );
    expect((await checkpointOf(owner, projectId)).status).toBe(404);

    // Restore: the statements `oc restore` writes to its file, run in one batch as wrangler runs the file.
    await db.batch(plan.statements.map((statement) => db.prepare(statement)));

    // Compare: the log, the export, the rows, the statuses as the API reads them, and no event queued.
    const restored = await checkpointOf(owner, projectId);
    expect(restored.checkpoint).toEqual(original.checkpoint);
    const again = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    expect(splitBundle(again, "csv")?.body).toBe(splitBundle(bundle, "csv")?.body);
    expect(await storedRows(projectId)).toEqual(before);
    const status = async (path: string, key: string) =>
      ((await owner.call<Record<string, { status: string }>>("GET", path)).body[key] as { status: string }).status;
    expect(await status(`/api/delegations/${ids.revoked.id}`, "delegation")).toBe("revoked");
    expect(await status(`/api/subdelegations/${ids.below.id}`, "subdelegation")).toBe("revoked");
    expect(await status(`/api/delegations/${ids.active.id}`, "delegation")).toBe("active");
    const pledges = { kept: "kept", abandoned: "abandoned", expired: "expired_unresolved", open: "pending" } as const;
    for (const [name, state] of Object.entries(pledges)) {
      const id = ids[name as keyof typeof pledges].id;
      expect(await status(`/api/pledges/${id}`, "pledge"), name).toBe(state);
    }
    const project = await owner.call<{ project: { name: string; owner_address: string } }>(
      "GET",
      `/api/projects/${projectId}`,
    );
    expect(project.body.project).toMatchObject({ name: "drill (restored)", owner_address: principal.address });
    const events = await (await registryDb(projectId))
      .prepare("SELECT count(*) AS n FROM outbox WHERE project_id = ?")
      .bind(projectId)
      .first<{ n: number }>();
    expect(events?.n).toBe(0);

    // The file refuses a database that holds the project: nothing of a second run is written.
    await expect(db.batch(plan.statements.map((statement) => db.prepare(statement)))).rejects.toThrow(/UNIQUE/);
    expect(await storedRows(projectId)).toHaveLength(14);

    // The restored log goes on: a new registration is its 15th leaf.
    const more = await action(ids.active.id, agent);
    expect((await owner.call("POST", "/api/actions", { project_id: projectId, envelope: more.envelope })).status).toBe(
      201,
    );
    expect((await checkpointOf(owner, projectId)).checkpoint?.size).toBe(15);
  }, 60_000);

  it("refuses leaves older than the export, another project's checkpoint, an owner that is no address", async () => {
    const { owner, projectId, register } = await loggedProject(2);
    const leavesOf = async () => {
      await integrateLog(projectId);
      return (await owner.call<{ ids: string[] }>("GET", `/api/log/leaves?project_id=${projectId}`)).body.ids;
    };
    const early = await leavesOf();
    const earlyCheckpoint = (await checkpointOf(owner, projectId)).note;
    await register();
    const bundle = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    await register();
    const base = { bundle, jwks: JWKS, fleetHost: FLEET_HOST, name: "log", owner: owner.address as string };
    const stale = await planRestore({ ...base, leaves: early, checkpoints: [earlyCheckpoint] });
    expect(stale).toMatchObject({ ok: false, reason: "leaves_mismatch" });
    const other = await loggedProject(1);
    const otherCheckpoint = (await checkpointOf(other.owner, other.projectId)).note;
    const leaves = await leavesOf();
    const wrongLog = await planRestore({ ...base, leaves, checkpoints: [otherCheckpoint] });
    expect(wrongLog).toMatchObject({ ok: false, reason: "checkpoint_wrong_log" });
    const noAddress = await planRestore({ ...base, leaves, checkpoints: [earlyCheckpoint], owner: "nope" });
    expect(noAddress).toMatchObject({ ok: false, reason: "project_invalid" });
    // Today's leaves and last week's checkpoint: the bundle's 4 envelopes restored, the first 3 proven by the log,
    // the one registered after the export left out.
    const older = await planRestore({ ...base, leaves, checkpoints: [earlyCheckpoint] });
    expect(older).toMatchObject({ ok: true, proof: { size: 4, dropped: 1, checkpoint: { size: 3 } } });
  }, 60_000);
});
