// The log's name and its entry bundles' encoding (issue 48, the tlog SHOULDs): a served checkpoint's origin is the
// tiles' URL prefix without its scheme, `<host>/api/log/<project>`, and it is signed under that name, the verifier
// key GET /api/log/key?project_id= answers; a checkpoint stored before the rename (origin `<host>/log/<project>`,
// signed as the host) is still served and verified, and the kit's monitor holding it moves on to the new name; entry
// bundles are sent gzip-compressed and read back by the kit.
import { env, SELF } from "cloudflare:test";
import { base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { httpLogReader, monitorStep } from "../../shared/kit/log";
import { checkpointText, parseCheckpoint } from "../../shared/tlog/checkpoint";
import { openNote, parseVerifierKey, signNote } from "../../shared/tlog/note";
import { FLEET, type FleetClient } from "../helpers/fleet";
import { integrateLog, loggedProject } from "../helpers/log";
import { registryDb } from "../helpers/registry-db";

const FLEET_HOST = new URL(FLEET).host;
const AUDIT_SEED = base64urlnopad.decode((JSON.parse(env.FLEET_SIGNING_KEY as string) as { d: string }).d);

const keyOf = async (owner: FleetClient, query = "") =>
  (await owner.call<{ verifier_key: string; kid: string; origin?: string }>("GET", `/api/log/key${query}`)).body;

/** A read-scope token's reader of the project's log over the fleet's HTTP routes, as `oc log monitor` reads it. */
async function monitorOf(owner: FleetClient, projectId: string) {
  const token = await owner.call<{ secret: string }>("POST", "/api/tokens", {
    project_id: projectId,
    name: "monitor",
    scope: "read",
  });
  const fetch: typeof globalThis.fetch = (input, init) =>
    SELF.fetch(input, { ...init, headers: { ...init?.headers, "cf-connecting-ip": "198.51.100.48" } });
  const key = parseVerifierKey((await keyOf(owner, `?project_id=${projectId}`)).verifier_key);
  if (!key) throw new Error("no verifier key");
  const reader = httpLogReader({ fleet: FLEET, projectId, token: token.body.secret, fetch });
  return { reader, fleetHost: FLEET_HOST, projectId, auditKeys: [key.publicKey] };
}

describe("the log's name: origin = key name = the tiles' prefix without its scheme", () => {
  it("the served checkpoint is of <host>/api/log/<project>, signed under that name; GET /api/log/key?project_id= names it", async () => {
    const { owner, projectId } = await loggedProject(2);
    await integrateLog(projectId);
    const note = await (await owner.fetch(`/api/log/${projectId}/checkpoint`)).text();
    const origin = `${FLEET_HOST}/api/log/${projectId}`;
    expect(note.split("\n")[0]).toBe(origin);
    expect(note).toContain(`\n— ${origin} `);
    const named = await keyOf(owner, `?project_id=${projectId}`);
    expect(named.origin).toBe(origin);
    const key = parseVerifierKey(named.verifier_key);
    expect(key?.name).toBe(origin);
    const opened = key && openNote(note, [key]);
    expect(parseCheckpoint(opened?.text ?? "")).toMatchObject({ origin, size: 3 });
    // Without a project: the same audit key under the host's name (what signed checkpoints before), same kid.
    const host = await keyOf(owner);
    expect(parseVerifierKey(host.verifier_key)).toEqual({ name: FLEET_HOST, publicKey: key?.publicKey });
    expect(host.kid).toBe(named.kid);
    const bad = await owner.call<{ reason: string }>("GET", "/api/log/key?project_id=proj_nope");
    expect([bad.status, bad.body.reason]).toEqual([400, "invalid_query"]);
  });

  it("a checkpoint stored under the old name is served as it is, and a monitor holding it moves on to the new name", async () => {
    const { owner, projectId, register } = await loggedProject(2);
    await integrateLog(projectId);
    const db = await registryDb(projectId);
    const stored = await db
      .prepare("SELECT checkpoint FROM log_state WHERE project_id = ?")
      .bind(projectId)
      .first<{ checkpoint: string }>();
    const current = parseCheckpoint(stored?.checkpoint.slice(0, stored.checkpoint.lastIndexOf("\n\n") + 1) ?? "");
    if (!current) throw new Error("no checkpoint stored");
    // As the integrator signed it before issue 48: origin <host>/log/<project>, the host as key name.
    const legacyText = checkpointText({ ...current, origin: `${FLEET_HOST}/log/${projectId}` });
    const legacy = signNote(legacyText, FLEET_HOST, AUDIT_SEED);
    await db.prepare("UPDATE log_state SET checkpoint = ? WHERE project_id = ?").bind(legacy, projectId).run();
    expect(await (await owner.fetch(`/api/log/${projectId}/checkpoint`)).text()).toBe(legacy);

    const watch = await monitorOf(owner, projectId);
    const first = await monitorStep(watch);
    expect(first).toMatchObject({ ok: true, verified: 3 });
    if (!first.ok) return;
    expect(first.state.origin).toBe(`${FLEET_HOST}/log/${projectId}`);
    await register();
    await integrateLog(projectId);
    const moved = await monitorStep({ ...watch, state: first.state });
    expect(moved).toMatchObject({ ok: true, previousSize: 3, verified: 1 });
    expect(moved.ok && moved.state.origin).toBe(`${FLEET_HOST}/api/log/${projectId}`);
  });
});

describe("entry bundles, compressed", () => {
  it("are sent with Content-Encoding: gzip (hash tiles are not), and the kit's monitor reads them", async () => {
    const { owner, projectId } = await loggedProject(5);
    await integrateLog(projectId);
    const res = await owner.fetch(`/api/log/${projectId}/tile/entries/000.p/6`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    const tile = await owner.fetch(`/api/log/${projectId}/tile/0/000.p/6`);
    expect(tile.headers.get("content-encoding")).toBeNull();
    const watch = await monitorOf(owner, projectId);
    expect(await monitorStep(watch)).toMatchObject({ ok: true, verified: 6 });
  });
});
