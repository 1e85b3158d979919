// Public logs (issue 48 item 3): a signed-in owner makes a project's log public and private again (an admin, a member
// or an owner token cannot), each change in the admin log; anyone then reads its checkpoint, tiles and entry bundles
// without a credential, answered for shared caches (full pieces a year, immutable; partial ones a minute; the
// checkpoint 2 s) and with CORS for any origin; a private log stays its members', an anonymous read of it refused
// exactly as one of a project that does not exist. The discovery list is in log-public-list.test.ts.
import { describe, expect, it } from "vitest";
import { randomHex } from "../../shared/crypto/digest";
import { fromPage } from "../helpers/cors";
import { action, delegation } from "../helpers/envelopes";
import { FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { integrateLog, loggedProject } from "../helpers/log";
import { createTileClient, entryLeafHash } from "../helpers/tile-client";
import { newWallet } from "../helpers/wallet";

const YEAR = "public, max-age=31536000, immutable";
const MEMBERS_YEAR = "private, max-age=31536000, immutable";

type Answer = { status: number; reason?: string; cache: string | null; cors: string | null };

/** A read's status, refusal reason, Cache-Control and Access-Control-Allow-Origin. */
async function read(client: FleetClient, path: string): Promise<Answer> {
  const res = await client.fetch(path);
  const refused = res.status >= 400 ? ((await res.json()) as { reason: string }) : undefined;
  if (!refused) await res.arrayBuffer();
  return {
    status: res.status,
    ...(refused && { reason: refused.reason }),
    cache: res.headers.get("cache-control"),
    cors: res.headers.get("access-control-allow-origin"),
  };
}

const visibility = (client: FleetClient, projectId: string, wanted: unknown) =>
  client.call<{ project: { log_public: boolean } }>("PUT", `/api/projects/${projectId}/log-visibility`, {
    public: wanted,
  });

async function adminEvents(owner: FleetClient, projectId: string): Promise<string[]> {
  const res = await owner.call<{ entries: { event_type: string }[] }>("GET", `/api/admin/log?project_id=${projectId}`);
  return res.body.entries.map((e) => e.event_type).filter((t) => t.startsWith("project.log_"));
}

/**
 * A log of 257 leaves (one full level-0 tile and entry bundle, then partial ones of width 1): a delegation and 256
 * actions through the API, shared by the owner and two `register` tokens, each its own client within its route's
 * limit (120 a minute per client address).
 */
async function largeLog() {
  const principal = newWallet();
  const agent = newWallet("p2tr");
  const owner = await signedIn(principal.address);
  const projectId = (await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "large" })).body
    .project.id;
  const grant = await delegation(principal, agent);
  const granted = await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: grant.envelope });
  expect(granted.status).toBe(201);
  const clients = [owner];
  for (const name of ["one", "two"]) {
    const made = await owner.call<{ secret: string }>("POST", "/api/tokens", {
      project_id: projectId,
      name,
      scope: "register",
    });
    const client = new FleetClient();
    client.bearer = made.body.secret;
    clients.push(client);
  }
  const share = [86, 85, 85];
  await Promise.all(
    clients.map(async (client, k) => {
      for (let i = 0; i < (share[k] ?? 0); i++) {
        const one = await action(grant.id, agent);
        const res = await client.call("POST", "/api/actions", { project_id: projectId, envelope: one.envelope });
        expect(res.status).toBe(201);
      }
    }),
  );
  return { owner, projectId };
}

describe("who makes a log public", () => {
  it("a signed-in owner, both ways, each change logged once; an admin, a member, an owner token and anyone else cannot", async () => {
    const { owner, projectId } = await ownerWithProject("visibility");
    const others: [string, FleetClient, number, string][] = [];
    for (const role of ["admin", "member"]) {
      const address = newWallet().address;
      const invited = await owner.call("POST", "/api/members", { project_id: projectId, address, role });
      expect(invited.status).toBe(201);
      others.push([role, await signedIn(address), 403, "owner_required"]);
    }
    const token = await owner.call<{ secret: string }>("POST", "/api/tokens", {
      project_id: projectId,
      name: "automation",
      scope: "owner",
    });
    expect(token.status).toBe(201);
    const withToken = new FleetClient();
    withToken.bearer = token.body.secret;
    others.push(["owner token", withToken, 403, "owner_required"]);
    others.push(["stranger", (await ownerWithProject("elsewhere")).owner, 404, "not_found"]);
    others.push(["anonymous", new FleetClient(), 401, "unauthenticated"]);
    for (const [who, client, status, reason] of others) {
      const res = await visibility(client, projectId, true);
      expect([res.status, res.body.reason], who).toEqual([status, reason]);
    }
    expect((await visibility(owner, projectId, "yes")).body.reason).toBe("invalid_body");

    const made = await visibility(owner, projectId, true);
    expect([made.status, made.body.project.log_public]).toEqual([200, true]);
    expect((await visibility(owner, projectId, true)).status).toBe(200); // already public: nothing changes
    const read = await owner.call<{ project: { log_public: boolean } }>("GET", `/api/projects/${projectId}`);
    expect(read.body.project.log_public).toBe(true);
    for (const [who, client, status, reason] of others.slice(0, 3)) {
      const res = await visibility(client, projectId, false);
      expect([res.status, res.body.reason], who).toEqual([status, reason]);
    }
    const back = await visibility(owner, projectId, false);
    expect([back.status, back.body.project.log_public]).toEqual([200, false]);
    // Newest first: one line per change, none for the repeated one or the refused ones.
    expect(await adminEvents(owner, projectId)).toEqual(["project.log_made_private", "project.log_made_public"]);
  });

  it("an archived project's log may be made private, not public", async () => {
    const { owner, projectId } = await ownerWithProject("archived");
    expect((await visibility(owner, projectId, true)).status).toBe(200);
    expect((await owner.call("DELETE", `/api/projects/${projectId}`)).status).toBe(200);
    const withdrawn = await visibility(owner, projectId, false);
    expect([withdrawn.status, withdrawn.body.project.log_public]).toEqual([200, false]);
    const again = await visibility(owner, projectId, true);
    expect([again.status, again.body.reason]).toEqual([404, "not_found"]);
  });
});

