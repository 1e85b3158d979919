// The registry past one database (issue 31, item 2-4): projects placed in shards, a project's rows only in its own,
// tenancy across shards, the public pledge reads and the project list across them, a place chosen at creation, and
// a project that moved found again. Runs in both fleet passes: with one shard the cross-shard cases hold trivially;
// the fleet-shards pass (vitest.config.ts: DB and REGISTRY_1 in `default`, REGISTRY_2 in `eu`) is where they bite.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bookmarkHeader, bookmarksFrom } from "../../shared/db/read-replicas";
import { parseShards, registryShards } from "../../shared/db/registry-shards";
import { firstPublic } from "../../workers/fleet/src/registry/public-pledges";
import { placeProject } from "../../workers/fleet/src/registry/shards";
import { delegation, pledge } from "../helpers/envelopes";
import { FleetClient, signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

const shards = registryShards(env);
const sharded = shards.length > 1;
const BM = (n: number) => `0000000${n}-00000000-00000000-${"0".repeat(32)}`;

describe("shard configuration (pure)", () => {
  it("one shard by default; BINDING@place entries in order; a malformed or repeated entry is refused", () => {
    expect(parseShards(undefined, "DB")).toEqual([{ index: 0, binding: "DB", place: "default" }]);
    expect(parseShards(" DB, REGISTRY_EU@eu ", "DB")).toEqual([
      { index: 0, binding: "DB", place: "default" },
      { index: 1, binding: "REGISTRY_EU", place: "eu" },
    ]);
    for (const bad of ["db", "DB@", "DB@EU", "DB@eu@x", "DB,DB"]) expect(() => parseShards(bad, "DB")).toThrow();
  });

  it("a new project goes to one of its place's shards, spread by its id; no shard in the place: none", () => {
    const three = { REGISTRY_SHARDS: "DB, REGISTRY_1, REGISTRY_2@eu", DB: {}, REGISTRY_1: {}, REGISTRY_2: {} };
    const id = (n: number) => `proj_${n.toString(16).padStart(24, "0")}`;
    const placed = Array.from({ length: 6 }, (_, n) => placeProject(three, id(n), undefined)?.binding);
    expect(placed).toEqual(["DB", "REGISTRY_1", "DB", "REGISTRY_1", "DB", "REGISTRY_1"]);
    expect(placeProject(three, id(7), "eu")?.binding).toBe("REGISTRY_2");
    expect(placeProject(three, id(7), "apac")).toBeUndefined();
  });

  it("bookmarks: bare with one shard; `<shard>.<bookmark>` per shard touched with several; a bare one is shard 0's", () => {
    expect(bookmarkHeader([BM(1)])).toBe(BM(1));
    expect(bookmarkHeader([BM(1), null, BM(3)])).toBe(`0.${BM(1)},2.${BM(3)}`);
    expect(bookmarkHeader([null, null])).toBeUndefined();
    expect(bookmarksFrom(`0.${BM(1)},2.${BM(3)}`, 3)).toEqual([BM(1), undefined, BM(3)]);
    expect(bookmarksFrom(BM(1), 3)).toEqual([BM(1), undefined, undefined]);
    expect(bookmarksFrom(`7.${BM(1)},1.junk`, 3)).toEqual([undefined, undefined, undefined]);
    expect(bookmarksFrom(BM(1), 1)).toEqual([BM(1)]);
  });

  it("the public pledge across shards: the earliest resolution's project, else the earliest registration", () => {
    const at = (createdAt: number, resolvedAt: number | null) => ({ row: { createdAt }, resolvedAt });
    expect(firstPublic([at(1, null), at(5, 9), at(2, 7)])).toEqual(at(2, 7));
    expect(firstPublic([at(3, null), at(1, null)])).toEqual(at(1, null));
    expect(firstPublic([])).toBeUndefined();
  });
});

/** Creates projects for `owner` until one is in each of the default place's shards (or the one shard). */
async function projectsInEveryShard(owner: FleetClient): Promise<Map<D1Database, string>> {
  const defaults = shards.filter((s) => s.place === shards[0]?.place);
  const found = new Map<D1Database, string>();
  for (let i = 0; i < 40 && found.size < defaults.length; i++) {
    const res = await owner.call<{ project: { id: string; location: string } }>("POST", "/api/projects", {
      name: `spread ${i}`,
    });
    expect(res.status).toBe(201);
    expect(res.body.project.location).toBe(shards[0]?.place);
    const db = await registryDb(res.body.project.id);
    if (!found.has(db)) found.set(db, res.body.project.id);
  }
  expect(found.size).toBe(defaults.length);
  return found;
}

describe("projects in shards", () => {
  it("spread over the default place's shards; each project's rows are in its shard and no other", async () => {
    const owner = await signedIn();
    const placed = await projectsInEveryShard(owner);
    for (const [db, projectId] of placed) {
      for (const shard of shards) {
        const rows = await shard.db
          .prepare(
            "SELECT (SELECT count(*) FROM projects WHERE id = ?1) + (SELECT count(*) FROM members WHERE project_id = ?1) AS n",
          )
          .bind(projectId)
          .first<{ n: number }>();
        expect(rows?.n, `${projectId} in ${shard.binding}`).toBe(shard.db === db ? 2 : 0);
      }
    }
    // The owner's list holds them all, whichever shard, in creation order.
    const list = await owner.call<{ projects: { id: string }[] }>("GET", "/api/projects?limit=100");
    const ids = list.body.projects.map((p) => p.id);
    expect(ids).toEqual(expect.arrayContaining([...placed.values()]));
    const order = [...placed.values()].map((id) => ids.indexOf(id));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("a place is chosen at creation and shown on the project; a place with no database is invalid_body", async () => {
    const owner = await signedIn();
    const eu = await owner.call<{ project: { id: string; location: string } }>("POST", "/api/projects", {
      name: "residency",
      location: "eu",
    });
    if (shards.some((s) => s.place === "eu")) {
      expect(eu.status).toBe(201);
      expect(eu.body.project.location).toBe("eu");
      const read = await owner.call<{ project: { location: string } }>("GET", `/api/projects/${eu.body.project.id}`);
      expect(read.body.project.location).toBe("eu");
      expect(await registryDb(eu.body.project.id)).toBe(shards.find((s) => s.place === "eu")?.db);
    } else {
      expect(eu).toMatchObject({ status: 400, body: { reason: "invalid_body" } });
    }
    const nowhere = await owner.call("POST", "/api/projects", { name: "x", location: "apac" });
    expect(nowhere).toMatchObject({ status: 400, body: { reason: "invalid_body" } });
    const bad = await owner.call("POST", "/api/projects", { name: "x", location: "EU!" });
    expect(bad).toMatchObject({ status: 400, body: { reason: "invalid_body" } });
  });
});

describe("tenancy across shards", () => {
  it("a project's ids never resolve for a caller of another project, whichever shard either is in", async () => {
    const principal = newWallet();
    const owner = await signedIn(principal.address);
    const placed = [...(await projectsInEveryShard(owner)).values()];
    const mine = placed[0] as string;
    const theirs = placed[placed.length - 1] as string;
    const stranger = await signedIn();
    const own = await stranger.call<{ project: { id: string } }>("POST", "/api/projects", { name: "own" });
    // The stranger's own project, and a token of it: both outsiders to the owner's projects.
    const token = await stranger.call<{ secret: string }>("POST", "/api/tokens", {
      project_id: own.body.project.id,
      name: "t",
    });
    const bot = new FleetClient();
    bot.bearer = token.body.secret;
    const grant = await delegation(principal, newWallet("p2tr"));
    const stored = await owner.call("POST", "/api/delegations", { project_id: theirs, envelope: grant.envelope });
    expect(stored.status).toBe(201);
    const member = await owner.call<{ member: { id: string } }>("POST", "/api/members", {
      project_id: theirs,
      address: newWallet().address,
      role: "viewer",
    });
    expect(member.status).toBe(201);
    const memberPath = `/api/members/${member.body.member.id}`;
    for (const [client, method, path, body] of [
      [stranger, "GET", `/api/projects/${theirs}`, undefined],
      [stranger, "GET", `/api/delegations/${grant.id}`, undefined],
      [stranger, "PATCH", memberPath, { role: "member" }],
      [bot, "GET", `/api/projects/${theirs}`, undefined],
      [bot, "GET", `/api/delegations/${grant.id}`, undefined],
      [bot, "PATCH", memberPath, { role: "member" }],
    ] as const) {
      const res = await client.call(method, path, body);
      expect(res, `${method} ${path}`).toMatchObject({ status: 404, body: { reason: "not_found" } });
    }
    // Their own reads still answer, whichever shard: the owner's in two, the stranger's token in its own.
    expect((await owner.call("GET", `/api/projects/${mine}`)).status).toBe(200);
    expect((await owner.call("GET", `/api/delegations/${grant.id}`)).status).toBe(200);
    expect((await bot.call("GET", `/api/projects/${own.body.project.id}`)).status).toBe(200);
    expect((await stranger.call("GET", `/api/projects/${own.body.project.id}`)).status).toBe(200);
  });
});

describe("the public pledge reads across shards", () => {
  it("find a pledge in any shard, and list a swearer's pledges from every shard", async () => {
    const swearer = newWallet();
    const owner = await signedIn(swearer.address);
    const placed = [...(await projectsInEveryShard(owner)).values()];
    const pledges = [];
    for (const projectId of placed) {
      const p = await pledge(swearer, newWallet());
      const res = await owner.call("POST", "/api/pledges", { project_id: projectId, envelope: p.envelope });
      expect(res.status).toBe(201);
      pledges.push(p.id);
    }
    const anyone = new FleetClient();
    for (const id of pledges) {
      const read = await anyone.call<{ pledge: { id: string; status: string } }>("GET", `/api/pledges/${id}`);
      expect(read.body.pledge).toMatchObject({ id, status: "pending" });
    }
    const bySwearer = await anyone.call<{ pledges: { id: string }[] }>(
      "GET",
      `/api/pledges?swearer=${swearer.address}`,
    );
    expect(bySwearer.body.pledges.map((p) => p.id)).toEqual(pledges);
  });
});

describe("a project that moved", () => {
  it.runIf(sharded)("is found in its new shard by an isolate that remembered the old one", async () => {
    const owner = await signedIn();
    const placed = await projectsInEveryShard(owner);
    const [from, projectId] = [...placed.entries()][0] as [D1Database, string];
    expect((await owner.call("GET", `/api/projects/${projectId}`)).status).toBe(200); // remembered: `from`
    const to = shards.find((s) => s.db !== from)?.db as D1Database;
    // The move: copy the rows, then delete the old ones (docs/scale.md "A move").
    const { results: project } = await from.prepare("SELECT * FROM projects WHERE id = ?").bind(projectId).all();
    const { results: members } = await from.prepare("SELECT * FROM members WHERE project_id = ?").bind(projectId).all();
    const insert = (table: string, row: Record<string, unknown>) =>
      to
        .prepare(
          `INSERT INTO ${table} (${Object.keys(row).join(", ")}) VALUES (${Object.keys(row)
            .map(() => "?")
            .join(", ")})`,
        )
        .bind(...Object.values(row));
    await to.batch([...project.map((r) => insert("projects", r)), ...members.map((r) => insert("members", r))]);
    await from.batch([
      from.prepare("DELETE FROM members WHERE project_id = ?").bind(projectId),
      from.prepare("DELETE FROM projects WHERE id = ?").bind(projectId),
    ]);
    const read = await owner.call<{ project: { id: string } }>("GET", `/api/projects/${projectId}`);
    expect(read.status).toBe(200);
    expect(read.body.project.id).toBe(projectId);
    expect(await registryDb(projectId)).toBe(to);
  });
});
