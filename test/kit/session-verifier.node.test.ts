// The consumer session verifier against a loopback JWKS server: every rejection reason, one JWKS read for many
// verifications, unknown-kid refetch and its cooldown, rotation, stale-on-error, a host that never answered, the
// token extraction rules, freshness helpers, and the Hono and Node middlewares. A fake clock drives TTL/cooldown.
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningJwk } from "../../scripts/dev-keys.mjs";
import { type SessionSubject, signSessionToken } from "../../shared/auth/session-token";
import { loadSigningKey, type SigningKey } from "../../shared/crypto/signing-key";
import { ocSession as honoSession, type OcVariables } from "../../shared/kit/consumer/hono";
import { ocSession as expressSession, type NodeRequestLike, withSession } from "../../shared/kit/consumer/node";
import {
  createSessionVerifier,
  isFresh,
  isSteppedUp,
  isSudo,
  type SessionVerifierOptions,
  sessionTokens,
} from "../../shared/kit/consumer/session-verifier";

const ISSUER = "http://localhost:8787";
const T0 = Date.parse("2026-06-01T12:00:00Z");
const TTL = 300_000;
const COOLDOWN = 30_000;

interface JwksServer {
  url: string;
  reads: number;
  status: number;
  keys: object[];
  close(): Promise<void>;
}

