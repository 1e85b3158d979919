// d1-migrations/0021 (issue 47) rebuilds `envelopes` in place and folds `log_leaves` into it. Here a database is
// migrated to 0020 (MIGRATION_DB, which no setup file migrates), given 100,000 envelopes of every kind in two
// projects, each with its log leaf (some hashes still missing, as for rows from before registrations carried one)
// and a log integrated over part of them; then 0021 runs. Every envelope keeps its columns and seq, every leaf its
// index and hash, the log its state and tiles, the audit export its bytes, and a registration afterwards takes the
// next index and the log's root is computed as before.
import { applyD1Migrations, env } from "cloudflare:test";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { utf8 } from "../../shared/crypto/digest";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { orm } from "../../shared/db/client";
import { checkpointText } from "../../shared/tlog/checkpoint";
import { leafHash, rootOf } from "../../shared/tlog/merkle";
import { integrate } from "../../shared/tlog/tile-proofs";
import { integrateBatch } from "../../workers/fleet/src/log/integrate";
import { logKey, logOrigin } from "../../workers/fleet/src/log/key";
import { signCheckpoint } from "../../workers/fleet/src/log/sign";
import { integrationWrites, leavesQuery, readState } from "../../workers/fleet/src/log/store";
import { exportStream } from "../../workers/fleet/src/registry/export-stream";
import { leafAndSize } from "../../workers/fleet/src/registry/log";
import { register } from "../../workers/fleet/src/registry/store";
import { FLEET } from "../helpers/fleet";

const TOTAL = 100_000;
const KINDS = ["delegation", "subdelegation", "action", "revocation", "pledge", "outcome", "abandonment"] as const;
const PROJECTS = ["proj_mig0021_a", "proj_mig0021_b"] as const;
/** Rows per seeding statement: one JSON parameter of about 1 MB. */
const SEED_BATCH = 2_500;

const db = () => env.MIGRATION_DB as D1Database;
const hex64 = (n: number) => n.toString(16).padStart(64, "0");

/** Envelope `i`: its project (3 in 5 to the first), kind in turn, bytes and the columns its kind sets. */
function envelopeOf(i: number) {
  const kind = KINDS[i % KINDS.length] as (typeof KINDS)[number];
  const body = JSON.stringify({ n: i, kind, pad: "x".repeat(i % 97) });
  return {
    p: PROJECTS[i % 5 < 3 ? 0 : 1],
    id: hex64(i),
    kind,
    body,
    status: kind === "pledge" ? "pending" : kind.endsWith("delegation") ? "active" : null,
    parent: kind === "subdelegation" ? hex64(i - 1) : null,
    delegation: kind === "action" || kind === "revocation" ? hex64(i - 2) : null,
    pledge: kind === "outcome" || kind === "abandonment" ? hex64(i + 7) : null,
    swearer: kind === "pledge" ? `bc1q${i % 50}` : null,
    expires: kind === "pledge" ? "2099-01-01T00:00:00Z" : null,
  };
}

/** Leaf hashes the log holds before the migration: in the second project, the last 30 % wait for the cron. */
const hashedBefore = (project: string, idx: number, size: number) => project === PROJECTS[0] || idx < size * 0.7;

