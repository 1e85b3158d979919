// The `envelopes_registered` trigger (d1-migrations/0009): a registration's insert carries its event id, and the
// database writes the log leaf with it, in the same statement, and the event (typed by the envelope's kind as
// registry/events.ts says) when the project has an active webhook endpoint to deliver it to. Rows inserted without
// an event id (rows from before) get neither.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { REGISTERED_EVENT, type RegisteredKind } from "../../workers/fleet/src/registry/events";

const insert = (projectId: string, id: string, kind: string, eventId: string | null) =>
  env.DB.prepare(
    "INSERT INTO envelopes (project_id, id, kind, body, created_at, event_id) VALUES (?, ?, ?, '{}', ?, ?)",
  ).bind(projectId, id, kind, 1_000, eventId);

const eventOf = (eventId: string) =>
  env.DB.prepare("SELECT event_type, envelope_id, payload, fanned_out_at FROM outbox WHERE id = ?")
    .bind(eventId)
    .first<{ event_type: string; envelope_id: string; payload: string; fanned_out_at: number | null }>();

const leavesOf = (projectId: string) =>
  env.DB.prepare("SELECT idx, envelope_id, hash FROM log_leaves WHERE project_id = ? ORDER BY idx")
    .bind(projectId)
    .all<{ idx: number; envelope_id: string; hash: string | null }>();

const activeEndpoint = (projectId: string, id: string) =>
  env.DB.prepare(
    `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret_sealed, active, created_at, updated_at)
     VALUES (?, ?, 'https://example.com/hook', '["*"]', 'x', 1, 1, 1)`,
  )
    .bind(id, projectId)
    .run();

describe("the registration trigger", () => {
  it("writes each kind's event, as the registry's table names it, pending for the project's endpoint; and the next leaf", async () => {
    const projectId = "proj_trigger_kinds";
    await activeEndpoint(projectId, "whe_trigger_kinds");
    const kinds = Object.keys(REGISTERED_EVENT) as RegisteredKind[];
    for (const [i, kind] of kinds.entries()) await insert(projectId, `env-${i}`, kind, `evt_kind_${i}`).run();
    for (const [i, kind] of kinds.entries()) {
      const event = await eventOf(`evt_kind_${i}`);
      expect(event).toEqual({
        event_type: REGISTERED_EVENT[kind],
        envelope_id: `env-${i}`,
        payload: "",
        fanned_out_at: null,
      });
    }
    const { results } = await leavesOf(projectId);
    expect(results).toEqual(kinds.map((_, i) => ({ idx: i, envelope_id: `env-${i}`, hash: null })));
  });

  it("keeps no event for a project without an active endpoint (nothing to deliver), but appends the leaf", async () => {
    const projectId = "proj_trigger_no_endpoint";
    await insert(projectId, "env-quiet", "action", "evt_quiet").run();
    expect(await eventOf("evt_quiet")).toBeNull();
    expect((await leavesOf(projectId)).results.map((r) => r.envelope_id)).toEqual(["env-quiet"]);
  });

  it("writes nothing more for a row without an event id, nor when the insert is refused", async () => {
    const projectId = "proj_trigger_none";
    await insert(projectId, "env-old", "action", null).run();
    expect((await leavesOf(projectId)).results).toEqual([]);
    await activeEndpoint(projectId, "whe_trigger_none");
    await insert(projectId, "env-new", "action", "evt_first").run();
    await expect(insert(projectId, "env-new", "action", "evt_second").run()).rejects.toThrow(/UNIQUE/);
    expect(await eventOf("evt_first")).not.toBeNull();
    expect(await eventOf("evt_second")).toBeNull();
    expect((await leavesOf(projectId)).results.map((r) => r.envelope_id)).toEqual(["env-new"]);
  });
});
