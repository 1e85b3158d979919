// d1-migrations/0022 (issue 47, item 1) rebuilds `challenges`, `sessions` and `account_identities` without rowids,
// keyed by what their reads name, and makes the recovery address's unique index partial. Here a database is migrated
// to 0021 (MIGRATION_DB, which no setup file migrates), given 20,000 accounts with an identity each, a session each
// (some legacy single sessions with no roster, some rosters of several accounts) and a challenge each (half expired);
// then 0022 runs. Every row keeps every column, and the uniqueness the old keys held still holds.
import { applyD1Migrations, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const ACCOUNTS = 20_000;
/** Rows per seeding statement: one JSON parameter. */
const SEED_BATCH = 2_000;
const NOW = 1_800_000_000_000;

const db = () => env.MIGRATION_DB as D1Database;
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/** Account `i`'s rows: the account, its identity, its session and a challenge of its address. */
function rowsOf(i: number) {
  const id = hex(i, 32);
  const address = `bc1q${hex(i, 38)}`;
  return {
    id,
    did: `did:oc:${id}`,
    address,
    recovery: i % 7 === 0 ? `r${i}@example.com` : null,
    session: crypto.randomUUID(),
    token: hex(i * 31 + 1, 64),
    // Every 10th a legacy single session; the others in rosters of up to 3 accounts.
    roster: i % 10 === 0 ? null : `roster-${Math.floor(i / 3)}`,
    method: i % 2 === 0 ? "bip322" : null,
    nonce: hex(i, 32),
    expires: NOW + (i % 2 === 0 ? -60_000 : 300_000) - (i % 1000) * 1000,
  };
}

async function seed(): Promise<void> {
  for (let start = 0; start < ACCOUNTS; start += SEED_BATCH) {
    const rows = Array.from({ length: SEED_BATCH }, (_, k) => rowsOf(start + k));
    const json = JSON.stringify(rows);
    await db().batch([
      db()
        .prepare(
          `INSERT INTO accounts (id, did_oc, primary_btc, display_identity_kind, created_at, updated_at, recovery_email,
             recovery_set_at)
           SELECT value ->> 'id', value ->> 'did', value ->> 'address', 'btc', ${NOW}, ${NOW}, value ->> 'recovery',
             CASE WHEN value ->> 'recovery' IS NULL THEN NULL ELSE ${NOW} END
           FROM json_each(?)`,
        )
        .bind(json),
      db()
        .prepare(
          `INSERT INTO account_identities (kind, value, account_id, created_at)
           SELECT 'btc', value ->> 'address', value ->> 'id', ${NOW} + key FROM json_each(?)`,
        )
        .bind(json),
      db()
        .prepare(
          `INSERT INTO sessions (id, token_hash, account_id, roster_id, authenticated_at, created_at, expires_at,
             last_seen_at, auth_method, stepped_up_at, user_agent, place)
           SELECT value ->> 'session', value ->> 'token', value ->> 'id', value ->> 'roster', ${NOW} - key,
             ${NOW} - key, ${NOW} + 86400000, ${NOW}, value ->> 'method', CASE WHEN key % 5 = 0 THEN ${NOW} END,
             'Mozilla/5.0 ' || key, CASE WHEN key % 3 = 0 THEN 'Lisbon, PT' END
           FROM json_each(?)`,
        )
        .bind(json),
      db()
        .prepare(
          `INSERT INTO challenges (nonce, message_hash, address, audience, purpose, expires_at, created_at)
           SELECT value ->> 'nonce', lower(hex(randomblob(32))), value ->> 'address', 'https://auth.example',
             CASE WHEN key % 4 = 0 THEN NULL ELSE 'login' END, value ->> 'expires', (value ->> 'expires') - 300000
           FROM json_each(?)`,
        )
        .bind(json),
    ]);
  }
}

const SNAPSHOTS = {
  challenges: "SELECT * FROM challenges ORDER BY nonce",
  sessions: "SELECT * FROM sessions ORDER BY id",
  account_identities: "SELECT * FROM account_identities ORDER BY kind, value",
  accounts: "SELECT * FROM accounts ORDER BY id",
} as const;

/** Every row of the four tables, columns by name (so a rebuilt table's column order does not matter). */
async function snapshot(): Promise<Record<keyof typeof SNAPSHOTS, string>> {
  const out = {} as Record<keyof typeof SNAPSHOTS, string>;
  for (const [table, sql] of Object.entries(SNAPSHOTS) as [keyof typeof SNAPSHOTS, string][]) {
    const { results } = await db().prepare(sql).all<Record<string, unknown>>();
    const sorted = results.map((r) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b))));
    out[table] = JSON.stringify(sorted);
  }
  return out;
}

