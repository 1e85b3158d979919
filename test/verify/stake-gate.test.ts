// The kit's stake gate (issue 16, item 8) against the real verify worker (SELF) and its loopback chain and relays:
// enough stake, too little, too young, no attestation, chain down (fails closed, not cached), no session, an account
// without a Bitcoin address; the 60 s verdict cache; and the same core behind the Hono and the Node middleware.
// Sessions are real oc_session tokens signed with a key whose JWKS the consumer verifier reads.
import { SELF } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type SessionSubject, signSessionToken } from "../../shared/auth/session-token";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { createSessionVerifier } from "../../shared/kit/consumer";
import { requireStake, type StakeGateOptions } from "../../shared/kit/stake";
import { requireStake as honoStake, type OcVariables } from "../../shared/kit/stake/hono";
import { type NodeRequestLike, requireStake as nodeStake } from "../../shared/kit/stake/node";
import { fixture, fund, publishAttestation } from "../helpers/attestations";
import { addressMode } from "../helpers/fakes";
import { runNodeMiddleware } from "../helpers/node-middleware";

const AUTH = "http://localhost:8787";
const DAY_MS = 86_400_000;

async function newKey() {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return loadSigningKey(JSON.stringify({ ...jwk, kid: `k${crypto.randomUUID().slice(0, 8)}` }));
}
const key = await newKey();
const verifier = createSessionVerifier({
  authOrigin: AUTH,
  fetch: async () => Response.json({ keys: [key.publicJwk] }),
});

function session(primaryBtc: string | null): Promise<string> {
  const id = crypto.randomUUID().replaceAll("-", "");
  const subject: SessionSubject = {
    sub: id,
    did_oc: `did:oc:${id}`,
    jti: crypto.randomUUID(),
    display_name: null,
    primary_btc: primaryBtc,
    display_identity: primaryBtc ? { kind: "btc", value: primaryBtc } : { kind: "email", value: "ada@example.com" },
    step_up_at: null,
    sudo_at: null,
  };
  return signSessionToken(subject, key, { issuer: AUTH, now: Date.now(), expiresAt: Date.now() + DAY_MS });
}

const request = async (primaryBtc: string | null) =>
  new Request("https://site.example/members", { headers: { cookie: `oc_session=${await session(primaryBtc)}` } });

let ip = 0;
/** The verification API as the site reaches it: the verify worker, from its own client IP (rate limits). */
function checkApi() {
  const counter = { calls: 0 };
  ip += 1;
  const fetchImpl: typeof fetch = (input, init) => {
    counter.calls += 1;
    const req = new Request(input, init);
    req.headers.set("cf-connecting-ip", `198.18.0.${ip}`);
    return SELF.fetch(req);
  };
  return { counter, fetch: fetchImpl };
}

function gate(options: Partial<StakeGateOptions> = {}) {
  const api = checkApi();
  const decide = requireStake({
    authOrigin: AUTH,
    verifier,
    minSats: 100_000,
    minDays: 30,
    fetch: api.fetch,
    ...options,
  });
  return { decide, api };
}

async function staked(name: string, sats: number, days: number): Promise<string> {
  const a = fixture(name);
  await publishAttestation(a);
  await fund(a.address, sats, days);
  return a.address;
}

