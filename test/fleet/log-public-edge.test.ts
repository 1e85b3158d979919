// A public log's tiles and entry bundles at the edge (issue 48 item 3; workers/fleet/src/log/edge-cache.ts): an
// anonymous read is answered from the data center's cache once it holds the piece, so the database is not read again
// (shown here by deleting the log's tile rows: the anonymous reader still gets the same bytes, a member's read, which
// never uses the cache, finds nothing), and the log's visibility is checked first every time, so a log made private
// is refused at once whatever the cache holds.
import { describe, expect, it } from "vitest";
import { FleetClient } from "../helpers/fleet";
import { integrateLog, loggedProject } from "../helpers/log";
import { registryDb } from "../helpers/registry-db";

const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

describe("a public log's pieces at the edge", () => {
  it("an anonymous reader is served the cached copy; a member reads the database; going private refuses at once", async () => {
    const { owner, projectId } = await loggedProject(3);
    await integrateLog(projectId);
    const made = await owner.call("PUT", `/api/projects/${projectId}/log-visibility`, { public: true });
    expect(made.status).toBe(200);
    const anyone = new FleetClient();
    const pieces = [`/api/log/${projectId}/tile/0/000.p/4`, `/api/log/${projectId}/tile/entries/000.p/4`];
    const first: Uint8Array[] = [];
    for (const piece of pieces) {
      const res = await anyone.fetch(piece);
      expect(res.status, piece).toBe(200);
      first.push(await bytesOf(res));
    }
    // Let the answers' background work (the cache's put) finish.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const db = await registryDb(projectId);
    await db.prepare("DELETE FROM log_tiles WHERE project_id = ?").bind(projectId).run();
    for (const [i, piece] of pieces.entries()) {
      const res = await anyone.fetch(piece);
      expect(res.status, piece).toBe(200);
      expect(await bytesOf(res)).toEqual(first[i]);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("cache-control")).toBe("public, max-age=60");
      expect((await owner.fetch(piece)).status, `${piece} for a member`).toBe(404);
    }

    expect((await owner.call("PUT", `/api/projects/${projectId}/log-visibility`, { public: false })).status).toBe(200);
    for (const piece of pieces) {
      const res = await anyone.fetch(piece);
      expect(res.status, piece).toBe(401);
      expect(((await res.json()) as { reason: string }).reason).toBe("unauthenticated");
    }
  });
});
