// The kit's freshness answers against auth-core's rule (issue 27, part 5): `verifySudoClaim` / `verifyStepUpClaim`
// accept a stamp only if `0 ≤ now − value < window` (oc-wire-formats §6.10). @orangecheck/auth-core is not a
// dependency of this project, so the oracle here is that rule as the spec words it; when the package is installed,
// the last test also asks auth-core itself (it reads Date.now(), hence the fake clock there). Then the core gate
// behind a plain node:http server, as docs/kit.md tells Node sites without Express to use it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { generateSigningJwk } from "../../scripts/dev-keys.mjs";
import { type SessionClaims, signSessionToken } from "../../shared/auth/session-token";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { createSessionVerifier, isFresh, isSteppedUp, isSudo } from "../../shared/kit/consumer/session-verifier";
import { refusal, requireFresh, requireStepUp } from "../../shared/kit/fresh";

const ISSUER = "http://localhost:8787";
const T = Date.parse("2026-06-01T12:00:00.250Z");
const NOW = Math.floor(T / 1000);

/** oc-wire-formats §6.10 read literally: a stamp (unix s) is accepted only if 0 ≤ now − value < window. */
function specAccepts(value: unknown, window: number, nowMs: number): boolean {
  if (typeof value !== "number") return false; // null or absent: there is no value to accept
  const elapsed = Math.floor(nowMs / 1000) - value;
  return 0 <= elapsed && elapsed < window;
}

/** The edges the issue names, and the stamps a broken token could carry. */
const EDGES: { name: string; value: number | null | undefined }[] = [
  { name: "value = now", value: NOW },
  { name: "now − window + 1", value: NOW - 299 },
  { name: "now − window", value: NOW - 300 },
  { name: "one second in the future", value: NOW + 1 },
  { name: "null", value: null },
  { name: "absent", value: undefined },
  { name: "NaN", value: Number.NaN },
  { name: "Infinity", value: Number.POSITIVE_INFINITY },
];

const claims = (stamps: Partial<Pick<SessionClaims, "sudo_at" | "step_up_at">>): SessionClaims => ({
  sub: "acct1",
  did_oc: "did:oc:0123456789abcdef0123456789abcdef",
  jti: "j",
  display_name: null,
  primary_btc: null,
  display_identity: { kind: "did", value: "did:oc:0123456789abcdef0123456789abcdef" },
  step_up_at: null,
  sudo_at: null,
  iss: ISSUER,
  iat: NOW,
  exp: NOW + 3600,
  ...stamps,
});