async function startJwks(keys: object[]): Promise<JwksServer> {
  const state = { reads: 0, status: 200, keys };
  const server = http.createServer((_req, res) => {
    state.reads += 1;
    res.statusCode = state.status;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(state.status === 200 ? { keys: state.keys } : { ok: false }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  return Object.assign(state, {
    url,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }) as JwksServer;
}

const publicOf = ({ d: _d, ...jwk }: ReturnType<typeof generateSigningJwk>) => jwk;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function subject(): SessionSubject {
  return {
    sub: "acct1",
    did_oc: "did:oc:0123456789abcdef0123456789abcdef",
    jti: `jti-${Math.random()}`,
    display_name: "Alice",
    primary_btc: "bc1qexample",
    display_identity: { kind: "btc", value: "bc1qexample" },
    step_up_at: null,
    sudo_at: Math.floor(T0 / 1000) - 60,
  };
}

const mint = (key: SigningKey, options: { now?: number; issuer?: string; exp?: number } = {}) =>
  signSessionToken(subject(), key, {
    issuer: options.issuer ?? ISSUER,
    now: options.now ?? T0,
    expiresAt: options.exp ?? T0 + 86_400_000,
  });

/** A token with a hand-made header, signed with the real key (typ and key-header cases). */
async function withHeader(key: SigningKey, header: Record<string, unknown>) {
  return new SignJWT({ ...subject() })
    .setProtectedHeader({ alg: "EdDSA", ...header } as { alg: string })
    .setIssuer(ISSUER)
    .setIssuedAt(Math.floor(T0 / 1000))
    .setExpirationTime(Math.floor(T0 / 1000) + 3600)
    .sign(key.privateKey);
}

const current = generateSigningJwk();
const next = generateSigningJwk();
let key: SigningKey;
let nextKey: SigningKey;
let jwks: JwksServer;

beforeAll(async () => {
  key = await loadSigningKey(JSON.stringify(current));
  nextKey = await loadSigningKey(JSON.stringify(next));
  jwks = await startJwks([publicOf(current)]);
});
afterAll(() => jwks.close());

function verifier(overrides: Partial<SessionVerifierOptions> = {}) {
  const clock = { t: T0 };
  const v = createSessionVerifier({
    authOrigin: ISSUER,
    jwksUrl: jwks.url,
    cacheTtlMs: TTL,
    cooldownMs: COOLDOWN,
    now: () => clock.t,
    ...overrides,
  });
  return { v, clock };
}

describe("session verifier", () => {
  it("verifies tokens with one JWKS read for many verifications (no call per request)", async () => {
    const { v } = verifier();
    const before = jwks.reads;
    const tokens = await Promise.all(Array.from({ length: 20 }, () => mint(key)));
    for (const token of tokens) {
      const result = await v.verify(token);
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.claims).toMatchObject({ iss: ISSUER, sub: "acct1", display_name: "Alice" });
    }
    expect(jwks.reads - before).toBe(1);
  });

  it("refuses every forged or invalid token with its reason", async () => {
    const { v } = verifier();
    const good = await mint(key);
    const [h, p, s] = good.split(".") as [string, string, string];
    const hsHeader = b64({ alg: "HS256", typ: "JWT", kid: current.kid });
    const hsSig = createHmac("sha256", JSON.stringify(publicOf(current)))
      .update(`${hsHeader}.${p}`)
      .digest("base64url");
    const payload = JSON.parse(Buffer.from(p, "base64url").toString());
    const cases: [string, string][] = [
      [`${b64({ alg: "none", typ: "JWT", kid: current.kid })}.${p}.`, "session_malformed"],
      [`${b64({ alg: "none", typ: "JWT", kid: current.kid })}.${p}.${s}`, "session_alg_not_allowed"],
      [`${hsHeader}.${p}.${hsSig}`, "session_alg_not_allowed"],
      [await withHeader(key, { typ: "at+jwt", kid: current.kid }), "session_typ_not_allowed"],
      [await withHeader(key, { kid: current.kid }), "session_typ_not_allowed"],
      [
        await withHeader(key, { typ: "JWT", kid: current.kid, jku: "https://evil.example/jwks" }),
        "session_forbidden_header",
      ],
      [await withHeader(key, { typ: "JWT", kid: current.kid, jwk: publicOf(current) }), "session_forbidden_header"],
      [
        await withHeader(key, { typ: "JWT", kid: current.kid, x5u: "https://evil.example/c" }),
        "session_forbidden_header",
      ],
      [await mint(key, { issuer: "https://other.example" }), "session_bad_claims"],
      [await mint(key, { now: T0 - 2 * 86_400_000, exp: T0 - 1000 }), "session_expired"],
      [await mint(key, { now: T0 + 120_000 }), "session_bad_claims"],
      [`${h}.${b64({ ...payload, sub: "acct2" })}.${s}`, "session_bad_signature"],
      [`${h}.${p}.${Buffer.from(s, "base64url").reverse().toString("base64url")}`, "session_bad_signature"],
      ["not-a-jwt", "session_malformed"],
      [`${b64({ alg: "EdDSA", typ: "JWT" })}.${p}.${s}`, "session_malformed"],
    ];
    for (const [token, reason] of cases) {
      expect({ token, result: await v.verify(token) }).toEqual({ token, result: { ok: false, reason } });
    }
    // iat within the host's 60-second skew passes.
    expect((await v.verify(await mint(key, { now: T0 + 30_000 }))).ok).toBe(true);
  });

  it("never verifies a session with a key the JWKS marks for another use (the fleet's audit key)", async () => {
    const audit = generateSigningJwk();
    const auditKey = await loadSigningKey(JSON.stringify(audit));
    const marked = await startJwks([
      { ...publicOf(current), oc_use: "session" },
      { ...publicOf(audit), oc_use: "audit" },
    ]);
    try {
      const { v } = verifier({ jwksUrl: marked.url });
      expect((await v.verify(await mint(key))).ok).toBe(true);
      expect(await v.verify(await mint(auditKey))).toEqual({ ok: false, reason: "session_unknown_key" });
    } finally {
      await marked.close();
    }
  });

  it("bogus kids wait for the interval and share one read: at most one read per interval, however many", async () => {
    const { v } = verifier({ unknownKidIntervalMs: 100 });
    expect((await v.verify(await mint(key))).ok).toBe(true);
    const before = jwks.reads;
    const bogus = await Promise.all(
      Array.from({ length: 10 }, (_, i) => withHeader(key, { typ: "JWT", kid: `bogus-${i}` })),
    );
    for (let wave = 1; wave <= 2; wave++) {
      const started = performance.now();
      const results = await Promise.all(bogus.map((token) => v.verify(token)));
      expect(results.every((r) => !r.ok && r.reason === "session_unknown_key")).toBe(true);
      expect(jwks.reads - before).toBe(wave);
      expect(performance.now() - started).toBeGreaterThanOrEqual(90); // each wave waited out the interval
    }
  });

  it("a key rotated in just after a read: its first token waits for one refetch and verifies; old ones too", async () => {
    const { v } = verifier({ unknownKidIntervalMs: 100 });
    const old = await mint(key);
    expect((await v.verify(old)).ok).toBe(true);
    // The host rotates right after this verifier's read: no cooldown to wait out, and no token is refused.
    jwks.keys = [publicOf(next), publicOf(current)];
    const before = jwks.reads;
    const fresh = await mint(nextKey);
    const results = await Promise.all([v.verify(fresh), v.verify(fresh), v.verify(old)]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expect((await v.verify(fresh)).ok).toBe(true);
    expect(jwks.reads - before).toBe(1);
    jwks.keys = [publicOf(current)];
  });

  it("keeps the last good keys through a JWKS outage (stale-on-error), retrying no more than the cooldown", async () => {
    const { v, clock } = verifier();
    const token = await mint(key, { exp: T0 + 10 * 86_400_000 });
    expect((await v.verify(token)).ok).toBe(true);
    jwks.status = 503;
    try {
      clock.t += TTL + 1;
      const before = jwks.reads;
      expect((await v.verify(token)).ok).toBe(true);
      expect((await v.verify(token)).ok).toBe(true);
      expect(jwks.reads - before).toBe(1);
      clock.t += COOLDOWN;
      expect((await v.verify(token)).ok).toBe(true);
      expect(jwks.reads - before).toBe(2);
    } finally {
      jwks.status = 200;
    }
    // Back up: the next read after the cooldown refreshes the cache.
    clock.t += COOLDOWN;
    expect((await v.verify(token)).ok).toBe(true);
  });

  it("a verifier that never read the JWKS answers jwks_unavailable, without hammering the host", async () => {
    const down = await startJwks([]);
    await down.close();
    const { v, clock } = verifier({ jwksUrl: down.url });
    const token = await mint(key);
    expect(await v.verify(token)).toEqual({ ok: false, reason: "session_keys_unavailable" });
    expect(await v.refresh()).toBe(false);
    // A JWKS answering 500, non-JSON, or with no Ed25519 key is unavailable too.
    for (const [status, keys] of [
      [500, [publicOf(current)]],
      [200, [{ kty: "RSA", kid: "r", n: "x", e: "AQAB" }]],
    ] as const) {
      const bad = await startJwks([...keys]);
      bad.status = status;
      const other = verifier({ jwksUrl: bad.url }).v;
      expect(await other.verify(token)).toEqual({ ok: false, reason: "session_keys_unavailable" });
      expect(await other.verify(token)).toEqual({ ok: false, reason: "session_keys_unavailable" });
      expect(bad.reads).toBe(1);
      await bad.close();
    }
    clock.t += COOLDOWN;
    expect(await v.verify(token)).toEqual({ ok: false, reason: "session_keys_unavailable" });
  });
});

describe("token extraction and freshness", () => {
  it("tries the bearer token first, then at most four oc_session cookies", async () => {
    const token = await mint(key);
    expect(sessionTokens(new Headers({ authorization: `Bearer ${token}`, cookie: "oc_session=a.b.c" }))).toEqual([
      token,
      "a.b.c",
    ]);
    const flood = Array.from({ length: 6 }, (_, i) => `oc_session=junk${i}`).join("; ");
    expect(sessionTokens({ cookie: flood })).toHaveLength(4);
    expect(sessionTokens({ authorization: "Bearer ock_notajwt", cookie: "other=1" })).toEqual([]);
    const { v } = verifier();
    expect(await v.verifyRequest({ cookie: `oc_session=junk; theme=dark; oc_session=${token}` })).toMatchObject({
      ok: true,
    });
    expect(await v.verifyRequest({ cookie: `${flood}; oc_session=${token}` })).toEqual({
      ok: false,
      reason: "session_malformed",
    });
    expect(await v.verifyRequest({})).toEqual({ ok: false, reason: "session_missing" });
  });

  it("isFresh, isSteppedUp and isSudo read epoch-second claims against a max age", () => {
    const now = T0;
    const s = Math.floor(now / 1000);
    // The spec's rule, 0 ≤ now − value < window (as auth-core): the window's own edge is stale, no future stamp is
    // fresh (the edges against the rule and auth-core: test/kit/fresh.node.test.ts).
    expect(isFresh(s, 300, now)).toBe(true);
    expect(isFresh(s - 299, 300, now)).toBe(true);
    expect(isFresh(s - 300, 300, now)).toBe(false);
    expect(isFresh(s - 301, 300, now)).toBe(false);
    expect(isFresh(null, 300, now)).toBe(false);
    expect(isFresh(undefined, 300, now)).toBe(false);
    expect(isFresh(s + 1, 300, now)).toBe(false);
    expect(isFresh(s + 3600, 300, now)).toBe(false);
    const claims = { ...subject(), iss: ISSUER, iat: s, exp: s + 60 };
    expect(isSudo(claims, 300, now)).toBe(true);
    expect(isSudo(claims, 30, now)).toBe(false);
    expect(isSteppedUp(claims, 300, now)).toBe(false);
  });
});

describe("middleware", () => {
  it("Hono: sets c.var.oc.session, 401 with the reason, or passes anonymous requests in optional mode", async () => {
    const { v } = verifier();
    const app = new Hono<{ Variables: OcVariables }>();
    app.use("/required", honoSession({ verifier: v }));
    app.use("/optional", honoSession({ verifier: v, optional: true }));
    app.get("/required", (c) => c.json({ did: c.var.oc.session?.did_oc }));
    app.get("/optional", (c) => c.json({ did: c.var.oc.session?.did_oc ?? null, why: c.var.oc.reason ?? null }));
    const token = await mint(key);
    const ok = await app.request("/required", { headers: { cookie: `oc_session=${token}` } });
    expect(await ok.json()).toEqual({ did: "did:oc:0123456789abcdef0123456789abcdef" });
    const bearer = await app.request("/required", { headers: { authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(200);
    const refused = await app.request("/required");
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ ok: false, reason: "session_missing" });
    // Why, on every refusal: an expired session and a tampered one say so (issue 45).
    const expired = await mint(key, { now: T0 - 2 * 86_400_000, exp: T0 - 1000 });
    const old = await app.request("/required", { headers: { cookie: `oc_session=${expired}` } });
    expect([old.status, ((await old.json()) as { reason: string }).reason]).toEqual([401, "session_expired"]);
    const at = token.lastIndexOf(".") + 1;
    const tampered = `${token.slice(0, at)}${token[at] === "A" ? "B" : "A"}${token.slice(at + 1)}`;
    const bad = await app.request("/required", { headers: { authorization: `Bearer ${tampered}` } });
    expect([bad.status, ((await bad.json()) as { reason: string }).reason]).toEqual([401, "session_bad_signature"]);
    const anon = await app.request("/optional", { headers: { cookie: "oc_session=x.y.z" } });
    expect(await anon.json()).toEqual({ did: null, why: "session_malformed" });
  });

  it("Node: Express-style middleware and a node:http handler wrapper", async () => {
    const { v } = verifier();
    const token = await mint(key);
    const server = http.createServer(
      withSession({ verifier: v }, (req, res) => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ did: req.oc.session?.did_oc }));
      }),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ok = await fetch(base, { headers: { cookie: `oc_session=${token}` } });
      expect(await ok.json()).toEqual({ did: "did:oc:0123456789abcdef0123456789abcdef" });
      const refused = await fetch(base);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({
        ok: false,
        reason: "session_missing",
        detail: "no oc_session cookie and no bearer token: sign in",
      });
    } finally {
      await new Promise((r) => server.close(r));
    }
    // Express calling convention, with a stand-in request and response.
    const mw = expressSession({ verifier: v, optional: true });
    const req: NodeRequestLike = {
      headers: { authorization: `Bearer ${token}` },
    };
    const res = { statusCode: 200, setHeader: () => undefined, end: () => undefined };
    await new Promise<void>((resolve, reject) => mw(req, res, (err) => (err ? reject(err) : resolve())));
    expect(req.oc?.session).toMatchObject({ sub: "acct1" });
    const anon: typeof req = { headers: {} };
    await new Promise<void>((resolve) => mw(anon, res, () => resolve()));
    expect(anon.oc).toEqual({ session: undefined, reason: "session_missing" });
  });
});
