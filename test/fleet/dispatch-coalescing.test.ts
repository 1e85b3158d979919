// Background dispatch after writes: concurrent writes share one sweep in flight, and an event written while it runs
// is still fanned out by the extra pass it asked for (none is left to the cron sweep); the sweep reads at the
// primary, whatever D1 session the request that started it ran on.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomHex } from "../../shared/crypto/digest";
import type { FleetBindings } from "../../workers/fleet/src/env";
import { coalescedDispatch } from "../../workers/fleet/src/webhooks/after-write";
import { recordD1 } from "../helpers/d1-recorder";
import { delegation } from "../helpers/envelopes";
import { FLEET, signedIn, subscribed } from "../helpers/fleet";
import { fleetAnswer } from "../helpers/fleet-app";
import { registryBinding, registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

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

describe("the dispatch after a registration (issue 26, item 12)", () => {
  it("runs at the primary, not on the registration's D1 session, so later passes see later events", async () => {
    const principal = newWallet();
    const owner = await signedIn(principal.address);
    const projectId = (await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "primary" })).body
      .project.id;
    await subscribed(owner, projectId);
    const recording = recordD1(await registryDb(projectId));
    const { res, settled } = await fleetAnswer(
      new Request(`${FLEET}/api/delegations`, {
        method: "POST",
        headers: {
          cookie: `oc_session=${owner.cookie}`,
          "cf-connecting-ip": owner.ip,
          "sec-fetch-site": "same-origin",
          "content-type": "application/json",
        },
        body: JSON.stringify({
          project_id: projectId,
          envelope: (await delegation(principal, newWallet("p2tr"))).envelope,
        }),
      }),
      { [await registryBinding(projectId)]: recording.db },
    );
    expect(res.status).toBe(201);
    await settled();
    const fanOut = recording.statements.filter((s) => /update "outbox"/i.test(s.sql));
    expect(fanOut.length).toBeGreaterThan(0);
    expect(fanOut.map((s) => s.on)).toEqual(fanOut.map(() => "binding"));
    // The registration itself ran on the request's session.
    expect(recording.statements.find((s) => /insert into envelopes/i.test(s.sql))?.on).toBe("session");
  });
});
