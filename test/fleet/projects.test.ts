// Projects, authentication on the fleet host, tenancy.
import { describe, expect, it } from "vitest";
import { authDb } from "../helpers/auth-db";
import { FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";

describe("fleet authentication", () => {
  it("accepts the auth host's cookie while its session row is live, and refuses it at once after logout", async () => {
    const client = await signedIn();
    expect((await client.call("GET", "/api/projects")).status).toBe(200);
    await authDb().prepare("DELETE FROM sessions").run(); // what logout does to the row
    const res = await client.call("GET", "/api/projects");
    expect(res.status).toBe(401);
    expect(res.body.reason).toBe("unauthenticated");
  });

  it("treats a malformed bearer as anonymous and an unknown well-formed one as 401", async () => {
    const anonymous = new FleetClient();
    anonymous.bearer = "not-a-token";
    expect((await anonymous.call("GET", "/api/projects")).body.reason).toBe("unauthenticated");
    const unknown = new FleetClient();
    unknown.bearer = `ock_${"0".repeat(64)}`;
    const res = await unknown.call("GET", "/api/projects");
    expect(res.status).toBe(401);
  });

  it("forwards /api/auth/me and /api/auth/logout to the auth worker", async () => {
    const res = await new FleetClient().call<{ via: string; path: string }>("GET", "/api/auth/me");
    expect(res.body).toMatchObject({ via: "auth", path: "/api/auth/me" });
  });

  it("refuses cross-site browser writes (403 cross_site_blocked)", async () => {
    const client = await signedIn();
    const res = await client.fetch("/api/projects", {
      method: "POST",
      headers: { "sec-fetch-site": "cross-site" },
      json: { name: "x" },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { reason: string }).reason).toBe("cross_site_blocked");
  });
});

describe("projects", () => {
  it("creates, lists, reads, renames and archives a project; the creator is its owner", async () => {
    const { owner, projectId } = await ownerWithProject("Alpha");
    expect(projectId).toMatch(/^proj_[0-9a-f]{24}$/);
    const list = await owner.call<{ projects: { id: string }[]; next_cursor: string | null }>("GET", "/api/projects");
    expect(list.body.projects.map((p) => p.id)).toEqual([projectId]);
    const read = await owner.call<{ project: { owner_address: string }; role: string }>(
      "GET",
      `/api/projects/${projectId}`,
    );
    expect(read.body).toMatchObject({ role: "owner", project: { owner_address: owner.address } });
    const renamed = await owner.call<{ project: { name: string } }>("PATCH", `/api/projects/${projectId}`, {
      name: "Beta",
    });
    expect(renamed.body.project.name).toBe("Beta");
    expect((await owner.call("PATCH", `/api/projects/${projectId}`, {})).body.reason).toBe("no_fields_to_update");
    const archived = await owner.call<{ project: { archived: boolean } }>("DELETE", `/api/projects/${projectId}`);
    expect(archived.body.project.archived).toBe(true);
    expect((await owner.call("PATCH", `/api/projects/${projectId}`, { name: "Gamma" })).status).toBe(404);
  });

  it("never shows another tenant's project (404 not_found), and answers 400 invalid_id for a malformed id", async () => {
    const { projectId } = await ownerWithProject();
    const stranger = await signedIn();
    for (const [method, body] of [["GET"], ["PATCH", { name: "x" }], ["DELETE"]] as const) {
      const res = await stranger.call(method, `/api/projects/${projectId}`, body);
      expect(res.status, method).toBe(404);
      expect(res.body.reason).toBe("not_found");
    }
    expect((await stranger.call("GET", `/api/projects/${projectId.replace("proj_", "proj_0")}`)).body.reason).toBe(
      "invalid_id",
    );
    expect((await stranger.call("GET", "/api/projects/../etc")).status).toBe(404);
  });

  it("archive and transfer are owner only (403 owner_required); transfer makes the old owner an admin", async () => {
    const { owner, projectId } = await ownerWithProject();
    const admin = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: admin.address, role: "admin" });
    expect((await admin.call("DELETE", `/api/projects/${projectId}`)).body.reason).toBe("owner_required");
    expect(
      (await admin.call("POST", `/api/projects/${projectId}/transfer`, { address: admin.address })).body.reason,
    ).toBe("owner_required");
    const moved = await owner.call<{ project: { owner_address: string } }>(
      "POST",
      `/api/projects/${projectId}/transfer`,
      {
        address: admin.address,
      },
    );
    expect(moved.body.project.owner_address).toBe(admin.address);
    expect((await owner.call<{ role: string }>("GET", `/api/projects/${projectId}`)).body.role).toBe("admin");
    expect((await admin.call<{ role: string }>("GET", `/api/projects/${projectId}`)).body.role).toBe("owner");
  });

  it("refuses bad bodies with a reason and stores nothing", async () => {
    const client = await signedIn();
    for (const body of [{}, { name: "" }, { name: 5 }, { name: "a\nb" }, { name: "x", extra: true }]) {
      const res = await client.call("POST", "/api/projects", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.reason).toBe("invalid_body");
    }
    const malformed = await client.fetch("/api/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(((await malformed.json()) as { reason: string }).reason).toBe("malformed_json");
    expect((await client.call<{ projects: unknown[] }>("GET", "/api/projects")).body.projects).toEqual([]);
  });
});
