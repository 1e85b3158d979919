// Security review, issue 14 item 1 (HIGH): a project admin must not become owner through an API token. A bearer
// token acts as the owner who created it (DECISIONS 12), so only an owner mints, renames or restores one; a token
// dies the moment its creator stops being an owner; every change made with a token names it and its creator; a
// token's scope (owner, register, read) is a ceiling enforced by the sessions' role check. Also item 11 (token
// lifetime cap, last_used_at) and item 12 (owner_address follows the owners). Second review (issue 26), items 3
// and 4: only a signed-in owner mints, renames or restores (a token cannot extend itself past the one-year cap); a
// creator who stops being an owner has their tokens revoked then; a restore issues a new secret; a kept token's
// registration is judged with the creator it was read with, or refused.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DAY } from "../../shared/time";
import { delegation } from "../helpers/envelopes";
import { FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

type Token = { id: string; status: string; scope: string; created_by: string; last_used_at: string | null };
type Member = { id: string; address: string; role: string };
type LogEntry = { event_type: string; actor: string; detail: Record<string, unknown> | null };

async function withMember(role: string) {
  const { owner, projectId } = await ownerWithProject();
  const other = await signedIn();
  const invited = await owner.call<{ member: Member }>("POST", "/api/members", {
    project_id: projectId,
    address: other.address,
    role,
  });
  return { owner, projectId, other, memberId: invited.body.member.id };
}

async function mint(client: FleetClient, projectId: string, extra: Record<string, unknown> = {}) {
  return client.call<{ token: Token; secret: string }>("POST", "/api/tokens", {
    project_id: projectId,
    name: "t",
    ...extra,
  });
}

function bearerOf(secret: string) {
  const bot = new FleetClient();
  bot.bearer = secret;
  return bot;
}

const log = async (owner: FleetClient, projectId: string) =>
  (await owner.call<{ entries: LogEntry[] }>("GET", `/api/admin/log?project_id=${projectId}`)).body.entries;

describe("attack: an admin escalates to owner through an API token", () => {
  it("the whole path is closed: the admin cannot mint, so cannot promote self, remove the owner or transfer", async () => {
    const { owner, projectId, other: admin } = await withMember("admin");
    const minted = await mint(admin, projectId);
    expect(minted.status).toBe(403);
    expect(minted.body.reason).toBe("owner_required");
    expect(minted.body).not.toHaveProperty("secret");
    const tokens = await owner.call<{ tokens: Token[] }>("GET", `/api/tokens?project_id=${projectId}`);
    expect(tokens.body.tokens).toEqual([]);
    // What the admin would have done with an owner token stays out of reach as an admin.
    const members = await owner.call<{ members: Member[] }>("GET", `/api/projects/${projectId}/members`);
    const ownerRow = members.body.members.find((m) => m.role === "owner") as Member;
    const adminRow = members.body.members.find((m) => m.role === "admin") as Member;
    expect((await admin.call("PATCH", `/api/members/${adminRow.id}`, { role: "owner" })).body.reason).toBe(
      "owner_role_requires_owner",
    );
    expect((await admin.call("DELETE", `/api/members/${ownerRow.id}`)).body.reason).toBe("owner_role_requires_owner");
    const transfer = await admin.call("POST", `/api/projects/${projectId}/transfer`, { address: admin.address });
    expect(transfer.body.reason).toBe("owner_required");
  });

  it("an admin cannot restore a token an owner revoked, nor rename one; may list, revoke and delete", async () => {
    const { owner, projectId, other: admin } = await withMember("admin");
    const { token, secret } = (await mint(owner, projectId)).body;
    expect((await admin.call("GET", `/api/tokens?project_id=${projectId}`)).status).toBe(200);
    const revoked = await admin.call<{ token: Token }>("PATCH", `/api/tokens/${token.id}`, { revoked: true });
    expect(revoked.status).toBe(200);
    expect(revoked.body.token.status).toBe("revoked");
    const restore = await admin.call("PATCH", `/api/tokens/${token.id}`, { revoked: false });
    expect(restore.status).toBe(403);
    expect(restore.body.reason).toBe("owner_required");
    expect((await bearerOf(secret).call("GET", `/api/projects/${projectId}`)).status).toBe(401);
    const rename = await admin.call("PATCH", `/api/tokens/${token.id}`, { name: "mine now" });
    expect(rename.body.reason).toBe("owner_required");
    // Revoking while renaming is still a rename.
    expect((await admin.call("PATCH", `/api/tokens/${token.id}`, { name: "x", revoked: true })).status).toBe(403);
    expect((await admin.call("DELETE", `/api/tokens/${token.id}`)).status).toBe(200);
  });

  it("a token is revoked the moment its creator is demoted, and stays revoked when they are owner again; an owner's restore is a new secret acting as that owner", async () => {
    const { owner, projectId } = await ownerWithProject();
    const second = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: second.address, role: "owner" });
    const { token, secret } = (await mint(second, projectId)).body;
    expect(token).toMatchObject({ status: "active", scope: "owner", created_by: second.address });
    const bot = bearerOf(secret);
    expect((await bot.call<{ role: string }>("GET", `/api/projects/${projectId}`)).body.role).toBe("owner");

    const members = await owner.call<{ members: Member[] }>("GET", `/api/projects/${projectId}/members`);
    const secondRow = members.body.members.find((m) => m.address === second.address) as Member;
    await owner.call("PATCH", `/api/members/${secondRow.id}`, { role: "admin" });
    const refused = await bot.call("GET", `/api/projects/${projectId}`);
    expect(refused.status).toBe(401);
    expect(refused.body.reason).toBe("unauthenticated");
    const listed = await owner.call<{ tokens: Token[] }>("GET", `/api/tokens?project_id=${projectId}`);
    expect(listed.body.tokens.map((t) => t.status)).toEqual(["revoked"]);
    // Owner again: the token does not come back with the role (issue 26, item 3).
    await owner.call("PATCH", `/api/members/${secondRow.id}`, { role: "owner" });
    expect((await bot.call("GET", `/api/projects/${projectId}`)).status).toBe(401);
    await owner.call("PATCH", `/api/members/${secondRow.id}`, { role: "admin" });
    // The demoted admin cannot revive it; an owner can: a new secret, acting as that owner; the old one stays dead.
    expect((await second.call("PATCH", `/api/tokens/${token.id}`, { revoked: false })).body.reason).toBe(
      "owner_required",
    );
    const adopted = await owner.call<{ token: Token; secret: string }>("PATCH", `/api/tokens/${token.id}`, {
      revoked: false,
    });
    expect(adopted.body.token).toMatchObject({ status: "active", created_by: owner.address });
    expect(adopted.body.secret).toMatch(/^ock_[0-9a-f]{64}$/);
    expect(adopted.body.secret).not.toBe(secret);
    expect((await bot.call("GET", `/api/projects/${projectId}`)).status).toBe(401);
    const fresh = await bearerOf(adopted.body.secret).call<{ role: string }>("GET", `/api/projects/${projectId}`);
    expect(fresh.body.role).toBe("owner");
    const entry = (await log(owner, projectId)).find((e) => e.event_type === "token.updated");
    expect(entry?.detail).toMatchObject({ new_secret: true, created_by: { from: second.address, to: owner.address } });
    expect(JSON.stringify(await log(owner, projectId))).not.toContain(adopted.body.secret);
  });

  it("a token is revoked when its creator is removed from the project, or made an admin by a transfer", async () => {
    const { owner, projectId } = await ownerWithProject();
    const second = await signedIn();
    const invited = await owner.call<{ member: Member }>("POST", "/api/members", {
      project_id: projectId,
      address: second.address,
      role: "owner",
    });
    const { secret } = (await mint(second, projectId)).body;
    await owner.call("DELETE", `/api/members/${invited.body.member.id}`);
    const refused = await bearerOf(secret).call("GET", `/api/projects/${projectId}`);
    expect(refused.status).toBe(401);
    expect(refused.body.reason).toBe("unauthenticated");
    // Invited back as an owner: still revoked.
    await owner.call("POST", "/api/members", { project_id: projectId, address: second.address, role: "owner" });
    expect((await bearerOf(secret).call("GET", `/api/projects/${projectId}`)).status).toBe(401);
    // A transfer makes the old owner an admin: their tokens are revoked with it.
    const ownToken = (await mint(owner, projectId)).body;
    await owner.call("POST", `/api/projects/${projectId}/transfer`, { address: second.address });
    expect((await bearerOf(ownToken.secret).call("GET", `/api/projects/${projectId}`)).status).toBe(401);
    const listed = await second.call<{ tokens: Token[] }>("GET", `/api/tokens?project_id=${projectId}`);
    expect(listed.body.tokens.find((t) => t.id === ownToken.token.id)?.status).toBe("revoked");
  });

  it("a kept token whose creator changed under it registers nothing: 401, and the isolate forgets it", async () => {
    const principal = newWallet();
    const owner = await signedIn(principal.address);
    const projectId = (await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "kept" })).body
      .project.id;
    const { token, secret } = (await mint(owner, projectId)).body;
    const bot = bearerOf(secret);
    const register = async () =>
      bot.call("POST", "/api/delegations", {
        project_id: projectId,
        envelope: (await delegation(principal, newWallet("p2tr"))).envelope,
      });
    expect((await register()).status).toBe(201); // the isolate now keeps the token and its creator
    // Another owner, as whom the token would now act (no route does this without a new secret: the batch must not
    // depend on that).
    const other = newWallet().address;
    await owner.call("POST", "/api/members", { project_id: projectId, address: other, role: "owner" });
    await (await registryDb(projectId))
      .prepare("UPDATE api_tokens SET created_by = ? WHERE id = ?")
      .bind(other, token.id)
      .run();
    const refused = await register();
    expect(refused.status).toBe(401);
    expect(refused.body.reason).toBe("unauthenticated");
    // Forgotten: the next request reads the token afresh and acts as its new creator (whose address is not the
    // delegation's principal, so rule 8 now refuses that delegation).
    expect((await register()).body.reason).toBe("principal_must_match_session");
  });

  it("every privilege change made with a token names the token and its creator in the admin log", async () => {
    const { owner, projectId } = await ownerWithProject();
    const { token, secret } = (await mint(owner, projectId)).body;
    const bot = bearerOf(secret);
    const invited = await bot.call<{ member: Member }>("POST", "/api/members", {
      project_id: projectId,
      address: newWallet().address,
      role: "admin",
    });
    expect(invited.status).toBe(201);
    await bot.call("PATCH", `/api/projects/${projectId}`, { name: "by token" });
    const entries = (await log(owner, projectId)).filter((e) => e.actor === token.id);
    expect(entries.map((e) => e.event_type).sort()).toEqual(["member.created", "project.renamed"]);
    for (const e of entries) expect(e.detail).toMatchObject({ via_token: token.id, token_created_by: owner.address });
  });
});