describe("isSudo / isSteppedUp give auth-core's answer", () => {
  it.each(EDGES)("at the edge: $name", ({ value }) => {
    const expected = specAccepts(value, 300, T);
    expect(isSudo(claims({ sudo_at: value as number | null }), 300, T)).toBe(expected);
    expect(isSteppedUp(claims({ step_up_at: value as number | null }), 300, T)).toBe(expected);
  });

  it("the edges come out as the spec's rule says (fresh only at now and now − window + 1)", () => {
    expect(EDGES.filter(({ value }) => isFresh(value, 300, T)).map((e) => e.name)).toEqual([
      "value = now",
      "now − window + 1",
    ]);
    // Within the second: the rule is in whole seconds, so 999 ms later a stamp of `now` is still age 0.
    expect(isFresh(NOW, 1, NOW * 1000 + 999)).toBe(true);
    expect(isFresh(NOW, 1, NOW * 1000 + 1000)).toBe(false);
  });

  it("for any stamp, window and time (fast-check)", () => {
    const stamp = fc.oneof(
      fc.integer({ min: NOW - 100_000, max: NOW + 100 }),
      fc.double({ min: NOW - 1000, max: NOW + 10, noNaN: true }),
      fc.constantFrom(null, undefined, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    );
    const window = fc.oneof(fc.integer({ min: -5, max: 100_000 }), fc.constantFrom(0, Number.POSITIVE_INFINITY));
    const now = fc.integer({ min: T - 5000, max: T + 5000 });
    fc.assert(
      fc.property(stamp, window, now, (value, max, at) => {
        expect(isFresh(value, max, at)).toBe(specAccepts(value, max, at));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("the gate on real tokens", () => {
  it("lets a token in exactly when the spec's rule accepts its stamp", async () => {
    const key = await loadSigningKey(JSON.stringify(generateSigningJwk()));
    const verifier = createSessionVerifier({
      authOrigin: ISSUER,
      fetch: async () => Response.json({ keys: [key.publicJwk] }),
      now: () => T,
    });
    const gate = requireFresh({ verifier, now: () => T, maxAge: 300 });
    for (const { name, value } of EDGES.filter((e) => e.value === null || Number.isFinite(e.value ?? 0))) {
      const { iss: _, iat: __, exp: ___, ...subject } = claims({ sudo_at: value as number | null });
      const token = await signSessionToken(subject, key, {
        issuer: ISSUER,
        now: T,
        expiresAt: T + 3600_000,
      });
      const decision = await gate({ headers: { cookie: `oc_session=${token}` } });
      expect([name, decision.ok]).toEqual([name, specAccepts(value, 300, T)]);
    }
  });

  it("behind node:http: the core gate and its refusal rendering, no framework", async () => {
    const key = await loadSigningKey(JSON.stringify(generateSigningJwk()));
    const gate = requireStepUp({
      authOrigin: ISSUER,
      fetch: async () => Response.json({ keys: [key.publicJwk] }),
      maxAge: 300,
    });
    const server = http.createServer(async (req, res) => {
      const decision = await gate(req);
      if (!decision.ok) {
        const { status, headers, body } = refusal(decision);
        res.writeHead(status, headers).end(JSON.stringify(body));
        return;
      }
      res.end(JSON.stringify({ ok: true, sub: decision.session.sub }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const now = Date.now();
    const mint = (step_up_at: number | null) => {
      const { iss: _, iat: __, exp: ___, ...subject } = claims({ step_up_at });
      return signSessionToken(subject, key, { issuer: ISSUER, now, expiresAt: now + 3600_000 });
    };
    try {
      const fresh = await fetch(base, { headers: { authorization: `Bearer ${await mint(Math.floor(now / 1000))}` } });
      expect(await fresh.json()).toEqual({ ok: true, sub: "acct1" });
      const stale = await fetch(base, { headers: { cookie: `oc_session=${await mint(null)}` } });
      expect(stale.status).toBe(403);
      expect(stale.headers.get("cache-control")).toBe("no-store");
      expect(await stale.json()).toEqual({
        ok: false,
        reason: "step_up_required",
        detail: "step_up_at must be within the last 300 s (it is null)",
        maxAge: 300,
      });
      const anonymous = await fetch(base);
      expect([anonymous.status, await anonymous.json()]).toEqual([
        401,
        { ok: false, reason: "session_missing", detail: "no oc_session cookie and no bearer token: sign in" },
      ]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

interface AuthCore {
  verifySudoClaim(payload: object, opts: { max_age_secs: number }): boolean;
  verifyStepUpClaim(payload: object, opts: { max_age_secs: number }): boolean;
}
// Not a dependency (never installed by this project): the name is a variable so neither tsc nor Vite resolves it.
const AUTH_CORE = "@orangecheck/auth-core";
const authCore = (await import(/* @vite-ignore */ AUTH_CORE).catch(() => undefined)) as AuthCore | undefined;

describe("auth-core itself, when installed", () => {
  afterEach(() => vi.useRealTimers());

  it.skipIf(!authCore)("verifySudoClaim / verifyStepUpClaim agree with isSudo / isSteppedUp at every edge", () => {
    vi.useFakeTimers({ now: T });
    for (const { value } of EDGES) {
      const payload = { sub: "acct1", did_oc: "did:oc:0", jti: "j", sudo_at: value, step_up_at: value };
      const kit = claims({ sudo_at: value as number | null, step_up_at: value as number | null });
      expect(authCore?.verifySudoClaim(payload, { max_age_secs: 300 })).toBe(isSudo(kit, 300, T));
      expect(authCore?.verifyStepUpClaim(payload, { max_age_secs: 300 })).toBe(isSteppedUp(kit, 300, T));
    }
  });
});
