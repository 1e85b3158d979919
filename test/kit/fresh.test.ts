// The kit's freshness gate (issue 27, part 5): requireFresh / requireStepUp on real oc_session tokens signed with the
// test signing key, whose JWKS the consumer verifier reads through an injected fetch. The edges of the spec's rule
// `0 ≤ now − value < window` (value = now, now − window, now − window + 1, one second in the future, null, absent),
// both gates stacked, no session (with the verifier's reason), and the same core behind Hono and Node middleware.
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { SessionSubject } from "../../shared/auth/session-token";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { createSessionVerifier } from "../../shared/kit/consumer";
import { requireFresh, requireStepUp } from "../../shared/kit/fresh";
import { requireFresh as honoFresh, requireStepUp as honoStepUp, type OcVariables } from "../../shared/kit/fresh/hono";
import { type NodeRequestLike, requireStepUp as nodeStepUp } from "../../shared/kit/fresh/node";
import { AUTH_ORIGIN } from "../helpers/browser";
import { runNodeMiddleware } from "../helpers/node-middleware";
import { decodePart, mintToken } from "../helpers/tokens";

const signingKey = await loadSigningKey(env.AUTH_SIGNING_KEY as string);
const jwksFetch: typeof fetch = async () => Response.json({ keys: [signingKey.publicJwk] });
// One fixed instant for the gates: every stamp below is relative to it, so no test depends on the wall clock.
const T = Date.now();
const NOW = Math.floor(T / 1000);
const clock = () => T;
const verifier = createSessionVerifier({ authOrigin: AUTH_ORIGIN, fetch: jwksFetch });

type Stamp = number | null | "absent";

/** A session token whose sudo_at / step_up_at are as given ("absent": the claim is left out, as older hosts do). */
async function token(stamps: { sudo?: Stamp; stepUp?: Stamp }): Promise<string> {
  const id = crypto.randomUUID().replaceAll("-", "");
  const claim = (stamp: Stamp | undefined) => (stamp === "absent" ? undefined : (stamp ?? null));
  const subject = {
    sub: id,
    did_oc: `did:oc:${id}`,
    jti: crypto.randomUUID(),
    display_name: null,
    primary_btc: null,
    display_identity: { kind: "did", value: `did:oc:${id}` },
    step_up_at: claim(stamps.stepUp),
    sudo_at: claim(stamps.sudo),
  } as SessionSubject; // undefined is dropped by JSON: the one way to mint a token without the claim
  return mintToken(subject);
}

const request = async (stamps: { sudo?: Stamp; stepUp?: Stamp }) =>
  new Request("https://site.example/account/delete", {
    headers: { cookie: `theme=dark; oc_session=${await token(stamps)}` },
  });

const sudoGate = requireFresh({ authOrigin: AUTH_ORIGIN, fetch: jwksFetch, now: clock, maxAge: 600 });
const stepUpGate = requireStepUp({ verifier, now: clock, maxAge: 300 });

