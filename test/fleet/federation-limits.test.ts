// Federation delegations at the route (rule 7, DECISIONS 28), the fleet's rate limits, and oversized bodies.

import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomHex } from "../../shared/crypto/digest";
import { buildFederationDelegation } from "../../shared/envelopes/agent";
import { isoSeconds } from "../../shared/time";
import { FLEET, FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { newWallet } from "../helpers/wallet";

async function federation(signers = 2) {
  const guardians = [newWallet(), newWallet("p2tr"), newWallet()];
  const descriptor = {
    v: 1 as const,
    kind: "agent-federation" as const,
    threshold: "2-of-3",
    guardians: guardians.map((g) => ({ address: g.address, alg: "bip322" as const })),
  };
  const now = Date.now();
  const built = await buildFederationDelegation(
    {
      descriptor,
      agent: newWallet().address,
      scopes: ["stamp:sign(mime=text/markdown)"],
      bond: null,
      issued_at: isoSeconds(now - 60_000),
      expires_at: isoSeconds(now + 3_600_000),
      nonce: randomHex(16),
    },
    guardians.slice(0, signers).map((g) => ({ address: g.address, sign: (id: string) => g.sign(id) })),
  );
  return { guardians, built };
}

describe("federation delegations", () => {
  it("registers a 2-of-3 delegation signed by two guardians, submitted by one of them", async () => {
    const { guardians, built } = await federation();
    const guardian = await signedIn(guardians[0]?.address);
    const project = await guardian.call<{ project: { id: string } }>("POST", "/api/projects", { name: "federation" });
    const res = await guardian.call<{ delegation: { id: string; principal_address: string } }>(
      "POST",
      "/api/delegations/federation",
      {
        project_id: project.body.project.id,
        envelope: built.envelope,
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.delegation.principal_address).toMatch(/^federation:[0-9a-f]{64}$/);
    const wrong = await guardian.call("POST", "/api/delegations", {
      project_id: project.body.project.id,
      envelope: built.envelope,
    });
    expect(wrong.body.reason).toBe("federation_principal_wrong_endpoint");
  });

  it("refuses fewer signatures than the threshold (insufficient_signatures) and a session that is no signing guardian", async () => {
    const below = await federation(1);
    const guardian = await signedIn(below.guardians[0]?.address);
    const project = await guardian.call<{ project: { id: string } }>("POST", "/api/projects", { name: "f" });
    const res = await guardian.call("POST", "/api/delegations/federation", {
      project_id: project.body.project.id,
      envelope: below.built.envelope,
    });
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe("insufficient_signatures");
    const ok = await federation();
    const outsider = await signedIn();
    const other = await outsider.call<{ project: { id: string } }>("POST", "/api/projects", { name: "g" });
    const refused = await outsider.call("POST", "/api/delegations/federation", {
      project_id: other.body.project.id,
      envelope: ok.built.envelope,
    });
    expect(refused.body.reason).toBe("principal_must_match_session");
  });
});

describe("fleet limits", () => {
  /**
   * Sends until the first 429; the bucket refills continuously (capacity per minute), so the admitted count is the
   * capacity plus what refilled while the loop ran: at least the capacity, never more than capacity + refill + 1.
   */
  async function untilLimited(send: (i: number) => Promise<Response>, capacity: number, max: number) {
    const started = Date.now();
    for (let i = 0; i < max; i++) {
      const res = await send(i);
      if (res.status === 429) {
        const refilled = ((Date.now() - started) / 60_000) * capacity;
        return { admitted: i, bound: capacity + Math.ceil(refilled) + 1, res };
      }
      expect(res.status).toBe(200);
    }
    throw new Error("never limited");
  }

  it("limits each route per IP (120/min): 429 rate_limited with Retry-After; another route has its own bucket", async () => {
    const ip = "203.0.113.50";
    const get = (path: string) => SELF.fetch(`${FLEET}${path}`, { headers: { "cf-connecting-ip": ip } });
    const { admitted, bound, res } = await untilLimited(() => get("/api/webhook-events"), 120, 400);
    expect(admitted).toBeGreaterThanOrEqual(120);
    expect(admitted).toBeLessThanOrEqual(bound);
    expect(res.headers.get("retry-after")).toBeTruthy();
    expect(await res.json()).toEqual({ ok: false, reason: "rate_limited" });
    expect((await get("/api/health/deep")).status).toBe(200);
  });

  it("limits calls per project (600/min), whatever their IPs and callers", async () => {
    const { owner, projectId } = await ownerWithProject();
    // Five callers, none past its own share (150/min), so the project's bucket is what trips.
    const callers = [owner];
    for (let i = 0; i < 4; i++) {
      const member = await signedIn();
      await owner.call("POST", "/api/members", { project_id: projectId, address: member.address, role: "viewer" });
      callers.push(member);
    }
    const read = (i: number) =>
      SELF.fetch(`${FLEET}/api/projects/${projectId}`, {
        headers: {
          "cf-connecting-ip": `198.18.${Math.floor(i / 100)}.1`,
          cookie: `oc_session=${callers[i % callers.length]?.cookie}`,
        },
      });
    const { admitted, bound, res } = await untilLimited(read, 600, 2000);
    expect(admitted).toBeGreaterThanOrEqual(600);
    expect(admitted).toBeLessThanOrEqual(bound);
    expect(((await res.json()) as { reason: string }).reason).toBe("rate_limited");
  }, 60_000);

  it("attack: one caller at full speed stops at its own share (150/min); the other members and tokens are served", async () => {
    const { owner, projectId } = await ownerWithProject();
    const viewer = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: viewer.address, role: "viewer" });
    const token = await owner.call<{ secret: string }>("POST", "/api/tokens", { project_id: projectId, name: "ci" });
    // The viewer from many IPs, so no per-IP route bucket stops it first.
    const read = (i: number) =>
      SELF.fetch(`${FLEET}/api/projects/${projectId}`, {
        headers: { "cf-connecting-ip": `198.19.${Math.floor(i / 60)}.1`, cookie: `oc_session=${viewer.cookie}` },
      });
    const { admitted, res } = await untilLimited(read, 150, 600);
    expect(admitted).toBeGreaterThanOrEqual(150);
    expect(admitted).toBeLessThan(600);
    expect(((await res.json()) as { reason: string }).reason).toBe("rate_limited");
    expect((await owner.call("GET", `/api/projects/${projectId}`)).status).toBe(200);
    const bot = new FleetClient();
    bot.bearer = token.body.secret;
    expect((await bot.call("GET", `/api/projects/${projectId}`)).status).toBe(200);
  }, 60_000);

  it("refuses a body over 64 KiB with 413 body_too_large and stores nothing", async () => {
    const { owner } = await ownerWithProject();
    const res = await owner.call("POST", "/api/projects", { name: "x".repeat(70_000) });
    expect(res.status).toBe(413);
    expect(res.body.reason).toBe("body_too_large");
  });
});