describe("roles × token operations", () => {
  // What each role may do to a project's tokens: true = allowed, otherwise the reason.
  const ADMIN_TOKEN_RIGHTS = {
    list: true,
    create: "owner_required",
    rename: "owner_required",
    revoke: true,
    restore: "owner_required",
    delete: true,
  } as const;
  const table: Record<string, Record<string, true | string>> = {
    owner: { list: true, create: true, rename: true, revoke: true, restore: true, delete: true },
    admin: ADMIN_TOKEN_RIGHTS,
    // An owner-scope API token: the project's owner in everything but the token's own successors (issue 26, item 4),
    // which leaves it an admin's rights over tokens.
    token: ADMIN_TOKEN_RIGHTS,
    member: {
      list: "role_forbidden",
      create: "owner_required",
      rename: "owner_required",
      revoke: "role_forbidden",
      restore: "owner_required",
      delete: "role_forbidden",
    },
    viewer: {
      list: "role_forbidden",
      create: "owner_required",
      rename: "owner_required",
      revoke: "role_forbidden",
      restore: "owner_required",
      delete: "role_forbidden",
    },
  };
  for (const [role, expected] of Object.entries(table)) {
    it(`${role}`, async () => {
      const { owner, projectId } = await ownerWithProject();
      let caller = owner;
      if (role === "token") caller = bearerOf((await mint(owner, projectId)).body.secret);
      else if (role !== "owner") {
        caller = await signedIn();
        await owner.call("POST", "/api/members", { project_id: projectId, address: caller.address, role });
      }
      const target = (await mint(owner, projectId)).body.token.id;
      const revokedTarget = (await mint(owner, projectId)).body.token.id;
      await owner.call("PATCH", `/api/tokens/${revokedTarget}`, { revoked: true });
      const outcomes: Record<string, { status: number; body: { reason?: string } }> = {
        list: await caller.call("GET", `/api/tokens?project_id=${projectId}`),
        create: await mint(caller, projectId),
        rename: await caller.call("PATCH", `/api/tokens/${target}`, { name: "renamed" }),
        revoke: await caller.call("PATCH", `/api/tokens/${target}`, { revoked: true }),
        restore: await caller.call("PATCH", `/api/tokens/${revokedTarget}`, { revoked: false }),
        delete: await caller.call("DELETE", `/api/tokens/${revokedTarget}`),
      };
      for (const [op, want] of Object.entries(expected)) {
        const got = outcomes[op];
        if (want === true) expect(got?.status, op).toBeLessThan(300);
        else expect(got?.body.reason, op).toBe(want);
      }
    });
  }
});