describe("requireFresh / requireStepUp (the core): the edges of 0 ≤ now − value < window", () => {
  it("sudo: fresh at age 0 and at window − 1; stale at exactly the window; refused one second in the future", async () => {
    expect(await sudoGate(await request({ sudo: NOW }))).toMatchObject({ ok: true, session: { sudo_at: NOW } });
    expect(await sudoGate(await request({ sudo: NOW - 599 }))).toMatchObject({ ok: true });
    expect(await sudoGate(await request({ sudo: NOW - 600 }))).toMatchObject({
      ok: false,
      reason: "sudo_required",
      detail: "sudo_at must be within the last 600 s (it is 600 s old)",
      maxAge: 600,
    });
    expect(await sudoGate(await request({ sudo: NOW + 1 }))).toMatchObject({
      ok: false,
      reason: "sudo_required",
      detail: "sudo_at must be within the last 600 s (it is 1 s in the future)",
    });
  });

  it("sudo: null and an absent claim are never fresh", async () => {
    expect(await sudoGate(await request({ sudo: null }))).toMatchObject({
      ok: false,
      reason: "sudo_required",
      detail: "sudo_at must be within the last 600 s (it is null)",
    });
    const absent = await token({ sudo: "absent" });
    expect("sudo_at" in decodePart(absent, 1)).toBe(false);
    const decision = await sudoGate(
      new Request("https://site.example/", { headers: { cookie: `oc_session=${absent}` } }),
    );
    expect(decision).toMatchObject({ ok: false, reason: "sudo_required", detail: expect.stringMatching(/absent\)$/) });
  });

  it("step-up: the same edges on step_up_at, with requireStepUp's window", async () => {
    const cases: [Stamp, boolean][] = [
      [NOW, true],
      [NOW - 299, true],
      [NOW - 300, false],
      [NOW + 1, false],
      [null, false],
      ["absent", false],
    ];
    for (const [stepUp, ok] of cases) {
      const decision = await stepUpGate(await request({ stepUp, sudo: NOW }));
      expect([stepUp, decision.ok]).toEqual([stepUp, ok]);
      if (!decision.ok) expect(decision).toMatchObject({ reason: "step_up_required", maxAge: 300 });
    }
    // The default window is 300 s (the spec's typical one).
    const byDefault = requireStepUp({ verifier, now: clock });
    expect(await byDefault(await request({ stepUp: NOW - 299 }))).toMatchObject({ ok: true });
    expect(await byDefault(await request({ stepUp: NOW - 300 }))).toMatchObject({ reason: "step_up_required" });
  });

  it("requireFresh reads sudo_at, requireStepUp step_up_at, each with maxAge seconds (default 300)", async () => {
    const byDefault = requireFresh({ verifier, now: clock });
    expect(await byDefault(await request({ sudo: NOW - 299 }))).toMatchObject({ ok: true });
    expect(await byDefault(await request({ sudo: NOW - 300 }))).toMatchObject({ reason: "sudo_required", maxAge: 300 });
    // A fresh step-up does not stand in for sudo, nor sudo for step-up: independent claims, as in auth-core.
    expect(await sudoGate(await request({ sudo: null, stepUp: NOW }))).toMatchObject({ reason: "sudo_required" });
    expect(await stepUpGate(await request({ sudo: NOW, stepUp: null }))).toMatchObject({ reason: "step_up_required" });
  });

  it("no session: the verifier's reason itself, before any freshness is read", async () => {
    expect(await sudoGate(new Request("https://site.example/"))).toMatchObject({
      ok: false,
      reason: "session_missing",
    });
    const forged = `${(await token({ sudo: NOW })).slice(0, -4)}AAAA`;
    const bad = new Request("https://site.example/", { headers: { authorization: `Bearer ${forged}` } });
    expect(await sudoGate(bad)).toMatchObject({ ok: false, reason: "session_bad_signature" });
  });

  it("refuses to be made with a window that is not a positive integer, or without a source", () => {
    expect(() => requireFresh({ verifier, maxAge: 0 })).toThrow(/maxAge must be a positive integer/);
    expect(() => requireFresh({ verifier, maxAge: 1.5 })).toThrow(/maxAge must be a positive integer/);
    expect(() => requireStepUp({ verifier, maxAge: -1 })).toThrow(/maxAge must be a positive integer/);
    expect(() => requireFresh({} as Parameters<typeof requireFresh>[0])).toThrow(/give authOrigin or a verifier/);
  });
});