async function seed(): Promise<Map<string, string[]>> {
  const counts = new Map<string, number>(PROJECTS.map((p) => [p, 0]));
  const sizes = { [PROJECTS[0]]: (TOTAL * 3) / 5, [PROJECTS[1]]: (TOTAL * 2) / 5 };
  const hashes = new Map<string, string[]>(PROJECTS.map((p) => [p, []]));
  for (let start = 0; start < TOTAL; start += SEED_BATCH) {
    const rows = [];
    for (let i = start; i < start + SEED_BATCH; i++) {
      const e = envelopeOf(i);
      const idx = counts.get(e.p) ?? 0;
      counts.set(e.p, idx + 1);
      const hash = bytesToHex(leafHash(utf8(e.body)));
      hashes.get(e.p)?.push(hash);
      // The envelope's own copy of the hash only for rows registered since 0010 (a third here); the leaf's when hashed.
      // No event id: under 0020 the trigger would write a second leaf; the leaves are written here, as 0007 did.
      rows.push({ ...e, idx, eh: i % 3 === 0 ? hash : null, lh: hashedBefore(e.p, idx, sizes[e.p]) ? hash : null });
    }
    await db().batch([
      db()
        .prepare(
          `INSERT INTO envelopes (project_id, id, kind, body, status, parent_id, delegation_id, pledge_id, swearer,
             expires_at, created_at, event_id, leaf_hash)
           SELECT value ->> 'p', value ->> 'id', value ->> 'kind', value ->> 'body', value ->> 'status',
             value ->> 'parent', value ->> 'delegation', value ->> 'pledge', value ->> 'swearer', value ->> 'expires',
             1700000000000 + key, NULL, value ->> 'eh'
           FROM json_each(?)`,
        )
        .bind(JSON.stringify(rows)),
      db()
        .prepare(
          `INSERT INTO log_leaves (project_id, idx, envelope_id, hash)
           SELECT value ->> 'p', value ->> 'idx', value ->> 'id', value ->> 'lh' FROM json_each(?)`,
        )
        .bind(JSON.stringify(rows)),
    ]);
  }
  return hashes;
}

/** A log integrated as the integrator did under 0020: over the first `size` leaves, signed. */
async function integrated(projectId: string, leaves: readonly string[], size: number): Promise<void> {
  const key = logKey(env, FLEET);
  const next = integrate(0, new Map(), leaves.slice(0, size).map(hexToBytes));
  const text = checkpointText({ origin: logOrigin(key, projectId), size, root: next.root, extensions: [] });
  const checkpoint = await signCheckpoint(key, text);
  const ormDb = orm(db());
  const writes = integrationWrites(ormDb, projectId, next.tiles, { size, root: next.root, checkpoint }, 1);
  for (let i = 0; i < writes.length; i += 50) await ormDb.$client.batch(writes.slice(i, i + 50));
}

/** A SHA-256 over the rows of `sql`, read a page at a time in its order (`?` is the page's offset). */
async function digestOf(sql: string): Promise<string> {
  const chunks: string[] = [];
  for (let offset = 0; ; offset += 20_000) {
    const rows = await db().prepare(`${sql} LIMIT 20000 OFFSET ?`).bind(offset).raw();
    if (rows.length === 0) break;
    chunks.push(JSON.stringify(rows));
  }
  return bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(chunks.join("\n")))));
}

const COLUMNS = `seq, project_id, id, kind, body, status, principal_address, agent_address, signer_address, parent_id,
  delegation_id, pledge_id, depth, scopes, issued_at, expires_at, signed_at, scope_exercised, content_hash,
  content_length, content_mime, reason, swearer, outcome, created_at, event_id`;

/** What must not change: every envelope, every leaf, the logs' state and tiles. */
async function snapshot(leaves: string) {
  return {
    envelopes: await digestOf(`SELECT ${COLUMNS} FROM envelopes ORDER BY seq`),
    leaves: await digestOf(leaves),
    state: await digestOf("SELECT project_id, size, root, checkpoint, updated_at FROM log_state ORDER BY project_id"),
    tiles: await digestOf("SELECT project_id, level, idx, hashes FROM log_tiles ORDER BY project_id, level, idx"),
  };
}

let bundles = 0;

/** The project's audit export (ndjson), whole. */
async function exported(projectId: string): Promise<string> {
  const key = await loadSigningKey(env.FLEET_SIGNING_KEY as string);
  bundles += 1;
  return new Response(exportStream(orm(db()), key, projectId, "ndjson", `bundle_mig0021_${bundles}`)).text();
}

/** The export without its manifest line (which carries the time it was made), and the manifest's digest. */
function envelopeBytes(ndjson: string): { rows: string; sha256: string } {
  const lines = ndjson.trimEnd().split("\n");
  const manifest = JSON.parse(lines.at(-1) as string) as { manifest: { sha256: string } };
  return { rows: lines.slice(0, -1).join("\n"), sha256: manifest.manifest.sha256 };
}

