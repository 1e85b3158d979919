// Members (rule 9, roles, both route forms), API tokens (shown once, revoke/restore, bearer = owner) and the
// admin log of privilege-changing operations.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

type Member = { id: string; role: string; address: string };

describe("members", () => {
  it("invites through both route forms; a duplicate (project, address) is 409 already_a_member", async () => {
    const { owner, projectId } = await ownerWithProject();
    const a = newWallet().address;
    const b = newWallet().address;
    const first = await owner.call<{ member: Member }>("POST", "/api/members", {
      project_id: projectId,
      address: a,
      role: "member",
    });
    expect(first.status).toBe(201);
    expect(first.body.member).toMatchObject({ address: a, role: "member" });
    expect(
      (await owner.call("POST", `/api/projects/${projectId}/invites`, { address: b, role: "viewer" })).status,
    ).toBe(201);
    const dup = await owner.call("POST", `/api/projects/${projectId}/members`, { address: a, role: "admin" });
    expect(dup.status).toBe(409);
    expect(dup.body.reason).toBe("already_a_member");
    for (const path of [
      `/api/members?project_id=${projectId}`,
      `/api/projects/${projectId}/members`,
      `/api/projects/${projectId}/invites`,
    ]) {
      const list = await owner.call<{ members: Member[] }>("GET", path);
      expect(list.body.members.map((m) => m.role).sort(), path).toEqual(["member", "owner", "viewer"]);
    }
  });

  it("only an owner may mint, change or remove an owner (403 owner_role_requires_owner)", async () => {
    const { owner, projectId } = await ownerWithProject();
    const admin = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: admin.address, role: "admin" });
    const minted = await admin.call("POST", "/api/members", {
      project_id: projectId,
      address: newWallet().address,
      role: "owner",
    });
    expect(minted.status).toBe(403);
    expect(minted.body.reason).toBe("owner_role_requires_owner");
    const list = await owner.call<{ members: Member[] }>("GET", `/api/projects/${projectId}/members`);
    const ownerRow = list.body.members.find((m) => m.role === "owner") as Member;
    expect((await admin.call("PATCH", `/api/members/${ownerRow.id}`, { role: "member" })).body.reason).toBe(
      "owner_role_requires_owner",
    );
    expect((await admin.call("DELETE", `/api/members/${ownerRow.id}`)).body.reason).toBe("owner_role_requires_owner");
  });

  it("the last owner can be neither demoted nor removed (409), and nothing is logged for the refusal", async () => {
    const { owner, projectId } = await ownerWithProject();
    const list = await owner.call<{ members: Member[] }>("GET", `/api/projects/${projectId}/members`);
    const me = list.body.members[0] as Member;
    const demote = await owner.call("PATCH", `/api/members/${me.id}`, { role: "admin" });
    expect(demote.status).toBe(409);
    expect(demote.body.reason).toBe("last_owner_cannot_demote");
    const remove = await owner.call("DELETE", `/api/members/${me.id}`);
    expect(remove.status).toBe(409);
    expect(remove.body.reason).toBe("last_owner_cannot_remove");
    const log = await owner.call<{ entries: unknown[] }>("GET", `/api/admin/log?project_id=${projectId}`);
    expect(log.body.entries).toEqual([]);
    // With a second owner, the first may step down.
    const second = newWallet().address;
    await owner.call("POST", "/api/members", { project_id: projectId, address: second, role: "owner" });
    expect(
      (await owner.call<{ member: Member }>("PATCH", `/api/members/${me.id}`, { role: "admin" })).body.member.role,
    ).toBe("admin");
  });

  it("roles: a member cannot manage members (403 role_forbidden); a viewer cannot rename", async () => {
    const { owner, projectId } = await ownerWithProject();
    const member = await signedIn();
    const viewer = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: member.address, role: "member" });
    await owner.call("POST", "/api/members", { project_id: projectId, address: viewer.address, role: "viewer" });
    const invite = await member.call("POST", "/api/members", {
      project_id: projectId,
      address: newWallet().address,
      role: "viewer",
    });
    expect(invite.status).toBe(403);
    expect(invite.body.reason).toBe("role_forbidden");
    expect((await viewer.call("PATCH", `/api/projects/${projectId}`, { name: "x" })).body.reason).toBe(
      "role_forbidden",
    );
    expect((await viewer.call("GET", `/api/projects/${projectId}`)).status).toBe(200);
  });

  it("answers no_fields_to_update, invalid_id and invalid_body", async () => {
    const { owner, projectId } = await ownerWithProject();
    const list = await owner.call<{ members: Member[] }>("GET", `/api/projects/${projectId}/members`);
    const me = list.body.members[0] as Member;
    expect((await owner.call("PATCH", `/api/members/${me.id}`, {})).body.reason).toBe("no_fields_to_update");
    expect((await owner.call("PATCH", "/api/members/mem_xyz", { role: "admin" })).body.reason).toBe("invalid_id");
    expect(
      (await owner.call("POST", "/api/members", { project_id: projectId, address: "nope", role: "admin" })).body.reason,
    ).toBe("invalid_body");
    expect(
      (await owner.call("POST", "/api/members", { project_id: projectId, address: newWallet().address, role: "god" }))
        .body.reason,
    ).toBe("invalid_body");
  });
});