describe("the middlewares (thin adapters on the same core)", () => {
  it("Hono: 401 with the reason, 403 with reason, detail and maxAge, or the route with c.var.oc", async () => {
    const app = new Hono<{ Variables: OcVariables }>();
    app.use("/account/delete", honoFresh({ authOrigin: AUTH_ORIGIN, fetch: jwksFetch, now: clock, maxAge: 600 }));
    app.use("/account/page", honoFresh({ verifier, now: clock, maxAge: 600, optional: true }));
    app.post("/account/delete", (c) => c.json({ deleted: c.var.oc.session?.sub }));
    app.get("/account/page", (c) => {
      const freshness = c.var.oc.freshness;
      return c.json({ fresh: freshness?.ok, reason: freshness?.ok ? null : freshness?.reason });
    });

    const anonymous = await app.request("/account/delete", { method: "POST" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("cache-control")).toBe("no-store");
    expect(await anonymous.json()).toEqual({
      ok: false,
      reason: "session_missing",
      detail: "no oc_session cookie and no bearer token: sign in",
    });

    const stale = await app.request("/account/delete", {
      method: "POST",
      headers: (await request({ sudo: NOW - 600 })).headers,
    });
    expect(stale.status).toBe(403);
    expect(stale.headers.get("cache-control")).toBe("no-store");
    expect(await stale.json()).toEqual({
      ok: false,
      reason: "sudo_required",
      detail: "sudo_at must be within the last 600 s (it is 600 s old)",
      maxAge: 600,
    });

    const fresh = await request({ sudo: NOW - 1 });
    const done = await app.request("/account/delete", { method: "POST", headers: fresh.headers });
    expect(done.status).toBe(200);
    expect(((await done.json()) as { deleted: string }).deleted).toMatch(/^[0-9a-f]{32}$/);

    // Optional: every request reaches the route, which reads the decision itself.
    const page = await app.request("/account/page", { headers: (await request({ sudo: null })).headers });
    expect(await page.json()).toEqual({ fresh: false, reason: "sudo_required" });
    expect(await (await app.request("/account/page")).json()).toEqual({ fresh: false, reason: "session_missing" });
  });

  it("Hono: both gates stacked fill one c.var.oc, sudo first (the host asks sudo before a key)", async () => {
    const app = new Hono<{ Variables: OcVariables }>();
    app.use("/payouts/*", honoFresh({ verifier, now: clock, maxAge: 600 }), honoStepUp({ verifier, now: clock }));
    app.post("/payouts/send", (c) => c.json({ sub: c.var.oc.session?.sub, ok: c.var.oc.freshness?.ok }));
    const both = await app.request("/payouts/send", {
      method: "POST",
      headers: (await request({ sudo: NOW - 700, stepUp: NOW - 400 })).headers,
    });
    expect([both.status, ((await both.json()) as { reason: string }).reason]).toEqual([403, "sudo_required"]);
    const key = await app.request("/payouts/send", {
      method: "POST",
      headers: (await request({ sudo: NOW, stepUp: NOW - 400 })).headers,
    });
    expect(await key.json()).toMatchObject({ reason: "step_up_required", maxAge: 300 });
    const done = await app.request("/payouts/send", {
      method: "POST",
      headers: (await request({ sudo: NOW, stepUp: NOW })).headers,
    });
    expect(await done.json()).toMatchObject({ sub: expect.stringMatching(/^[0-9a-f]{32}$/), ok: true });
  });

  it("Node (Express-style): sets req.oc.freshness, answers a refusal itself; optional lets every request through", async () => {
    const options = { verifier, now: clock, maxAge: 120 };
    const stale = { headers: { cookie: `oc_session=${await token({ sudo: NOW, stepUp: NOW - 120 })}` } };
    const refused = await runNodeMiddleware(nodeStepUp(options), stale);
    expect(refused).toMatchObject({ next: false, res: { statusCode: 403, headers: { "cache-control": "no-store" } } });
    expect(JSON.parse(refused.res.body)).toEqual({
      ok: false,
      reason: "step_up_required",
      detail: "step_up_at must be within the last 120 s (it is 120 s old)",
      maxAge: 120,
    });
    expect((stale as NodeRequestLike).oc?.freshness).toMatchObject({ ok: false, reason: "step_up_required" });

    const anonymous = await runNodeMiddleware(nodeStepUp(options), { headers: {} });
    expect([anonymous.res.statusCode, JSON.parse(anonymous.res.body).reason]).toEqual([401, "session_missing"]);

    const optional: NodeRequestLike = { headers: stale.headers };
    expect((await runNodeMiddleware(nodeStepUp({ ...options, optional: true }), optional)).next).toBe(true);
    expect(optional.oc?.freshness?.ok).toBe(false);

    const good: NodeRequestLike = { headers: { authorization: `Bearer ${await token({ stepUp: NOW - 119 })}` } };
    expect((await runNodeMiddleware(nodeStepUp(options), good)).next).toBe(true);
    expect(good.oc?.freshness).toMatchObject({ ok: true, session: { step_up_at: NOW - 119 } });
  });

  it("Node: a decision that cannot be set on the request goes to next(err), never a request left hanging", async () => {
    // As Express's own `req.fresh`: a getter only, so assigning it throws (what the fixture project found).
    const owned = { headers: { authorization: `Bearer ${await token({ stepUp: NOW })}` } };
    Object.defineProperty(owned, "oc", { get: () => undefined });
    const response = { statusCode: 200, setHeader: () => undefined, end: () => undefined };
    const passed = await new Promise((resolve) =>
      nodeStepUp({ verifier, now: clock, maxAge: 120 })(owned, response, resolve),
    );
    expect(passed).toBeInstanceOf(TypeError);
  });
});
