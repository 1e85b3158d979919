// A warm registration costs one D1 round trip with a token (the conditional batch) and two with a session (its row,
// then the batch), and folding the checks into the write loses none of them: a token revoked, a member demoted or
// removed, a project archived, a parent revoked after this isolate kept it, each still refuses the very next write
// with its reason, nothing stored; and a caller who lost access learns nothing from which refusal it gets.
// The fleet app is called directly with a recording D1 binding that logs each call the worker makes of it.
import { createExecutionContext, env } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cascade } from "../../shared/envelopes/agent";
import { app } from "../../workers/fleet/src/app";
import { isGuardedWrite } from "../../workers/fleet/src/registry/guarded-writes";
import { grantTree } from "../../workers/fleet/src/routes/revocations";
import { type D1Recording, recordD1 } from "../helpers/d1-recorder";
import { action, delegation, HOUR_MS, revocation, subdelegation } from "../helpers/envelopes";
import { FLEET, signedIn } from "../helpers/fleet";
import { fleetAnswer } from "../helpers/fleet-app";
import { newWallet } from "../helpers/wallet";

/** Calls made in the background (after the answer, through waitUntil) even when they start before it. */
const BACKGROUND = [/from "outbox" where .*"fanned_out_at" is null/i, /^update "api_tokens" set "last_used_at"/i];

/** The calls of `recording` made on the request's path (what ran in the background is not the request). */
const onRequestPath = (recording: D1Recording) =>
  recording.calls.filter((q) => !BACKGROUND.some((pattern) => pattern.test(q)));

interface Caller {
  ip: string;
  auth: Record<string, string>;
}

/**
 * POST through the app with counting D1 bindings (the registry's and the auth host's session reads, in one log); the
 * count stops at the answer (background dispatch is not the request).
 */