describe("migration 0021: the log leaf in its envelope's row", () => {
  it("keeps 100,000 envelopes, their leaves, the logs and the export byte for byte; the log then goes on", async () => {
    const migrations = env.TEST_MIGRATIONS;
    const upTo0020 = migrations.filter((m) => m.name < "0021");
    const the0021 = migrations.filter((m) => m.name.startsWith("0021_"));
    expect(upTo0020).toHaveLength(21);
    expect(the0021).toHaveLength(1);
    await applyD1Migrations(db(), upTo0020);

    let started = performance.now();
    const hashes = await seed();
    const seeding = performance.now() - started;
    const [a, b] = PROJECTS;
    const leavesA = hashes.get(a) as string[];
    const leavesB = hashes.get(b) as string[];
    await integrated(a, leavesA, leavesA.length - 100);
    await integrated(b, leavesB, Math.floor(leavesB.length * 0.5));
    const before = await snapshot("SELECT project_id, idx, envelope_id, hash FROM log_leaves ORDER BY project_id, idx");
    const exportsBefore = [await exported(a), await exported(b)].map(envelopeBytes);

    started = performance.now();
    await applyD1Migrations(db(), the0021);
    const migrating = performance.now() - started;
    console.log(
      `migration 0021: seeded ${TOTAL} envelopes in ${Math.round(seeding)} ms, migrated in ${Math.round(migrating)} ms`,
    );

    const tables = await db()
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('log_leaves', 'sqlite_sequence')")
      .all<{ name: string }>();
    // sqlite_sequence stays (admin_log and account_events keep AUTOINCREMENT) but holds no row for envelopes.
    expect(tables.results.map((t) => t.name)).not.toContain("log_leaves");
    expect(await db().prepare("SELECT count(*) AS n FROM sqlite_sequence WHERE name = 'envelopes'").first("n")).toBe(0);
    const after = await snapshot(
      "SELECT project_id, leaf_idx, id, leaf_hash FROM envelopes WHERE leaf_idx IS NOT NULL ORDER BY project_id, leaf_idx",
    );
    expect(after).toEqual(before);
    expect(await db().prepare("SELECT count(*) AS n FROM envelopes").first("n")).toBe(TOTAL);
    expect([await exported(a), await exported(b)].map(envelopeBytes)).toEqual(exportsBefore);

    // The logs as the product reads them now: the stored roots are those of the leaves the envelopes hold.
    const ormDb = orm(db());
    for (const [projectId, leaves] of [
      [a, leavesA],
      [b, leavesB],
    ] as const) {
      const state = await readState(ormDb, projectId);
      const { results } = await leavesQuery(ormDb, projectId, 0, state?.size ?? 0).all<{ hash: string }>();
      expect(results.map((r) => r.hash)).toEqual(leaves.slice(0, state?.size));
      expect(base64.encode(state?.root ?? new Uint8Array())).toBe(
        base64.encode(rootOf(leaves.slice(0, state?.size).map(hexToBytes))),
      );
    }

    // A registration after the migration takes the next index; the integrator extends the log over it.
    const body = JSON.stringify({ n: "after", kind: "action" });
    const row = await register(ormDb, { projectId: a, id: hex64(TOTAL), kind: "action", body }, { conditions: [] });
    expect(row.logIndex).toBe(leavesA.length);
    expect(await leafAndSize(ormDb, a, hex64(TOTAL))).toEqual({ idx: leavesA.length, size: leavesA.length - 100 });
    expect(row.seq).toBe(TOTAL + 1);
    const key = logKey(env, FLEET);
    let done = await integrateBatch(ormDb, key, a);
    while (done.more) done = await integrateBatch(ormDb, key, a);
    expect(done.to).toBe(leavesA.length + 1);
    const all = [...leavesA, bytesToHex(leafHash(utf8(body)))].map(hexToBytes);
    expect((await readState(ormDb, a))?.root).toEqual(rootOf(all));
  }, 600_000);
});