describe("token scopes: owner (default), register, read", () => {
  async function scoped(scope: string) {
    const principal = newWallet();
    const owner = await signedIn(principal.address);
    const projectId = (await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "s" })).body
      .project.id;
    const created = await mint(owner, projectId, { scope });
    expect(created.status).toBe(201);
    expect(created.body.token.scope).toBe(scope);
    return { principal, owner, projectId, bot: bearerOf(created.body.secret) };
  }
  const register = async (bot: FleetClient, principal: ReturnType<typeof newWallet>, projectId: string) =>
    bot.call("POST", "/api/delegations", {
      project_id: projectId,
      envelope: (await delegation(principal, newWallet("p2tr"))).envelope,
    });

  it("read: reads, and nothing else (403 role_forbidden)", async () => {
    const { principal, projectId, bot } = await scoped("read");
    const read = await bot.call<{ role: string }>("GET", `/api/projects/${projectId}`);
    expect(read.body.role).toBe("viewer");
    expect((await register(bot, principal, projectId)).body.reason).toBe("role_forbidden");
    expect((await bot.call("PATCH", `/api/projects/${projectId}`, { name: "x" })).body.reason).toBe("role_forbidden");
    expect((await mint(bot, projectId)).body.reason).toBe("owner_required");
  });

  it("register: registers envelopes and reads; cannot manage the project", async () => {
    const { principal, projectId, bot } = await scoped("register");
    expect((await register(bot, principal, projectId)).status).toBe(201);
    const invite = await bot.call("POST", "/api/members", {
      project_id: projectId,
      address: newWallet().address,
      role: "viewer",
    });
    expect(invite.body.reason).toBe("role_forbidden");
    expect((await mint(bot, projectId)).body.reason).toBe("owner_required");
  });

  it("owner: the spec's bearer, which may not mint, rename or restore tokens (a signed-in owner must)", async () => {
    const { principal, owner, projectId, bot } = await scoped("owner");
    expect((await register(bot, principal, projectId)).status).toBe(201);
    const child = await mint(bot, projectId, { scope: "read" });
    expect(child.status).toBe(403);
    expect(child.body.reason).toBe("owner_required");
    expect(child.body).not.toHaveProperty("secret");
    const sibling = (await mint(owner, projectId)).body.token;
    await owner.call("PATCH", `/api/tokens/${sibling.id}`, { revoked: true });
    // A token restoring what the owners revoked would outlive them forever: refused too.
    expect((await bot.call("PATCH", `/api/tokens/${sibling.id}`, { revoked: false })).body.reason).toBe(
      "owner_required",
    );
    expect((await bot.call("PATCH", `/api/tokens/${sibling.id}`, { name: "mine" })).body.reason).toBe("owner_required");
    // Taking power away stays open to it.
    expect((await bot.call("DELETE", `/api/tokens/${sibling.id}`)).status).toBe(200);
  });

  it("an unknown scope is 400 invalid_body", async () => {
    const { owner, projectId } = await ownerWithProject();
    expect((await mint(owner, projectId, { scope: "admin" })).body.reason).toBe("invalid_body");
  });
});