describe("API tokens", () => {
  it("shows the secret once, stores only its sha256, and the bearer acts as the project owner", async () => {
    const { owner, projectId } = await ownerWithProject();
    const created = await owner.call<{ token: { id: string; hint: string }; secret: string }>("POST", "/api/tokens", {
      project_id: projectId,
      name: "ci",
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^ock_[0-9a-f]{64}$/);
    expect(created.body.token.hint).toBe(created.body.secret.slice(-4));
    const stored = await (await registryDb(projectId))
      .prepare("SELECT * FROM api_tokens WHERE id = ?")
      .bind(created.body.token.id)
      .first<Record<string, unknown>>();
    expect(JSON.stringify(stored)).not.toContain(created.body.secret);
    const list = await owner.call("GET", `/api/tokens?project_id=${projectId}`);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);

    const bot = new FleetClient();
    bot.bearer = created.body.secret;
    expect((await bot.call<{ role: string }>("GET", `/api/projects/${projectId}`)).body.role).toBe("owner");
    // Bearer wins over a cookie, and needs no Fetch Metadata.
    const both = await signedIn();
    both.bearer = created.body.secret;
    const res = await both.fetch(`/api/projects/${projectId}`, {
      method: "PATCH",
      fetchMetadata: false,
      json: { name: "by bot" },
    });
    expect(res.status).toBe(200);
  });

  it("a revoked token is 401 unauthenticated; restored, it works under a new secret; past expires_at it cannot be restored (409)", async () => {
    const { owner, projectId } = await ownerWithProject();
    const created = await owner.call<{ token: { id: string }; secret: string }>("POST", "/api/tokens", {
      project_id: projectId,
      name: "t",
    });
    const bot = new FleetClient();
    bot.bearer = created.body.secret;
    const id = created.body.token.id;
    expect(
      (await owner.call<{ token: { revoked: boolean } }>("PATCH", `/api/tokens/${id}`, { revoked: true })).body.token
        .revoked,
    ).toBe(true);
    const refused = await bot.call("GET", `/api/projects/${projectId}`);
    expect(refused.status).toBe(401);
    expect(refused.body.reason).toBe("unauthenticated");
    const restored = await owner.call<{ secret: string }>("PATCH", `/api/tokens/${id}`, { revoked: false });
    // The old secret stays dead (issue 26): the restore answers a new one, once.
    expect((await bot.call("GET", `/api/projects/${projectId}`)).status).toBe(401);
    bot.bearer = restored.body.secret;
    expect((await bot.call("GET", `/api/projects/${projectId}`)).status).toBe(200);
    await owner.call("PATCH", `/api/tokens/${id}`, { revoked: true });
    await (await registryDb(projectId))
      .prepare("UPDATE api_tokens SET expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, id)
      .run();
    const restore = await owner.call("PATCH", `/api/tokens/${id}`, { revoked: false });
    expect(restore.status).toBe(409);
    expect(restore.body.reason).toBe("expired_cannot_restore");
    expect((await owner.call("DELETE", `/api/tokens/${id}`)).status).toBe(200);
  });

  it("restoring a live token changes nothing: the token as it is, no secret, no log entry (found by the fuzzer)", async () => {
    const { owner, projectId } = await ownerWithProject();
    const created = await owner.call<{ token: { id: string }; secret: string }>("POST", "/api/tokens", {
      project_id: projectId,
      name: "live",
    });
    const id = created.body.token.id;
    const logged = async () =>
      (await registryDb(projectId))
        .prepare("SELECT COUNT(*) AS n FROM admin_log WHERE target_id = ?")
        .bind(id)
        .first<{ n: number }>();
    const before = await logged();
    const res = await owner.call<{ token: { revoked: boolean; name: string }; secret?: string }>(
      "PATCH",
      `/api/tokens/${id}`,
      { revoked: false },
    );
    expect(res.status).toBe(200);
    expect(res.body.token).toMatchObject({ revoked: false, name: "live" });
    expect(res.body.secret).toBeUndefined();
    expect(await logged()).toEqual(before);
    const bot = new FleetClient();
    bot.bearer = created.body.secret;
    expect((await bot.call("GET", `/api/projects/${projectId}`)).status).toBe(200);
  });

  it("a bearer token of project A sees nothing of project B", async () => {
    const a = await ownerWithProject("A");
    const b = await ownerWithProject("B");
    const created = await a.owner.call<{ secret: string }>("POST", "/api/tokens", {
      project_id: a.projectId,
      name: "a",
    });
    const bot = new FleetClient();
    bot.bearer = created.body.secret;
    expect((await bot.call("GET", `/api/projects/${b.projectId}`)).status).toBe(404);
    expect((await bot.call("GET", `/api/members?project_id=${b.projectId}`)).status).toBe(404);
    expect((await bot.call("GET", `/api/tokens?project_id=${b.projectId}`)).status).toBe(404);
    expect((await bot.call("GET", `/api/admin/log?project_id=${b.projectId}`)).status).toBe(404);
    const list = await bot.call<{ projects: { id: string }[] }>("GET", "/api/projects");
    expect(list.body.projects.map((p) => p.id)).toEqual([a.projectId]);
  });
});

describe("admin log", () => {
  it("records every privilege-changing operation, newest first, filtered and paged", async () => {
    const { owner, projectId } = await ownerWithProject();
    await owner.call("PATCH", `/api/projects/${projectId}`, { name: "Renamed" });
    const invited = await owner.call<{ member: Member }>("POST", "/api/members", {
      project_id: projectId,
      address: newWallet().address,
      role: "viewer",
    });
    await owner.call("PATCH", `/api/members/${invited.body.member.id}`, { role: "member" });
    await owner.call("DELETE", `/api/members/${invited.body.member.id}`);
    const token = await owner.call<{ token: { id: string } }>("POST", "/api/tokens", {
      project_id: projectId,
      name: "t",
    });
    await owner.call("PATCH", `/api/tokens/${token.body.token.id}`, { name: "t2" });
    await owner.call("DELETE", `/api/tokens/${token.body.token.id}`);
    await owner.call("DELETE", `/api/projects/${projectId}`);
    type Log = { entries: { seq: number; event_type: string; actor: string }[]; next_cursor: string | null };
    const log = await owner.call<Log>("GET", `/api/admin/log?project_id=${projectId}`);
    expect(log.body.entries.map((e) => e.event_type)).toEqual([
      "project.archived",
      "token.deleted",
      "token.updated",
      "token.created",
      "member.deleted",
      "member.updated",
      "member.created",
      "project.renamed",
    ]);
    expect(log.body.entries.every((e) => e.actor === owner.address)).toBe(true);
    const filtered = await owner.call<Log>("GET", `/api/admin/log?project_id=${projectId}&event_type=token.created`);
    expect(filtered.body.entries).toHaveLength(1);
    const first = await owner.call<Log>("GET", `/api/admin/log?project_id=${projectId}&limit=3`);
    expect(first.body.entries).toHaveLength(3);
    const next = await owner.call<Log>(
      "GET",
      `/api/admin/log?project_id=${projectId}&limit=3&before=${first.body.next_cursor}`,
    );
    expect(next.body.entries[0]?.event_type).toBe("token.created");
    expect((await owner.call("GET", `/api/admin/log?project_id=${projectId}&limit=0`)).body.reason).toBe(
      "invalid_query",
    );
  });
});

describe("public fleet routes", () => {
  it("answers /api/health/deep with D1, KV and Durable Objects, and lists the webhook events", async () => {
    const client = new FleetClient();
    expect(await (await client.fetch("/api/health/deep")).json()).toEqual({
      ok: true,
      checks: { d1: "ok", kv: "ok", durable_objects: "ok" },
    });
    const events = (await (await client.fetch("/api/webhook-events")).json()) as { events: { type: string }[] };
    expect(events.events.map((e) => e.type)).toContain("revocation.registered");
    expect(events.events).toHaveLength(8);
  });
});
