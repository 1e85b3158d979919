import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER, bookmarkFrom, bookmarksFrom, sessionStart } from "../../shared/db/read-replicas";
import { registryShards } from "../../shared/db/registry-shards";
import { authDb } from "../helpers/auth-db";
import { recordD1 } from "../helpers/d1-recorder";
import { FLEET, FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { fleetAnswer } from "../helpers/fleet-app";

const ONE = "[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}";
/** D1's bookmark; with several registry shards (fleet-shards) one `<shard>.<bookmark>` per shard touched. */
const BOOKMARK =
  registryShards(env).length > 1 ? new RegExp(`^\\d+\\.${ONE}(,\\d+\\.${ONE})*$`) : new RegExp(`^${ONE}$`);
const SAMPLE = `0000007b-0000b26e-00001538-${"0c3e87bb".repeat(4)}`;

describe("where a request's session starts", () => {
  it("an anonymous read at the caller's bookmark or any replica; a write, or any other method, at the primary", () => {
    expect(sessionStart("GET", SAMPLE, false)).toBe(SAMPLE);
    expect(sessionStart("HEAD", undefined, false)).toBe("first-unconstrained");
    expect(sessionStart("GET", undefined, false)).toBe("first-unconstrained");
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      expect(sessionStart(method, SAMPLE, false)).toBe("first-primary");
    }
  });

  it("a request with a credential starts at the primary whatever its method and bookmark", () => {
    for (const method of ["GET", "HEAD", "POST", "DELETE"]) {
      expect(sessionStart(method, SAMPLE, true)).toBe("first-primary");
      expect(sessionStart(method, undefined, true)).toBe("first-primary");
    }
  });

  it("takes only D1's bookmark shape from the caller; anything else counts as none", () => {
    expect(bookmarkFrom(SAMPLE)).toBe(SAMPLE);
    for (const bad of [
      "",
      "first-primary",
      "first-unconstrained",
      SAMPLE.toUpperCase(),
      `${SAMPLE}0`,
      "x".repeat(5000),
    ]) {
      expect(bookmarkFrom(bad)).toBeUndefined();
    }
    expect(bookmarkFrom(undefined)).toBeUndefined();
  });

  const recording = recordD1();
  const call = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const { res, settled } = await fleetAnswer(
      new Request(`${FLEET}${path}`, { method, headers: { "cf-connecting-ip": "198.51.100.7", ...headers } }),
      { DB: recording.db },
    );
    await res.arrayBuffer();
    await settled();
    return res;
  };

  it("the app asks D1 for the session its request calls for", async () => {
    recording.clear();
    await call("GET", "/api/projects", { [BOOKMARK_HEADER]: SAMPLE });
    await call("GET", "/api/projects", { [BOOKMARK_HEADER]: "not-a-bookmark" });
    await call("POST", "/api/projects", { [BOOKMARK_HEADER]: SAMPLE, "content-type": "application/json" });
    expect(recording.starts).toEqual([SAMPLE, "first-unconstrained", "first-primary"]);
  });

  it("a GET with a session cookie or a bearer token decides who is calling at the primary (issue 26)", async () => {
    const { owner, projectId } = await ownerWithProject("Primary reads");
    const created = await owner.call<{ secret: string }>("POST", "/api/tokens", { project_id: projectId, name: "t" });
    const cookie = { cookie: `oc_session=${owner.cookie}` };
    const bearer = { authorization: `Bearer ${created.body.secret}` };
    recording.clear();
    for (const credential of [cookie, bearer]) {
      // A bookmark sent beside a credential does not move the session off the primary.
      const res = await call("GET", `/api/projects/${projectId}`, { ...credential, [BOOKMARK_HEADER]: SAMPLE });
      expect(res.status).toBe(200);
    }
    // The signed artifacts and the log are member reads: at the primary too (a checkpoint and the proof asked for
    // next never see two sizes; an export never lacks what was registered before it was asked for).
    for (const path of [
      `/api/log/checkpoint?project_id=${projectId}`,
      `/api/log/consistency?project_id=${projectId}&first=1`,
      `/api/audit/export?project_id=${projectId}`,
    ]) {
      await call("GET", path, cookie);
    }
    // Anonymous reads (a public pledge read) and a malformed bearer (anonymous by the spec) may use a replica.
    await call("GET", `/api/pledges/${"0".repeat(64)}`);
    await call("GET", `/api/pledges/${"0".repeat(64)}`, { authorization: "Bearer not-a-token" });
    expect(recording.starts).toEqual([
      "first-primary",
      "first-primary",
      "first-primary",
      "first-primary",
      "first-primary",
      "first-unconstrained",
      "first-unconstrained",
    ]);
  });
});

