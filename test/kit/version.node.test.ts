// The kit names itself where it calls the hosts (issue 32, versions): `user-agent: open-oc-kit/<version>` on the
// JWKS read, the stake check, the challenge client and envelope registration, the version being the package's;
// and never in a browser, where the header is the browser's and naming it would cost a preflight.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateSigningJwk } from "../../scripts/dev-keys.mjs";
import { signSessionToken } from "../../shared/auth/session-token";
import { loadSigningKey } from "../../shared/crypto/signing-key";
import { requestChallenge } from "../../shared/kit/challenge/client";
import { createSessionVerifier } from "../../shared/kit/consumer/session-verifier";
import { registerEnvelope } from "../../shared/kit/envelopes/register";
import { requireStake } from "../../shared/kit/stake/gate";
import { KIT_USER_AGENT, KIT_VERSION } from "../../shared/kit/version";

const jwk = generateSigningJwk();
const { d: _d, ...publicJwk } = jwk;
let origin: string;
let server: http.Server;
const agents: Record<string, string | undefined> = {};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    agents[path] = req.headers["user-agent"];
    res.setHeader("content-type", "application/json");
    if (path === "/.well-known/jwks.json") return res.end(JSON.stringify({ keys: [{ ...publicJwk, use: "sig" }] }));
    if (path === "/api/check") return res.end(JSON.stringify({ ok: true, pass: true, sats: 1, days: 1 }));
    res.statusCode = 400;
    res.end(JSON.stringify({ ok: false, reason: "invalid_input" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  for (const key of Object.keys(agents)) delete agents[key];
  delete (globalThis as { document?: unknown }).document;
});

async function sessionHeaders() {
  const key = await loadSigningKey(JSON.stringify(jwk));
  const now = Date.now();
  const token = await signSessionToken(
    {
      sub: "acct1",
      did_oc: "did:oc:0123456789abcdef0123456789abcdef",
      jti: "jti-ua",
      display_name: null,
      primary_btc: "bc1qexample",
      display_identity: { kind: "btc", value: "bc1qexample" },
      step_up_at: null,
      sudo_at: null,
    },
    key,
    { issuer: origin, now, expiresAt: now + 60_000 },
  );
  return new Headers({ authorization: `Bearer ${token}` });
}

describe("the kit's version and User-Agent", () => {
  it("is the package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../packages/kit/package.json", import.meta.url), "utf8"));
    expect(KIT_VERSION).toBe(pkg.version);
    expect(KIT_USER_AGENT).toBe(`open-oc-kit/${pkg.version}`);
  });

  it("names itself on the JWKS read, the stake check, the challenge client and a registration", async () => {
    const verifier = createSessionVerifier({ authOrigin: origin });
    const headers = await sessionHeaders();
    expect((await verifier.verifyRequest(headers)).ok).toBe(true);
    await requireStake({ authOrigin: origin, minSats: 1, minDays: 1, verifier })(new Request(origin, { headers }));
    await requestChallenge({ authOrigin: origin }, { addr: "bc1qexample" });
    await registerEnvelope({ kind: "agent-action" }, { fleet: origin, token: "ock_x", project: "proj_x" });
    expect(agents).toEqual({
      "/.well-known/jwks.json": KIT_USER_AGENT,
      "/api/check": KIT_USER_AGENT,
      "/api/challenge": KIT_USER_AGENT,
      "/api/actions": KIT_USER_AGENT,
    });
  });

  it("leaves the header to the browser on a page", async () => {
    (globalThis as { document?: unknown }).document = {};
    await requestChallenge({ authOrigin: origin }, { addr: "bc1qexample" });
    expect(agents["/api/challenge"]).not.toBe(KIT_USER_AGENT);
  });
});
