// The kit's freshness gate (issue 27, part 5): requireFresh / requireStepUp on real oc_session tokens signed with the
// test signing key, whose JWKS the consumer verifier reads through an injected fetch. The edges of the spec's rule
// `0 ≤ now − value < window` (value = now, now − window, now − window + 1, one second in the future, null, absent),
// both windows asked at once, no session, and the same core behind the Hono and the Node middleware.
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { SessionSubject } from "../../shared/auth/session-token";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { createSessionVerifier } from "../../shared/kit/consumer";
import { requireFresh, requireStepUp } from "../../shared/kit/fresh";
import { type FreshVariables, requireFresh as honoFresh } from "../../shared/kit/fresh/hono";
import { type FreshRequestLike, requireStepUp as nodeStepUp } from "../../shared/kit/fresh/node";
import { AUTH_ORIGIN } from "../helpers/browser";
import { runNodeMiddleware } from "../helpers/node-middleware";
import { decodePart, mintToken } from "../helpers/tokens";

const signingKey = await loadSigningKey(env.AUTH_SIGNING_KEY as string);
const jwksFetch: typeof fetch = async () => Response.json({ keys: [signingKey.publicJwk] });
// One fixed instant for the gates: every stamp below is relative to it, so no test depends on the wall clock.
const T = Date.now();
const NOW = Math.floor(T / 1000);
const clock = () => T;
const verifier = createSessionVerifier({
  jwksUrl: `${AUTH_ORIGIN}/.well-known/jwks.json`,
  issuer: AUTH_ORIGIN,
  fetch: jwksFetch,
});

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

const sudoGate = requireFresh({ authOrigin: AUTH_ORIGIN, fetch: jwksFetch, now: clock, sudo: 600 });
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

  it("both windows asked: passes only when both hold; sudo is reported first", async () => {
    const both = requireFresh({ verifier, now: clock, sudo: 600, stepUp: 60 });
    expect(await both(await request({ sudo: NOW - 10, stepUp: NOW - 10 }))).toMatchObject({ ok: true });
    expect(await both(await request({ sudo: NOW - 10, stepUp: NOW - 60 }))).toMatchObject({
      reason: "step_up_required",
      detail: "step_up_at must be within the last 60 s (it is 60 s old)",
      maxAge: 60,
    });
    expect(await both(await request({ sudo: NOW - 600, stepUp: NOW }))).toMatchObject({
      reason: "sudo_required",
      maxAge: 600,
    });
    expect(await both(await request({ sudo: null, stepUp: null }))).toMatchObject({ reason: "sudo_required" });
    // A fresh step-up does not stand in for sudo, nor sudo for step-up: independent claims, as in auth-core.
    expect(await sudoGate(await request({ sudo: null, stepUp: NOW }))).toMatchObject({ reason: "sudo_required" });
    expect(await stepUpGate(await request({ sudo: NOW, stepUp: null }))).toMatchObject({ reason: "step_up_required" });
  });

  it("no session: no_session with the verifier's reason, before any freshness is read", async () => {
    expect(await sudoGate(new Request("https://site.example/"))).toEqual({
      ok: false,
      reason: "no_session",
      detail: "no_token",
    });
    const forged = `${(await token({ sudo: NOW })).slice(0, -4)}AAAA`;
    const bad = new Request("https://site.example/", { headers: { authorization: `Bearer ${forged}` } });
    expect(await sudoGate(bad)).toEqual({ ok: false, reason: "no_session", detail: "signature" });
  });

  it("refuses to be made without a window, with a window that is not a positive integer, or without a source", () => {
    expect(() => requireFresh({ verifier })).toThrow(/give sudo or stepUp/);
    expect(() => requireFresh({ verifier, sudo: 0 })).toThrow(/sudo must be a positive integer/);
    expect(() => requireFresh({ verifier, stepUp: 1.5 })).toThrow(/stepUp must be a positive integer/);
    expect(() => requireStepUp({ verifier, maxAge: -1 })).toThrow(/stepUp must be a positive integer/);
    expect(() => requireFresh({ authOrigin: "", sudo: 60 })).toThrow(/give authOrigin or a verifier/);
  });
});