/** A statement's failure message, or null when it ran. */
async function refusal(sql: string, ...params: unknown[]): Promise<string | null> {
  try {
    await db()
      .prepare(sql)
      .bind(...params)
      .run();
    return null;
  } catch (err) {
    return String(err);
  }
}

describe("migration 0022: the sign-in tables keyed by their reads", () => {
  it("keeps every row of 20,000 accounts' challenges, sessions and identities, and every uniqueness", async () => {
    const migrations = env.TEST_MIGRATIONS;
    const before = migrations.filter((m) => m.name < "0022");
    const the0022 = migrations.filter((m) => m.name.startsWith("0022_"));
    expect(the0022).toHaveLength(1);
    await applyD1Migrations(db(), before);
    await seed();
    const was = await snapshot();
    expect(JSON.parse(was.sessions)).toHaveLength(ACCOUNTS);

    await applyD1Migrations(db(), the0022);
    expect(await snapshot()).toEqual(was);

    const { results: tables } = await db()
      .prepare(
        "SELECT name, sql FROM sqlite_schema WHERE name IN ('challenges', 'sessions', 'account_identities') ORDER BY name",
      )
      .all<{ name: string; sql: string }>();
    expect(tables.map((t) => [t.name, /WITHOUT ROWID\s*$/.test(t.sql)])).toEqual([
      ["account_identities", true],
      ["challenges", true],
      ["sessions", true],
    ]);
    const { results: indexes } = await db()
      .prepare(
        `SELECT name FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'
           AND tbl_name IN ('challenges', 'sessions', 'account_identities', 'accounts') ORDER BY name`,
      )
      .all<{ name: string }>();
    expect(indexes.map((i) => i.name)).toEqual([
      "account_identities_account",
      "accounts_deletion_due",
      "accounts_did_oc_unique",
      "accounts_recovery_email_unique",
      "sessions_roster_account",
    ]);

    const [a, b] = [rowsOf(1), rowsOf(2)];
    // An identity, a roster's account, a recovery address and a nonce with its expiry are each still taken once.
    expect(await refusal("INSERT INTO account_identities VALUES ('btc', ?, ?, 0)", a.address, b.id)).toMatch(
      /UNIQUE constraint failed/,
    );
    const session =
      "INSERT INTO sessions (id, token_hash, account_id, roster_id, authenticated_at, created_at, " +
      "expires_at, last_seen_at) VALUES (?, ?, ?, ?, 0, 0, 1, 0)";
    expect(await refusal(session, "new", hex(7, 64), a.id, a.roster)).toMatch(/UNIQUE constraint failed/);
    expect(await refusal(session, "same token", a.token, a.id, "another roster")).toMatch(/UNIQUE constraint failed/);
    expect(await refusal("UPDATE accounts SET recovery_email = 'r0@example.com' WHERE id = ?", b.id)).toMatch(
      /UNIQUE constraint failed/,
    );
    const challenge = "INSERT INTO challenges VALUES (?, 'h', 'a', NULL, NULL, ?, 0)";
    expect(await refusal(challenge, a.nonce, a.expires)).toMatch(/UNIQUE constraint failed/);
    // Legacy single sessions (no roster) and accounts without a recovery address are as many as before.
    expect(await refusal(session, "legacy", hex(8, 64), a.id, null)).toBeNull();
    expect(await refusal("UPDATE accounts SET recovery_email = NULL WHERE id = ?", b.id)).toBeNull();
  }, 300_000);
});
