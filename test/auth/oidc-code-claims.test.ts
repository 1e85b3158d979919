// An authorization code's exchange is claimed in D1 by its grant (workers/auth/src/oidc/store.ts): the library's own
// single-use check reads KV, which another location may answer a minute stale. The claim is atomic (of two claims,
// one stands), and each claim first deletes the claims past their memory, planned on `oidc_code_exchanges_at`
// (d1-migrations/0017) so it reads only what it deletes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { orm } from "../../shared/db/client";
import { CODE_CLAIM_MEMORY_MS, claimCodeExchange } from "../../workers/auth/src/oidc/store";
import { recordD1 } from "../helpers/d1-recorder";

const NOW = 1_900_000_000_000;

describe("a code exchange's claim", () => {
  it("stands once: of two claims of one grant, at once or one after the other, one is true", async () => {
    const db = orm(env.DB);
    const together = await Promise.all([claimCodeExchange(db, "grant-a", NOW), claimCodeExchange(db, "grant-a", NOW)]);
    expect(together.filter(Boolean)).toHaveLength(1);
    expect(await claimCodeExchange(db, "grant-a", NOW + 1_000)).toBe(false);
    expect(await claimCodeExchange(db, "grant-b", NOW)).toBe(true);
  });

  it("sweeps the claims past their memory, planned on the exchanged_at index, reading only those", async () => {
    const db = orm(env.DB);
    for (let i = 0; i < 30; i++) await claimCodeExchange(db, `live-${i}`, NOW + i);
    const recording = recordD1();
    expect(await claimCodeExchange(orm(recording.db), "next", NOW + 100)).toBe(true);
    const sweep = recording.rows.find((r) => /^delete from/i.test(r.sql));
    expect(sweep?.read).toBeLessThanOrEqual(1);
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sweep?.sql}`).bind(0).all<{ detail: string }>();
    const plan = results.map((r) => r.detail);
    expect(plan.some((d) => /^SEARCH oidc_code_exchanges USING (COVERING )?INDEX oidc_code_exchanges_at/.test(d))).toBe(
      true,
    );
    // A day later the old claims are gone, and their grants could be claimed again (their codes died long before).
    await claimCodeExchange(db, "later", NOW + CODE_CLAIM_MEMORY_MS + 1_000);
    const left = await env.DB.prepare("SELECT grant_id FROM oidc_code_exchanges WHERE grant_id LIKE 'live-%'").all();
    expect(left.results).toEqual([]);
  });
});