describe("reading a public log", () => {
  it("anyone reads checkpoint, tiles and entries: full pieces public and immutable, partial ones and the checkpoint briefly", async () => {
    const { owner, projectId } = await largeLog();
    await integrateLog(projectId);
    const anyone = new FleetClient();
    const base = `/api/log/${projectId}`;
    expect((await read(anyone, `${base}/tile/0/000`)).reason).toBe("unauthenticated");
    expect((await visibility(owner, projectId, true)).status).toBe(200);

    const pieces: [string, string][] = [
      ["checkpoint", "public, max-age=2"],
      ["tile/0/000", YEAR],
      ["tile/entries/000", YEAR],
      ["tile/0/001.p/1", "public, max-age=60"],
      ["tile/entries/001.p/1", "public, max-age=60"],
      ["tile/1/000.p/1", "public, max-age=60"],
    ];
    for (const [piece, cache] of pieces) {
      expect(await read(anyone, `${base}/${piece}`), piece).toEqual({ status: 200, cache, cors: "*" });
    }
    // A member's read, credentialed, stays private (its answer may carry the member's D1 bookmark).
    expect((await read(owner, `${base}/tile/0/000`)).cache).toBe(MEMBERS_YEAR);
    expect((await read(owner, `${base}/checkpoint`)).cache).toBe("private, max-age=1");
    // A width no checkpoint has reached: refused, with CORS so a page sees why, and never cached.
    expect(await read(anyone, `${base}/tile/0/001.p/2`)).toEqual({
      status: 404,
      reason: "not_found",
      cache: "no-store",
      cors: "*",
    });

    // The independent tile client follows it anonymously, from what the discovery list says of it.
    const listed = await anyone.call<{ logs: { project_id: string; origin: string; verifier_key: string }[] }>(
      "GET",
      "/api/logs/public?limit=100",
    );
    const log = listed.body.logs.find((l) => l.project_id === projectId);
    if (!log) throw new Error("the public log is not listed");
    const client = createTileClient({
      prefix: `http://localhost:8788${base}/`,
      fetch: (url) => anyone.fetch(new URL(url).pathname),
      verifierKey: log.verifier_key,
      origin: log.origin,
    });
    const checkpoint = await client.checkpoint();
    expect(checkpoint.size).toBe(257);
    const entry = await client.entry(200, 257);
    expect(await client.leafHash(200, 257)).toEqual(entryLeafHash(entry));
    expect((await client.inclusionProof(256, 257)).length).toBeGreaterThan(0);

    // Private again: refused at once, as before.
    expect((await visibility(owner, projectId, false)).status).toBe(200);
    for (const piece of ["checkpoint", "tile/0/000", "tile/entries/000"]) {
      const res = await read(anyone, `${base}/${piece}`);
      expect([res.status, res.reason, res.cors], piece).toEqual([401, "unauthenticated", null]);
    }
  }, 180_000);

  it("a private log: anonymous reads refused exactly as for no project; a stranger 404; members read it privately", async () => {
    const { owner, projectId, register } = await loggedProject(1);
    await integrateLog(projectId);
    const anyone = new FleetClient();
    const missing = `proj_${randomHex(12)}`;
    for (const piece of ["checkpoint", "tile/0/000.p/2", "tile/entries/000.p/2"]) {
      const mine = await anyone.fetch(`/api/log/${projectId}/${piece}`);
      const none = await anyone.fetch(`/api/log/${missing}/${piece}`);
      expect(mine.status, piece).toBe(401);
      expect(await mine.text(), piece).toBe(await none.text());
      expect(mine.headers.get("access-control-allow-origin")).toBeNull();
    }
    const stranger = (await ownerWithProject("elsewhere")).owner;
    expect((await read(stranger, `/api/log/${projectId}/tile/0/000.p/2`)).reason).toBe("not_found");
    expect(await read(owner, `/api/log/${projectId}/tile/0/000.p/2`)).toEqual({
      status: 200,
      cache: MEMBERS_YEAR,
      cors: null,
    });

    // Public: a signed-in stranger reads it too, answered privately (a credentialed read is never shared).
    expect((await visibility(owner, projectId, true)).status).toBe(200);
    expect(await read(stranger, `/api/log/${projectId}/tile/0/000.p/2`)).toEqual({
      status: 200,
      cache: MEMBERS_YEAR,
      cors: "*",
    });
    await register();
    await integrateLog(projectId);
    expect((await read(anyone, `/api/log/${projectId}/tile/entries/000.p/3`)).status).toBe(200);
  });

  it("a page of another origin reads a public log anonymously, with the public CORS headers; a private one it cannot", async () => {
    const { owner, projectId } = await loggedProject(1);
    await integrateLog(projectId);
    const page = new FleetClient();
    const path = `/api/log/${projectId}/tile/entries/000.p/2`;
    const before = await page.fetch(path, { headers: fromPage(), fetchMetadata: false });
    expect([before.status, before.headers.get("access-control-allow-origin")]).toEqual([401, null]);
    await before.arrayBuffer();
    expect((await visibility(owner, projectId, true)).status).toBe(200);
    const res = await page.fetch(path, { headers: fromPage(), fetchMetadata: false });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("access-control-expose-headers")).toContain("Retry-After");
    await res.arrayBuffer();
  });
});