async function post(caller: Caller, path: string, body: unknown) {
  const recording = recordD1(env.DB);
  const authDb = recordD1(env.AUTH_DB ?? env.DB, recording.calls).db;
  const { res, settled } = await fleetAnswer(
    new Request(`${FLEET}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": caller.ip, ...caller.auth },
      body: JSON.stringify(body),
    }),
    { DB: recording.db, AUTH_DB: authDb },
  );
  const onPath = onRequestPath(recording);
  const json = (await res.json()) as { ok: boolean; reason?: string };
  await settled();
  return { status: res.status, reason: json.reason, calls: onPath };
}

let ipSeq = 0;
const nextIp = () => `198.51.100.${(ipSeq++ % 250) + 1}`;

async function project() {
  const principal = newWallet();
  const agent = newWallet("p2tr");
  const owner = await signedIn(principal.address);
  const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "round trips" });
  const projectId = created.body.project.id;
  const minted = await owner.call<{ token: { id: string }; secret: string }>("POST", "/api/tokens", {
    project_id: projectId,
    name: "agent",
  });
  const token: Caller = { ip: nextIp(), auth: { authorization: `Bearer ${minted.body.secret}` } };
  const session: Caller = {
    ip: nextIp(),
    auth: { cookie: `oc_session=${owner.cookie}`, "sec-fetch-site": "same-origin" },
  };
  const grant = await delegation(principal, agent);
  const first = await post(token, "/api/delegations", { project_id: projectId, envelope: grant.envelope });
  expect(first.status).toBe(201);
  return { principal, agent, owner, projectId, tokenId: minted.body.token.id, token, session, grant };
}

async function stored(projectId: string, id: string) {
  const row = await env.DB.prepare(
    "SELECT count(*) AS envelopes, count(leaf_idx) AS leaves FROM envelopes WHERE project_id = ?1 AND id = ?2",
  )
    .bind(projectId, id)
    .first<{ envelopes: number; leaves: number }>();
  return row;
}

describe("registration round trips", () => {
  it("a token's action: two D1 round trips the first time (the delegation is read once), one after", async () => {
    // project() registered the delegation with this token, so the isolate knows the token already.
    const p = await project();
    const one = await action(p.grant.id, p.agent);
    const first = await post(p.token, "/api/actions", { project_id: p.projectId, envelope: one.envelope });
    expect(first.status).toBe(201);
    expect(first.calls, first.calls.join("\n")).toHaveLength(2);
    for (let i = 0; i < 3; i++) {
      const next = await action(p.grant.id, p.agent);
      const res = await post(p.token, "/api/actions", { project_id: p.projectId, envelope: next.envelope });
      expect(res.status).toBe(201);
      expect(res.calls, res.calls.join("\n")).toHaveLength(1);
    }
  });

  it("a token's first request in an isolate reads it; a read route reads it on every request", async () => {
    const p = await project();
    const recording = recordD1(env.DB);
    for (let i = 0; i < 2; i++) {
      const { res, settled } = await fleetAnswer(
        new Request(`${FLEET}/api/actions?project_id=${p.projectId}`, { headers: { ...p.token.auth } }),
        { DB: recording.db },
      );
      expect(res.status).toBe(200);
      await settled();
    }
    expect(onRequestPath(recording).filter((q) => /from "api_tokens"/.test(q))).toHaveLength(2);
  });

  it("a session's action, warm: two round trips (the session row with its account, then the batch)", async () => {
    const p = await project();
    await post(p.session, "/api/actions", {
      project_id: p.projectId,
      envelope: (await action(p.grant.id, p.agent)).envelope,
    });
    const res = await post(p.session, "/api/actions", {
      project_id: p.projectId,
      envelope: (await action(p.grant.id, p.agent)).envelope,
    });
    expect(res.status).toBe(201);
    expect(res.calls, res.calls.join("\n")).toHaveLength(2);
  });

  it("a re-post is 409 already_registered after one more read, and stores nothing more", async () => {
    const p = await project();
    const one = await action(p.grant.id, p.agent);
    await post(p.token, "/api/actions", { project_id: p.projectId, envelope: one.envelope });
    const again = await post(p.token, "/api/actions", { project_id: p.projectId, envelope: one.envelope });
    expect(again).toMatchObject({ status: 409, reason: "already_registered" });
    expect(await stored(p.projectId, one.id)).toEqual({ envelopes: 1, leaves: 1 });
  });
});

describe("what the write re-checks, after this isolate kept the delegation and the membership", () => {
  async function warm() {
    const p = await project();
    for (const caller of [p.token, p.session]) {
      const res = await post(caller, "/api/actions", {
        project_id: p.projectId,
        envelope: (await action(p.grant.id, p.agent)).envelope,
      });
      expect(res.status).toBe(201);
    }
    return p;
  }

  async function refused(p: Awaited<ReturnType<typeof project>>, caller: Caller, status: number, reason: string) {
    const next = await action(p.grant.id, p.agent);
    const res = await post(caller, "/api/actions", { project_id: p.projectId, envelope: next.envelope });
    expect({ status: res.status, reason: res.reason }).toEqual({ status, reason });
    expect(await stored(p.projectId, next.id)).toEqual({ envelopes: 0, leaves: 0 });
  }

  it("a delegation revoked since (as another isolate would): 409 delegation_inactive, then read afresh", async () => {
    const p = await warm();
    await env.DB.prepare("UPDATE envelopes SET status = 'revoked' WHERE project_id = ? AND id = ?")
      .bind(p.projectId, p.grant.id)
      .run();
    await refused(p, p.token, 409, "delegation_inactive");
    await refused(p, p.session, 409, "delegation_inactive");
  });

  it("a delegation revoked through the route: the same isolate's next action is refused", async () => {
    const p = await warm();
    const r = await revocation(p.grant.id, p.principal);
    expect((await post(p.session, "/api/revocations", { project_id: p.projectId, envelope: r.envelope })).status).toBe(
      201,
    );
    await refused(p, p.token, 409, "delegation_inactive");
  });

  it("the token revoked: 401 unauthenticated at once", async () => {
    const p = await warm();
    await env.DB.prepare("UPDATE api_tokens SET revoked_at = ? WHERE id = ?").bind(Date.now(), p.tokenId).run();
    await refused(p, p.token, 401, "unauthenticated");
  });

  it("the token revoked and the project archived: 401, as a read of the token would answer", async () => {
    const p = await warm();
    await env.DB.prepare("UPDATE api_tokens SET revoked_at = ? WHERE id = ?").bind(Date.now(), p.tokenId).run();
    await env.DB.prepare("UPDATE projects SET archived_at = ? WHERE id = ?").bind(Date.now(), p.projectId).run();
    await refused(p, p.token, 401, "unauthenticated");
  });

  it("a caller who lost access learns nothing from the refusal: not which delegations exist, nor a 409", async () => {
    const p = await warm();
    const unknownDelegation = await action("a".repeat(64), p.agent);
    const knownAgain = await action(p.grant.id, p.agent);
    expect(
      (await post(p.token, "/api/actions", { project_id: p.projectId, envelope: knownAgain.envelope })).status,
    ).toBe(201);
    await env.DB.prepare("UPDATE api_tokens SET revoked_at = ? WHERE id = ?").bind(Date.now(), p.tokenId).run();
    await env.DB.prepare("DELETE FROM members WHERE project_id = ? AND address = ?")
      .bind(p.projectId, p.principal.address)
      .run();
    for (const [caller, status, reason] of [
      [p.token, 401, "unauthenticated"],
      [p.session, 404, "not_found"],
    ] as const) {
      for (const envelope of [unknownDelegation.envelope, knownAgain.envelope]) {
        const res = await post(caller, "/api/actions", { project_id: p.projectId, envelope });
        expect({ status: res.status, reason: res.reason }).toEqual({ status, reason });
      }
    }
  });

  it("the session's member demoted to viewer: 403 role_forbidden; removed: 404 not_found", async () => {
    const p = await warm();
    await env.DB.prepare("UPDATE members SET role = 'viewer' WHERE project_id = ? AND address = ?")
      .bind(p.projectId, p.principal.address)
      .run();
    await refused(p, p.session, 403, "role_forbidden");
    await env.DB.prepare("DELETE FROM members WHERE project_id = ? AND address = ?")
      .bind(p.projectId, p.principal.address)
      .run();
    await refused(p, p.session, 404, "not_found");
  });

  it("the project archived: 404 not_found for the token and the session", async () => {
    const p = await warm();
    await env.DB.prepare("UPDATE projects SET archived_at = ? WHERE id = ?").bind(Date.now(), p.projectId).run();
    await refused(p, p.token, 404, "not_found");
    await refused(p, p.session, 404, "not_found");
  });
});

describe("the guarded writes", () => {
  it("are exactly the routes that register an envelope (those answering already_registered)", async () => {
    const res = await app.fetch(new Request(`${FLEET}/api/openapi`), env, createExecutionContext());
    const doc = (await res.json()) as { paths: Record<string, Record<string, { responses?: object }>> };
    const registering: string[] = [];
    const guarded: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const concrete = path.replace(/\{[^}]+\}/g, "x".repeat(64));
        if (JSON.stringify(op.responses ?? {}).includes("already_registered")) registering.push(`${method} ${path}`);
        if (isGuardedWrite(method.toUpperCase(), concrete)) guarded.push(`${method} ${path}`);
      }
    }
    expect(registering.length).toBeGreaterThan(5);
    expect(guarded.sort()).toEqual(registering.sort());
  });
});

describe("revocation cascade in SQL", () => {
  it("a revoked sub-delegation's own children are revoked with it, and nothing above", async () => {
    const p = await project();
    const mid = newWallet();
    const leaf = newWallet();
    const sub = await subdelegation(p.grant.id, p.agent, mid);
    // Expiring before its parent whatever second each is signed in (a child may not outlive the grant above it).
    const subsub = await subdelegation(sub.id, mid, leaf, { expiresIn: 6 * HOUR_MS });
    for (const s of [sub, subsub]) {
      expect(
        (await post(p.token, "/api/subdelegations", { project_id: p.projectId, envelope: s.envelope })).status,
      ).toBe(201);
    }
    const r = await revocation(p.grant.id, p.principal);
    expect((await post(p.session, "/api/revocations", { project_id: p.projectId, envelope: r.envelope })).status).toBe(
      201,
    );
    const { results } = await env.DB.prepare(
      "SELECT id, status FROM envelopes WHERE project_id = ? AND kind != 'revocation'",
    )
      .bind(p.projectId)
      .all<{ id: string; status: string }>();
    expect(Object.fromEntries(results.map((row) => [row.id, row.status]))).toEqual({
      [p.grant.id]: "revoked",
      [sub.id]: "revoked",
      [subsub.id]: "revoked",
    });
  });

  it("the recursive query agrees with cascade() on random trees", async () => {
    const { orm } = await import("../../shared/db/client");
    const db = orm(env.DB);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(11), { minLength: 1, maxLength: 12 }), fc.nat(12), async (parents, target) => {
        const projectId = `proj_tree${run++}`;
        // Node i (i ≥ 1) hangs below parents[i - 1] modulo i (a tree), or below a node outside it.
        const rows = parents.map((p, i) => ({ id: `n${i + 1}`, parent_id: `n${p % (i + 1)}` }));
        await env.DB.batch(
          rows.map((r) =>
            env.DB.prepare(
              "INSERT INTO envelopes (project_id, id, kind, body, parent_id, created_at) VALUES (?, ?, 'subdelegation', '{}', ?, 0)",
            ).bind(projectId, r.id, r.parent_id),
          ),
        );
        const targetId = `n${target}`;
        const fromSql = (await db.all<{ id: string }>(grantTree(projectId, targetId))).map((r) => r.id);
        expect(new Set(fromSql)).toEqual(new Set([targetId, ...cascade(targetId, rows)]));
      }),
      { numRuns: 40 },
    );
  });
});
