// The consumer verifier against the running auth host's JWKS (issue 8, "tests that must exist"): the whole stack
// started by scripts/dev.mjs on the kit's ports, a real BIP-322 sign-in, the real cookie verified with one JWKS
// read; then a key rotation (restart with a new AUTH_SIGNING_KEY, the old public key in AUTH_PREVIOUS_KEYS): old
// tokens still verify without a read, a new-kid token costs exactly one refetch; then a JWKS outage (stack
// stopped): cached keys keep verifying, past their TTL too, and a fresh verifier fails with session_keys_unavailable.
// Two stack starts in all.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateSigningJwk } from "../../scripts/dev-keys.mjs";
import { createSessionVerifier, type SessionVerifier } from "../../shared/kit/consumer/session-verifier";
import { freshState } from "../harness/browser-stack.mjs";
import { oc } from "../helpers/oc-cli";
import { signInWithBip322 } from "../helpers/stack-signin";

const ROOT = path.join(import.meta.dirname, "../..");
const AUTH = "http://localhost:8817";
const FLEET = "http://localhost:8818";
const STATE_DIR = ".build/kit-state";
const JWKS_URL = `${AUTH}/.well-known/jwks.json`;

let running: { stop(): Promise<void> } | undefined;

/** Starts scripts/dev.mjs with extra environment (worker variables) and waits for both workers' health. */
async function startStack(extra: Record<string, string>): Promise<{ stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ["scripts/dev.mjs"], {
    cwd: ROOT,
    detached: true,
    stdio: "ignore",
    env: {
      ...process.env,
      PORT_AUTH: "8817",
      PORT_FLEET: "8818",
      INSPECTOR_PORT_AUTH: "9257",
      INSPECTOR_PORT_FLEET: "9258",
      STATE_DIR,
      AUTH_ORIGIN: AUTH,
      FLEET_ORIGIN: FLEET,
      ...extra,
    },
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(child.pid, "SIGTERM");
      } catch {}
      await exited;
    }
  };
  const until = Date.now() + 120_000;
  for (;;) {
    const health = (base: string) =>
      fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
    if ((await health(AUTH)) && (await health(FLEET))) return { stop };
    if (Date.now() > until || child.exitCode !== null) {
      await stop();
      throw new Error("the stack did not start");
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

const signIn = () => signInWithBip322(AUTH);

const kidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString()) as { kid: string }).kid;

afterAll(async () => {
  await running?.stop();
});

