// Unknown API tokens (review 3, item 11): a bearer that is not the shape minted tokens have (`ock_` + 64 hex) is
// never looked up, and refused tokens are counted per client address before the lookup: past the budget the
// address gets 429 rate_limited with Retry-After and no D1 read, while a live token from elsewhere goes on.
// Before, every well-formed bearer was read on every shard, and 200 unknown ones got 200 × 401.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomHex } from "../../shared/crypto/digest";
import { REFUSED_TOKEN_RULE } from "../../workers/fleet/src/limits";
import { recordD1 } from "../helpers/d1-recorder";
import { FLEET, signedIn } from "../helpers/fleet";
import { fleetAnswer } from "../helpers/fleet-app";

/** A GET through the app with a recording registry database, from `ip` with `authorization`. */
async function get(path: string, ip: string, authorization: string) {
  const recording = recordD1(env.DB);
  const { res, settled } = await fleetAnswer(
    new Request(`${FLEET}${path}`, { headers: { authorization, "cf-connecting-ip": ip } }),
    { DB: recording.db },
  );
  const body = (await res.json()) as { reason?: string };
  await settled();
  const tokenReads = recording.calls.filter((sql) => /from "api_tokens"/i.test(sql));
  return { status: res.status, reason: body.reason, retryAfter: res.headers.get("retry-after"), tokenReads };
}

describe("bearer tokens that are refused", () => {
  it("a malformed bearer is 401 with no D1 read", async () => {
    const malformed = [
      "ock_",
      `ock_${randomHex(31)}`,
      `ock_${randomHex(33)}`,
      `ock_${randomHex(32).toUpperCase()}`,
      `tok_${randomHex(32)}`,
      "x".repeat(4096),
    ];
    for (const value of malformed) {
      const res = await get("/api/projects", "203.0.113.10", `Bearer ${value}`);
      expect(res.status, value).toBe(401);
      expect(res.reason, value).toBe("unauthenticated");
      expect(res.tokenReads, value).toEqual([]);
    }
  });

  it("200 unknown well-formed tokens from one address: 429 with Retry-After, and no lookup past the budget", async () => {
    const ip = "203.0.113.20";
    const answers = [];
    for (let i = 0; i < 200; i++) answers.push(await get("/api/projects", ip, `Bearer ock_${randomHex(32)}`));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(100);
    for (const a of refused) {
      expect(a.reason).toBe("rate_limited");
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    for (const a of answers.filter((a) => a.status !== 429)) expect(a.reason).toBe("unauthenticated");
    // Past the budget nothing is read: the lookups are the budget, the one that found it spent, and what refilled
    // while the loop ran (one token every three seconds).
    const lookups = answers.filter((a) => a.tokenReads.length > 0).length;
    expect(lookups).toBeLessThanOrEqual(REFUSED_TOKEN_RULE.capacity + 3);
    expect(refused.filter((a) => a.tokenReads.length > 0).length).toBeLessThanOrEqual(3);
  });

  it("a live token from another address is unaffected", async () => {
    const owner = await signedIn();
    const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "refusals" });
    const projectId = created.body.project.id;
    const minted = await owner.call<{ secret: string }>("POST", "/api/tokens", { project_id: projectId, name: "ci" });
    for (let i = 0; i < 60; i++) await get("/api/projects", "203.0.113.30", `Bearer ock_${randomHex(32)}`);
    const live = await get(`/api/projects/${projectId}`, "203.0.113.31", `Bearer ${minted.body.secret}`);
    expect(live.status).toBe(200);
  });
});
