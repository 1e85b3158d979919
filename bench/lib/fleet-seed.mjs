// Seeds the fleet's D1 directly (as the project and token routes would have written it): projects with their
// owner, API tokens (only the sha256 of the `ock_` secret is stored), and filler envelopes for the scale columns.
import { createHash, randomBytes } from "node:crypto";

const hex = (bytes) => randomBytes(bytes).toString("hex");
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/**
 * One project owned by `owner` (a wallet), with an owner member row and `tokens` API tokens (each is its own
 * caller, with its own share of the project's rate limit); returns its ids and the tokens' ids and secrets.
 */
export async function seedProject(db, owner, tokens = 1) {
  const now = Date.now();
  const projectId = `proj_${hex(12)}`;
  const secrets = Array.from({ length: tokens }, () => `ock_${hex(32)}`);
  const tokenIds = secrets.map(() => `tok_${hex(12)}`);
  await db.batch([
    db
      .prepare("INSERT INTO projects (id, name, owner_address, created_at, updated_at) VALUES (?, 'bench', ?, ?, ?)")
      .bind(projectId, owner.address, now, now),
    db
      .prepare(
        "INSERT INTO members (id, project_id, address, role, created_at, updated_at) VALUES (?, ?, ?, 'owner', ?, ?)",
      )
      .bind(`mem_${hex(12)}`, projectId, owner.address, now, now),
    ...secrets.map((secret, i) =>
      db
        .prepare(
          "INSERT INTO api_tokens (id, project_id, name, token_hash, hint, created_by, expires_at, created_at) VALUES (?, ?, 'bench', ?, ?, ?, ?, ?)",
        )
        .bind(tokenIds[i], projectId, sha256(secret), secret.slice(-4), owner.address, now + 86_400_000, now),
    ),
  ]);
  return { projectId, secret: secrets[0], secrets, tokenIds, owner };
}

/**
 * `count` filler rows in `projectId`, all action envelopes with `body` (a real signed action's bytes) under
 * distinct ids, generated inside SQLite in one statement per 50,000 rows. They are in no log (`leaf_idx` null, as
 * they had no `log_leaves` row before d1-migrations/0021), so the integrator has only the measured registrations to
 * integrate, as before; every index a registration enters still holds an entry for each of them.
 */
export async function seedEnvelopes(db, projectId, count, body, kind = "action") {
  const prefix = hex(8);
  for (let done = 0; done < count; done += 50_000) {
    const n = Math.min(50_000, count - done);
    await db
      .prepare(
        `INSERT INTO envelopes (project_id, id, kind, body, status, created_at)
         WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
         SELECT ?, ? || printf('%056d', ? + i), ?, ?, NULL, ? FROM c`,
      )
      .bind(n, projectId, prefix, done, kind, body, Date.now())
      .run();
  }
}

export async function countRows(db, table, where = "1 = 1", ...binds) {
  const row = await db
    .prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
    .bind(...binds)
    .first();
  return row.n;
}
