// The discovery list of public logs (issue 48 item 3): only logs made public, in the order they became public, paged
// by cursor across every shard; a log made private again leaves it; anonymous, cached a minute, readable by a page of
// any origin. What each entry says is enough to follow the log (log-public.test.ts follows one with it).
import { describe, expect, it } from "vitest";
import { fromPage } from "../helpers/cors";
import { FLEET, FleetClient, ownerWithProject } from "../helpers/fleet";

interface PublicLog {
  project_id: string;
  origin: string;
  verifier_key: string;
  checkpoint_url: string;
  tiles_prefix: string;
  public_since: string;
}
type Page = { logs: PublicLog[]; next_cursor: string | null };

/** Every page of the list, `limit` at a time, in order. */
async function everyPublicLog(client: FleetClient, limit: number): Promise<PublicLog[]> {
  const out: PublicLog[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${cursor}` : "";
    const res = await client.call<Page>("GET", `/api/logs/public?limit=${limit}${query}`);
    expect(res.status).toBe(200);
    out.push(...res.body.logs);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

/** A few milliseconds, so two changes in a row are not made in the same millisecond (the list's order is by time). */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

const setPublic = async (owner: FleetClient, projectId: string, wanted: boolean) =>
  expect((await owner.call("PUT", `/api/projects/${projectId}/log-visibility`, { public: wanted })).status).toBe(200);

describe("the public logs' discovery list", () => {
  it("lists only public logs, in the order they became public, page by page; going private removes one", async () => {
    const projects = [];
    for (const name of ["a", "b", "c", "private"]) projects.push(await ownerWithProject(name));
    // Made public in the order c, a, b; the fourth stays private.
    for (const i of [2, 0, 1]) {
      const project = projects[i];
      if (!project) throw new Error("no project");
      await setPublic(project.owner, project.projectId, true);
      await tick();
    }
    const ids = projects.map((p) => p.projectId);
    const anyone = new FleetClient();
    const mine = (logs: PublicLog[]) => logs.map((l) => l.project_id).filter((id) => ids.includes(id));
    expect(mine(await everyPublicLog(anyone, 1))).toEqual([ids[2], ids[0], ids[1]]);
    expect(mine(await everyPublicLog(anyone, 100))).toEqual([ids[2], ids[0], ids[1]]);

    const listed = (await everyPublicLog(anyone, 100)).find((l) => l.project_id === ids[0]);
    expect(listed).toMatchObject({
      checkpoint_url: `${FLEET}/api/log/${ids[0]}/checkpoint`,
      tiles_prefix: `${FLEET}/api/log/${ids[0]}/`,
    });
    expect(listed?.origin).toContain(ids[0]);
    expect(listed?.verifier_key).toMatch(/^[^+\s]+\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/);
    expect(Number.isNaN(Date.parse(listed?.public_since ?? ""))).toBe(false);

    const [first] = projects;
    if (!first) throw new Error("no project");
    await setPublic(first.owner, first.projectId, false);
    await tick();
    expect(mine(await everyPublicLog(anyone, 100))).toEqual([ids[2], ids[1]]);
    // Public again: it became public last, so it is listed last (a crawler's next page finds it).
    await setPublic(first.owner, first.projectId, true);
    expect(mine(await everyPublicLog(anyone, 100))).toEqual([ids[2], ids[1], ids[0]]);
  });

  it("anonymous, cached a minute by anyone, with CORS for a page of any origin; a bad cursor is invalid_query", async () => {
    const page = new FleetClient();
    const res = await page.fetch("/api/logs/public", { headers: fromPage(), fetchMetadata: false });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    await res.arrayBuffer();
    const { owner } = await ownerWithProject("signed in");
    const signed = await owner.fetch("/api/logs/public");
    expect(signed.headers.get("cache-control")).toBe("private, max-age=60");
    await signed.arrayBuffer();
    const bad = await page.call("GET", "/api/logs/public?cursor=nonsense");
    expect([bad.status, bad.body.reason]).toEqual([400, "invalid_query"]);
  });
});
