// Each new WebAuthn challenge first deletes the expired ones (shared/db/webauthn.ts). Anyone may ask for a passkey
// sign-in challenge, so the live rows are a stranger's to grow (20 a minute per address, each kept five minutes):
// without an index on expires_at that delete read every live challenge, a row D1 bills each, on every new challenge.
// It is planned on `webauthn_challenges_expires` (d1-migrations/0016) and reads only what it deletes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { orm } from "../../shared/db/client";
import { storeWebauthnChallenge } from "../../shared/db/webauthn";
import { recordD1 } from "../helpers/d1-recorder";

const NOW = 1_900_000_000_000;
const MINUTE = 60_000;

const signInChallenge = (challenge: string, now: number) =>
  ({ challenge, purpose: "signin", accountId: null, sessionId: null, now }) as const;

describe("the expired challenges' sweep", () => {
  it("is planned on the expires_at index, never a scan of the table", async () => {
    const recording = recordD1();
    await storeWebauthnChallenge(orm(recording.db), signInChallenge("sweep-plan", NOW));
    const sweep = recording.statements.map((s) => s.sql).find((sql) => /^delete from/i.test(sql));
    expect(sweep).toBeDefined();
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sweep}`).bind(null).all<{ detail: string }>();
    const plan = results.map((r) => r.detail);
    expect(
      plan.some((d) => /^SEARCH webauthn_challenges USING (COVERING )?INDEX webauthn_challenges_expires/.test(d)),
    ).toBe(true);
    expect(plan.filter((d) => /^SCAN webauthn_challenges\b/.test(d))).toEqual([]);
  });

  it("reads the expired rows it deletes, not the live ones beside them", async () => {
    const db = orm(env.DB);
    // 40 live challenges (a stranger's), then one more 5 minutes later, when none of them has expired yet.
    for (let i = 0; i < 40; i++) await storeWebauthnChallenge(db, signInChallenge(`live-${i}`, NOW + i));
    const recording = recordD1();
    await storeWebauthnChallenge(orm(recording.db), signInChallenge("next", NOW + 100));
    const sweep = recording.rows.find((r) => /^delete from/i.test(r.sql));
    expect(sweep?.read).toBeLessThanOrEqual(1);
    expect(sweep?.written).toBe(0);
    // Once they have expired, the next challenge deletes them all, and they are gone.
    await storeWebauthnChallenge(db, signInChallenge("later", NOW + 10 * MINUTE));
    const left = await env.DB.prepare("SELECT challenge FROM webauthn_challenges WHERE challenge LIKE 'live-%'").all();
    expect(left.results).toEqual([]);
  });
});