describe("bookmarks on the answers", () => {
  it("the OpenAPI description says how the header works", async () => {
    const res = await new FleetClient().fetch("/api/openapi");
    const document = (await res.json()) as { info: { description?: string } };
    expect(document.info.description).toContain(BOOKMARK_HEADER);
  });

  it("a write answers with a bookmark; a read sent with it sees the write and answers with one at least as new", async () => {
    const { owner } = await ownerWithProject("Before");
    const created = await owner.fetch("/api/projects", { method: "POST", json: { name: "Read your writes" } });
    expect(created.status).toBe(201);
    const written = created.headers.get(BOOKMARK_HEADER) ?? "";
    expect(written).toMatch(BOOKMARK);
    const { project } = (await created.json()) as { project: { id: string } };

    const read = await owner.fetch("/api/projects", { headers: { [BOOKMARK_HEADER]: written } });
    expect(read.status).toBe(200);
    const { projects } = (await read.json()) as { projects: { id: string }[] };
    expect(projects.map((p) => p.id)).toContain(project.id);
    const after = read.headers.get(BOOKMARK_HEADER) ?? "";
    expect(after).toMatch(BOOKMARK);
    // Per shard (one, or each the write touched in the fleet-shards pass): at least as new.
    const n = registryShards(env).length;
    const [before, later] = [bookmarksFrom(written, n), bookmarksFrom(after, n)];
    before.forEach((bookmark, i) => {
      if (bookmark) expect((later[i] ?? "") >= bookmark, `shard ${i}`).toBe(true);
    });
    expect(before.some(Boolean)).toBe(true);
  });

  it("an anonymous answer carries no bookmark, even when its request read the database (issue 26)", async () => {
    const anonymous = await new FleetClient().fetch(`/api/pledges/${"0".repeat(64)}`);
    expect(anonymous.status).toBe(404);
    expect(anonymous.headers.has(BOOKMARK_HEADER)).toBe(false);
    const withBookmark = await new FleetClient().fetch(`/api/pledges/${"0".repeat(64)}`, {
      headers: { [BOOKMARK_HEADER]: SAMPLE },
    });
    expect(withBookmark.headers.has(BOOKMARK_HEADER)).toBe(false);
    // A credential that does not authenticate (a logged-out session) gets none either.
    const gone = await signedIn();
    await authDb()
      .prepare(
        "UPDATE sessions SET expires_at = 0 WHERE account_id IN (SELECT account_id FROM account_identities WHERE value = ?)",
      )
      .bind(gone.address ?? "")
      .run();
    const refused = await gone.fetch("/api/projects");
    expect(refused.status).toBe(401);
    expect(refused.headers.has(BOOKMARK_HEADER)).toBe(false);
  });

  it("a request refused before any query answers without one: its session has no bookmark to give", async () => {
    const anonymous = await new FleetClient().fetch("/api/projects");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.has(BOOKMARK_HEADER)).toBe(false);
  });

  it("a refused request and a read with a malformed bookmark still answer as before, with a bookmark", async () => {
    const stranger = await signedIn();
    // Refused after reading the registry (no membership): its session ran a query, so it has a bookmark to give.
    const refused = await stranger.fetch(`/api/tokens?project_id=proj_${"0".repeat(24)}`);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(refused.headers.get(BOOKMARK_HEADER) ?? "").toMatch(BOOKMARK);
    const odd = await stranger.fetch("/api/projects", { headers: { [BOOKMARK_HEADER]: "../../etc" } });
    expect(odd.status).toBe(200);
    expect(odd.headers.get(BOOKMARK_HEADER) ?? "").toMatch(BOOKMARK);
  });
});
