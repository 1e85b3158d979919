// D1 read replication through the Sessions API (shared/db/read-replicas.ts): every fleet API request runs on a D1
// session and answers with its bookmark; a read given a bookmark starts there (a replica at least that new), a read
// without one may use any replica, and every other request starts at the primary. Local D1 has one database and no
// replica: these tests hold the bookmark's path (where a session starts, what the answer carries, that a caller
// who sends it back reads its write), not a lagging replica's wait, which only Cloudflare's D1 can show.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER, bookmarkFrom, sessionStart } from "../../shared/db/read-replicas";
import { app } from "../../workers/fleet/src/app";
import { FLEET, FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;
const SAMPLE = `0000007b-0000b26e-00001538-${"0c3e87bb".repeat(4)}`;

describe("where a request's session starts", () => {
  it("a read at the caller's bookmark or any replica; a write, or any other method, at the primary", () => {
    expect(sessionStart("GET", SAMPLE)).toBe(SAMPLE);
    expect(sessionStart("HEAD", undefined)).toBe("first-unconstrained");
    expect(sessionStart("GET", undefined)).toBe("first-unconstrained");
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      expect(sessionStart(method, SAMPLE)).toBe("first-primary");
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

  it("the app asks D1 for the session its request calls for", async () => {
    const starts: (string | undefined)[] = [];
    const db = new Proxy(env.DB, {
      get(target, key) {
        if (key === "withSession") {
          return (constraint?: string) => {
            starts.push(constraint);
            return target.withSession(constraint);
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const call = async (method: string, headers: Record<string, string> = {}) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`${FLEET}/api/projects`, { method, headers: { "cf-connecting-ip": "198.51.100.7", ...headers } }),
        { ...env, DB: db },
        ctx,
      );
      await res.arrayBuffer();
      await waitOnExecutionContext(ctx);
    };
    await call("GET", { [BOOKMARK_HEADER]: SAMPLE });
    await call("GET", { [BOOKMARK_HEADER]: "not-a-bookmark" });
    await call("POST", { [BOOKMARK_HEADER]: SAMPLE, "content-type": "application/json" });
    expect(starts).toEqual([SAMPLE, "first-unconstrained", "first-primary"]);
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
    expect(after >= written).toBe(true);
  });

  it("a request refused before any query answers without one: its session has no bookmark to give", async () => {
    const anonymous = await new FleetClient().fetch("/api/projects");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.has(BOOKMARK_HEADER)).toBe(false);
  });

  it("a refused request and a read with a malformed bookmark still answer as before, with a bookmark", async () => {
    const stranger = await signedIn();
    const refused = await stranger.fetch("/api/projects/proj_does_not_exist/tokens");
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(refused.headers.get(BOOKMARK_HEADER) ?? "").toMatch(BOOKMARK);
    const odd = await stranger.fetch("/api/projects", { headers: { [BOOKMARK_HEADER]: "../../etc" } });
    expect(odd.status).toBe(200);
    expect(odd.headers.get(BOOKMARK_HEADER) ?? "").toMatch(BOOKMARK);
  });
});