describe("the middlewares (thin adapters on the same core)", () => {
  it("Hono: 401 without a session, 403 with reason, detail and max_age, or the route with c.var.fresh", async () => {
    const app = new Hono<{ Variables: FreshVariables }>();
    app.use("/account/delete", honoFresh({ authOrigin: AUTH_ORIGIN, fetch: jwksFetch, now: clock, sudo: 600 }));
    app.use("/account/page", honoFresh({ verifier, now: clock, sudo: 600, optional: true }));
    app.post("/account/delete", (c) => c.json({ deleted: c.var.fresh.ok && c.var.fresh.session.sub }));
    app.get("/account/page", (c) =>
      c.json({ fresh: c.var.fresh.ok, reason: c.var.fresh.ok ? null : c.var.fresh.reason }),
    );

    const anonymous = await app.request("/account/delete", { method: "POST" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("cache-control")).toBe("no-store");
    expect(await anonymous.json()).toEqual({ ok: false, reason: "no_session", detail: "no_token" });

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
      max_age: 600,
    });

    const fresh = await request({ sudo: NOW - 1 });
    const done = await app.request("/account/delete", { method: "POST", headers: fresh.headers });
    expect(done.status).toBe(200);
    expect(((await done.json()) as { deleted: string }).deleted).toMatch(/^[0-9a-f]{32}$/);

    // Optional: every request reaches the route, which reads the decision itself.
    const page = await app.request("/account/page", { headers: (await request({ sudo: null })).headers });
    expect(await page.json()).toEqual({ fresh: false, reason: "sudo_required" });
    expect(await (await app.request("/account/page")).json()).toEqual({ fresh: false, reason: "no_session" });
  });

  it("Node (Express-style): sets req.freshness, answers a refusal itself; optional lets every request through", async () => {
    const options = { verifier, now: clock, maxAge: 120 };
    const stale = { headers: { cookie: `oc_session=${await token({ sudo: NOW, stepUp: NOW - 120 })}` } };
    const refused = await runNodeMiddleware(nodeStepUp(options), stale);
    expect(refused).toMatchObject({ next: false, res: { statusCode: 403, headers: { "cache-control": "no-store" } } });
    expect(JSON.parse(refused.res.body)).toEqual({
      ok: false,
      reason: "step_up_required",
      detail: "step_up_at must be within the last 120 s (it is 120 s old)",
      max_age: 120,
    });
    expect((stale as FreshRequestLike).freshness).toMatchObject({ ok: false, reason: "step_up_required" });

    const anonymous = await runNodeMiddleware(nodeStepUp(options), { headers: {} });
    expect([anonymous.res.statusCode, JSON.parse(anonymous.res.body).reason]).toEqual([401, "no_session"]);

    const optional: FreshRequestLike = { headers: stale.headers };
    expect((await runNodeMiddleware(nodeStepUp({ ...options, optional: true }), optional)).next).toBe(true);
    expect(optional.freshness?.ok).toBe(false);

    const good: FreshRequestLike = { headers: { authorization: `Bearer ${await token({ stepUp: NOW - 119 })}` } };
    expect((await runNodeMiddleware(nodeStepUp(options), good)).next).toBe(true);
    expect(good.freshness).toMatchObject({ ok: true, session: { step_up_at: NOW - 119 } });
  });

  it("Node: a decision that cannot be set on the request goes to next(err), never a request left hanging", async () => {
    // As Express's own `req.fresh`: a getter only, so assigning it throws (what the fixture project found).
    const owned = { headers: { authorization: `Bearer ${await token({ stepUp: NOW })}` } };
    Object.defineProperty(owned, "freshness", { get: () => undefined });
    const response = { statusCode: 200, setHeader: () => undefined, end: () => undefined };
    const passed = await new Promise((resolve) =>
      nodeStepUp({ verifier, now: clock, maxAge: 120 })(owned, response, resolve),
    );
    expect(passed).toBeInstanceOf(TypeError);
  });
});