describe("consumer verifier against the running auth host", () => {
  const oldKey = generateSigningJwk();
  const newKey = generateSigningJwk();
  const { d: _d, ...oldPublic } = oldKey;
  let reads = 0;
  const clock = { offset: 0 };
  const countingFetch: typeof fetch = (input, init) => {
    reads += 1;
    return fetch(input, init);
  };
  let verifier: SessionVerifier;
  let first: { cookie: string; didOc: string; wif: string };
  let second: { cookie: string; didOc: string; wif: string };

  it("verifies the real cookie of a BIP-322 sign-in with one JWKS read for many requests", async () => {
    freshState(STATE_DIR);
    running = await startStack({ AUTH_SIGNING_KEY: JSON.stringify(oldKey) });
    first = await signIn();
    expect(kidOf(first.cookie)).toBe(oldKey.kid);
    verifier = createSessionVerifier({
      authOrigin: AUTH,
      jwksUrl: JWKS_URL,
      fetch: countingFetch,
      cooldownMs: 1000,
      now: () => Date.now() + clock.offset,
    });
    for (let i = 0; i < 25; i++) {
      const result = await verifier.verifyRequest({ cookie: `theme=dark; oc_session=${first.cookie}` });
      expect(result.ok && result.claims.did_oc).toBe(first.didOc);
    }
    const result = await verifier.verify(first.cookie);
    expect(result).toMatchObject({ ok: true, claims: { iss: AUTH, did_oc: first.didOc } });
    expect(reads).toBe(1);
  }, 180_000);

  it("after a key rotation, old tokens verify from the cache and a new-kid token costs exactly one refetch", async () => {
    await running?.stop();
    running = await startStack({
      AUTH_SIGNING_KEY: JSON.stringify(newKey),
      AUTH_PREVIOUS_KEYS: JSON.stringify([oldPublic]),
    });
    const jwks = (await (await fetch(JWKS_URL)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKey.kid, newKey.kid]));
    const readsBefore = reads - 0;
    second = await signIn();
    expect(kidOf(second.cookie)).toBe(newKey.kid);
    expect((await verifier.verify(first.cookie)).ok).toBe(true);
    expect(reads).toBe(readsBefore);
    for (let i = 0; i < 5; i++) {
      const result = await verifier.verify(second.cookie);
      expect(result.ok && result.claims.did_oc).toBe(second.didOc);
    }
    expect(reads).toBe(readsBefore + 1);
    // The host agrees: the old token still opens /me (its row is live and its key is a previous key).
    const me = await fetch(`${AUTH}/api/auth/me`, { headers: { cookie: `oc_session=${first.cookie}` } });
    expect(me.status).toBe(200);
  }, 180_000);

  it("the oc CLI registers envelopes with the running fleet and verifies the exported bundle with the live JWKS", async () => {
    // The signed-in account (new key) owns a project; a bearer token registers what the CLI signs.
    const browser = { cookie: `oc_session=${second.cookie}`, "sec-fetch-site": "same-origin" };
    const post = async (route: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(`${FLEET}${route}`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { project?: { id: string }; secret?: string } };
    };
    const project = await post("/api/projects", { name: "kit e2e" }, browser);
    expect(project.status).toBe(201);
    const projectId = project.body.project?.id ?? "";
    const token = await post("/api/tokens", { project_id: projectId, name: "cli" }, browser);
    const secret = token.body.secret ?? "";
    const agent = JSON.parse((await oc("key", "new")).stdout) as { wif: string; address: string };
    const flags = ["--register", "--fleet", FLEET, "--token", secret, "--project", projectId];
    const scope = "stamp:sign(mime=text/markdown)";
    const delegate = await oc("delegate", "--wif", second.wif, "--agent", agent.address, "--scope", scope, ...flags);
    expect(delegate.code, delegate.stderr).toBe(0);
    expect(delegate.stderr).toContain("(201)");
    const delegationId = JSON.parse(delegate.stdout).id as string;
    const act = await oc(
      "act",
      "--wif",
      agent.wif,
      "--delegation",
      delegationId,
      "--scope",
      scope,
      "--content",
      "hi",
      ...flags,
    );
    expect(act.code, act.stderr).toBe(0);
    const dir = mkdtempSync(path.join(tmpdir(), "oc-stack-"));
    writeFileSync(path.join(dir, "delegation.json"), delegate.stdout);
    const dup = await oc("register", path.join(dir, "delegation.json"), ...flags.slice(1));
    expect([dup.code, dup.stderr]).toEqual([1, expect.stringContaining("already_registered")]);
    const res = await fetch(`${FLEET}/api/audit/export?project_id=${projectId}&format=ndjson`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(res.status).toBe(200);
    const file = path.join(dir, "bundle.ndjson");
    writeFileSync(file, await res.text());
    const verified = await oc("bundle", "verify", file, "--jwks", JWKS_URL);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain("2 envelopes re-verified");
    // The same project against its transparency log: a CSV export, the leaf order and the signed checkpoint.
    const bearer = { authorization: `Bearer ${secret}` };
    const fetched = async (route: string, name: string) => {
      const out = path.join(dir, name);
      writeFileSync(out, await (await fetch(`${FLEET}${route}`, { headers: bearer })).text());
      return out;
    };
    // The project's log integrator signs a checkpoint within a second of the registrations (docs/log.md).
    await expect
      .poll(
        async () =>
          (
            await (await fetch(`${FLEET}/api/log/checkpoint?project_id=${projectId}`, { headers: bearer })).text()
          ).split("\n")[1],
        { timeout: 15_000, interval: 250 },
      )
      .toBe("2");
    const csv = await fetched(`/api/audit/export?project_id=${projectId}&format=csv`, "bundle.csv");
    const leaves = await fetched(`/api/log/leaves?project_id=${projectId}`, "leaves.json");
    const checkpoint = await fetched(`/api/log/checkpoint?project_id=${projectId}`, "checkpoint.txt");
    const logged = await oc(
      "bundle",
      "verify",
      csv,
      "--jwks",
      JWKS_URL,
      "--checkpoint",
      checkpoint,
      "--leaves",
      leaves,
      "--fleet",
      FLEET,
    );
    expect(logged.code, logged.stderr).toBe(0);
    expect(logged.stdout).toContain("matches 1 signed checkpoint(s) of sizes 2");
  }, 120_000);

  it("through a JWKS outage, cached keys keep verifying; a fresh verifier fails with jwks_unavailable", async () => {
    await running?.stop();
    running = undefined;
    const readsBefore = reads;
    expect((await verifier.verify(first.cookie)).ok).toBe(true);
    expect((await verifier.verify(second.cookie)).ok).toBe(true);
    expect(reads).toBe(readsBefore);
    // Past the cache TTL the verifier tries the host (refused) and keeps the stale keys.
    clock.offset = 6 * 60 * 1000;
    expect((await verifier.verify(first.cookie)).ok).toBe(true);
    expect((await verifier.verify(second.cookie)).ok).toBe(true);
    expect(reads).toBe(readsBefore + 1);
    const fresh = createSessionVerifier({ authOrigin: AUTH, jwksUrl: JWKS_URL });
    expect(await fresh.verify(second.cookie)).toEqual({ ok: false, reason: "session_keys_unavailable" });
    expect(await fresh.verifyRequest({ cookie: `oc_session=${first.cookie}` })).toEqual({
      ok: false,
      reason: "session_keys_unavailable",
    });
  }, 60_000);
});