describe("requireStake (the framework-agnostic core)", () => {
  it("lets in an address holding enough for long enough, with the check's facts and the session", async () => {
    const address = await staked("stake-enough", 150_000, 40);
    const decision = await gate().decide(await request(address));
    expect(decision).toMatchObject({
      ok: true,
      session: { primary_btc: address },
      stake: { address, sats: 150_000, days: 40, ok: true, reasons: [] },
    });
  });

  it("refuses too little stake and too young a stake: stake_insufficient with the check's reasons", async () => {
    const little = await staked("stake-little", 50_000, 40);
    expect(await gate().decide(await request(little))).toMatchObject({
      ok: false,
      reason: "stake_insufficient",
      detail: "below_min_sats",
      stake: { sats: 50_000, days: 40 },
    });
    const young = await staked("stake-young", 150_000, 10);
    expect(await gate().decide(await request(young))).toMatchObject({
      ok: false,
      reason: "stake_insufficient",
      detail: "below_min_days",
    });
    // No attestation names the address at all: the API's 404 is a verdict (nothing staked), not an outage.
    expect(await gate().decide(await request(`bc1q${"n".repeat(38)}`))).toMatchObject({
      ok: false,
      reason: "stake_insufficient",
      detail: "not_found",
    });
  });

  it("fails closed with check_unavailable while the chain is down, caches no outage, and recovers", async () => {
    const address = await staked("stake-chain-down", 150_000, 40);
    const { decide, api } = gate();
    await addressMode(address, { down: true });
    try {
      const down = await decide(await request(address));
      expect(down).toMatchObject({
        ok: false,
        reason: "check_unavailable",
        detail: "check answered 502 chain_unavailable",
      });
    } finally {
      await addressMode(address, { down: false });
    }
    expect(await decide(await request(address))).toMatchObject({ ok: true });
    expect(api.counter.calls).toBe(2);
    const unreachable = requireStake({
      authOrigin: AUTH,
      verifier,
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    });
    expect(await unreachable(await request(address))).toMatchObject({ ok: false, reason: "check_unavailable" });
  });

  it("refuses without a session (and says why) and for an account without a Bitcoin address", async () => {
    const { decide, api } = gate();
    expect(await decide(new Request("https://site.example/"))).toMatchObject({ ok: false, reason: "session_missing" });
    const forged = `${(await session("bc1qx")).slice(0, -4)}AAAA`;
    const bad = new Request("https://site.example/", { headers: { cookie: `oc_session=${forged}` } });
    expect(await decide(bad)).toMatchObject({ ok: false, reason: "session_bad_signature" });
    expect(await decide(await request(null))).toMatchObject({ ok: false, reason: "no_bitcoin_identity" });
    expect(api.counter.calls).toBe(0);
  });

  it("keeps a verdict 60 s (one check for many requests, concurrent ones included), then asks again", async () => {
    const address = await staked("stake-cache", 150_000, 40);
    const clock = { t: Date.now() };
    const { decide, api } = gate({ now: () => clock.t });
    const decisions = await Promise.all([1, 2, 3, 4, 5].map(async () => decide(await request(address))));
    expect(decisions.every((d) => d.ok)).toBe(true);
    expect(await decide(await request(address))).toMatchObject({ ok: true });
    expect(api.counter.calls).toBe(1);
    clock.t += 59_999;
    await decide(await request(address));
    expect(api.counter.calls).toBe(1);
    clock.t += 1;
    await decide(await request(address));
    expect(api.counter.calls).toBe(2);
  });
});

describe("the middlewares (thin adapters on the same core)", () => {
  it("Hono: 401/403 with the reason, or the route with c.var.oc.stake", async () => {
    const address = await staked("stake-hono", 150_000, 40);
    const api = checkApi();
    const app = new Hono<{ Variables: OcVariables }>();
    app.use("/members/*", honoStake({ authOrigin: AUTH, verifier, minSats: 100_000, minDays: 30, fetch: api.fetch }));
    app.get("/members/home", (c) => c.json({ sats: c.var.oc.stake?.ok ? c.var.oc.stake.stake.sats : null }));
    const anonymous = await app.request("/members/home");
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ ok: false, reason: "session_missing" });
    const email = await app.request("/members/home", { headers: (await request(null)).headers });
    expect([email.status, ((await email.json()) as { reason: string }).reason]).toEqual([403, "no_bitcoin_identity"]);
    const member = await app.request("/members/home", { headers: (await request(address)).headers });
    expect(member.status).toBe(200);
    expect(await member.json()).toEqual({ sats: 150_000 });
  });

  it("Node (Express-style): sets req.oc.stake, answers a refusal itself; optional lets every request through", async () => {
    const address = await staked("stake-node", 40_000, 40);
    const api = checkApi();
    const options = { authOrigin: AUTH, verifier, minSats: 100_000, minDays: 30, fetch: api.fetch };
    const cookie = `theme=dark; oc_session=${await session(address)}`;
    const req: NodeRequestLike = { headers: { cookie } };
    const refused = await runNodeMiddleware(nodeStake(options), req);
    expect(refused.next).toBe(false);
    expect(refused.res.statusCode).toBe(403);
    expect(JSON.parse(refused.res.body)).toMatchObject({ ok: false, reason: "stake_insufficient" });
    expect(req.oc?.stake).toMatchObject({ ok: false, reason: "stake_insufficient" });
    const optional = await runNodeMiddleware(nodeStake({ ...options, optional: true }), { headers: { cookie } });
    expect(optional.next).toBe(true);
    const lower = await runNodeMiddleware(nodeStake({ ...options, minSats: 40_000 }), { headers: { cookie } });
    expect(lower.next).toBe(true);
  });
});
