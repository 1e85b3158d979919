// Background dispatch after writes: concurrent writes share one sweep in flight, and an event written while it runs
// is still fanned out by the extra pass it asked for (none is left to the cron sweep).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomHex } from "../../shared/crypto/digest";
import type { FleetBindings } from "../../workers/fleet/src/env";
import { coalescedDispatch } from "../../workers/fleet/src/webhooks/after-write";

const fleetEnv = env as unknown as FleetBindings;

async function writeEvent(): Promise<string> {
  const id = `evt_${randomHex(12)}`;
  await env.DB.prepare(
    "INSERT INTO outbox (id, project_id, event_type, envelope_id, payload, created_at) VALUES (?, ?, 'delegation.registered', NULL, '{}', ?)",
  )
    .bind(id, `proj_${randomHex(12)}`, Date.now())
    .run();
  return id;
}

async function fannedOut(id: string): Promise<boolean> {
  const row = await env.DB.prepare("SELECT fanned_out_at FROM outbox WHERE id = ?").bind(id).first<{
    fanned_out_at: number | null;
  }>();
  return row?.fanned_out_at !== null && row?.fanned_out_at !== undefined;
}

describe("coalescedDispatch", () => {
  it("shares the run in flight between concurrent writes, and starts a new one after it settles", async () => {
    const first = coalescedDispatch(fleetEnv);
    const second = coalescedDispatch(fleetEnv);
    expect(second).toBe(first);
    await first;
    const third = coalescedDispatch(fleetEnv);
    expect(third).not.toBe(first);
    await third;
  });

  it("fans out an event written while a run is in flight, through the extra pass", async () => {
    const before = await writeEvent();
    const run = coalescedDispatch(fleetEnv);
    const during = await writeEvent();
    await coalescedDispatch(fleetEnv);
    await run;
    expect(await fannedOut(before)).toBe(true);
    expect(await fannedOut(during)).toBe(true);
  });
});
