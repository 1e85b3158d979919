// The `envelopes_registered` trigger (d1-migrations/0009, 0021): a registration's insert carries its event id, and
// the database writes the event (typed by the envelope's kind as registry/events.ts says) in the same statement when
// the project has an active webhook endpoint to deliver it to. Rows inserted without an event id (rows from before)
// get none. The log leaf is no longer the trigger's: it is the envelope's own row (its index given by the insert,
// registry/store.ts), so the trigger writes nothing else.
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

/** Every row of the project outside `envelopes` that the trigger could have written. */
const outboxOf = (projectId: string) =>
  env.DB.prepare("SELECT id FROM outbox WHERE project_id = ? ORDER BY id").bind(projectId).all<{ id: string }>();

const activeEndpoint = (projectId: string, id: string) =>
  env.DB.prepare(
    `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret_sealed, active, created_at, updated_at)
     VALUES (?, ?, 'https://example.com/hook', '["*"]', 'x', 1, 1, 1)`,
  )
    .bind(id, projectId)
    .run();

describe("the registration trigger", () => {
  it("writes each kind's event, as the registry's table names it, pending for the project's endpoint", async () => {
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
    expect((await outboxOf(projectId)).results).toHaveLength(kinds.length);
  });

  it("keeps no event for a project without an active endpoint (nothing to deliver)", async () => {
    const projectId = "proj_trigger_no_endpoint";
    await insert(projectId, "env-quiet", "action", "evt_quiet").run();
    expect(await eventOf("evt_quiet")).toBeNull();
    expect((await outboxOf(projectId)).results).toEqual([]);
  });

  it("writes nothing more for a row without an event id, nor when the insert is refused", async () => {
    const projectId = "proj_trigger_none";
    await insert(projectId, "env-old", "action", null).run();
    expect((await outboxOf(projectId)).results).toEqual([]);
    await activeEndpoint(projectId, "whe_trigger_none");
    await insert(projectId, "env-new", "action", "evt_first").run();
    await expect(insert(projectId, "env-new", "action", "evt_second").run()).rejects.toThrow(/UNIQUE/);
    expect(await eventOf("evt_first")).not.toBeNull();
    expect(await eventOf("evt_second")).toBeNull();
    expect((await outboxOf(projectId)).results.map((r) => r.id)).toEqual(["evt_first"]);
  });
});