describe("token lifetime and last use (item 11)", () => {
  it("expires_at is capped at 365 days: year 9999 and day 366 are 400 invalid_body; day 364 is fine", async () => {
    const { owner, projectId } = await ownerWithProject();
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const far = await mint(owner, projectId, { expires_at: "9999-12-31T00:00:00Z" });
    expect(far.status).toBe(400);
    expect(far.body.reason).toBe("invalid_body");
    expect((await mint(owner, projectId, { expires_at: at(366 * DAY) })).body.reason).toBe("invalid_body");
    expect((await mint(owner, projectId, { expires_at: at(364 * DAY) })).status).toBe(201);
  });

  it("last_used_at is written after a use, and at most once a minute", async () => {
    const { owner, projectId } = await ownerWithProject();
    const { token, secret } = (await mint(owner, projectId)).body;
    expect(token.last_used_at).toBeNull();
    const bot = bearerOf(secret);
    await bot.call("GET", `/api/projects/${projectId}`);
    const stamp = async () =>
      (
        await (
          await registryDb(projectId)
        )
          .prepare("SELECT last_used_at FROM api_tokens WHERE id = ?")
          .bind(token.id)
          .first<{
            last_used_at: number | null;
          }>()
      )?.last_used_at ?? null;
    let first: number | null = null;
    for (let i = 0; i < 50 && first === null; i++) {
      first = await stamp();
      if (first === null) await new Promise((r) => setTimeout(r, 20));
    }
    expect(first).not.toBeNull();
    await bot.call("GET", `/api/projects/${projectId}`);
    await new Promise((r) => setTimeout(r, 100));
    expect(await stamp()).toBe(first);
    const listed = await owner.call<{ tokens: Token[] }>("GET", `/api/tokens?project_id=${projectId}`);
    expect(listed.body.tokens[0]?.last_used_at).toBe(new Date(first as number).toISOString());
  });
});

describe("owner_address follows the owners (item 12)", () => {
  it("when the named owner is removed or demoted, the project names a remaining owner", async () => {
    const { owner, projectId } = await ownerWithProject();
    const second = await signedIn();
    const third = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: second.address, role: "owner" });
    await owner.call("POST", "/api/members", { project_id: projectId, address: third.address, role: "owner" });
    const members = await owner.call<{ members: Member[] }>("GET", `/api/projects/${projectId}/members`);
    const row = (address?: string) => members.body.members.find((m) => m.address === address) as Member;
    await second.call("DELETE", `/api/members/${row(owner.address).id}`);
    const view = async () =>
      (await second.call<{ project: { owner_address: string } }>("GET", `/api/projects/${projectId}`)).body.project
        .owner_address;
    expect(await view()).toBe(second.address);
    await third.call("PATCH", `/api/members/${row(second.address).id}`, { role: "admin" });
    expect(await view()).toBe(third.address);
  });
});
