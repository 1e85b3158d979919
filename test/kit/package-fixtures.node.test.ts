// @open-oc/kit proven in fresh projects (issue 32, item 3): the packed tarball installed by npm into three projects
// made as people make them (test/fixtures/kit: a Worker from wrangler's TypeScript template, an Express site on
// `tsc --init`'s NodeNext settings, a plain JavaScript project with checkJs), each type-checked by its own tsc with
// zero errors, then run against the local stack (scripts/dev.mjs with a loopback Esplora API and nostr relay): real
// oc_session cookies from BIP-322 sign-ins, real /api/check verdicts, a real signed webhook from the fleet, the
// package's own `open-oc`. The Worker runs in workerd under the repository's wrangler, which a site would have in its
// devDependencies: installed into the fixture it is the same binary and 195 MB more per run.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack } from "../harness/browser-stack.mjs";
import { startEsplora } from "../harness/esplora-server.mjs";
import { startRelay } from "../harness/nostr-relay.mjs";
import { answers, type Background, background, freePort, run, until } from "../helpers/child-processes";
import { packKit, ROOT } from "../helpers/kit-tarball";
import { type StackSession, signInWithBip322 } from "../helpers/stack-signin";

const PORTS = {
  auth: 8877,
  fleet: 8878,
  authInspector: 9307,
  fleetInspector: 9308,
  worker: 8879,
  workerInspector: 9309,
};
const AUTH = `http://localhost:${PORTS.auth}`;
const FLEET = `http://localhost:${PORTS.fleet}`;
const WORKER = `http://127.0.0.1:${PORTS.worker}`;
const FIXTURES = path.join(ROOT, "test", "fixtures", "kit");
const WRANGLER = path.join(ROOT, "node_modules", ".bin", "wrangler");
/** The stake the fixtures' gates ask for (100,000 sats for 30 days) and what the funded key holds. */
const BOND = { sats: 150_000, days: 60 };

type Fixture = "workers" | "node" | "plain";

/** Milliseconds each step took, for the report at the end. */
const timings: Record<string, number> = {};
async function timed<T>(name: string, step: () => Promise<T>): Promise<T> {
  const start = Date.now();
  try {
    return await step();
  } finally {
    timings[name] = Date.now() - start;
  }
}

/** A copy of the fixture beside the tarball its package.json names (file:../open-oc-kit.tgz), installed by npm. */
async function install(work: string, name: Fixture): Promise<string> {
  const dir = path.join(work, name);
  cpSync(path.join(FIXTURES, name), dir, { recursive: true });
  const npm = await timed(`install ${name}`, () =>
    run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: dir }),
  );
  if (npm.code !== 0) throw new Error(`npm install in the ${name} fixture failed:\n${npm.stderr}`);
  return dir;
}

/** The fixture's own TypeScript, as its author runs it. */
const tsc = (dir: string, ...args: string[]) => run(path.join(dir, "node_modules", ".bin", "tsc"), args, { cwd: dir });

/** A request to a fixture, with the oc_session cookie when given; its status and JSON body. */
const ask = async (url: string, cookie?: string, method = "GET") => {
  const headers: Record<string, string> = cookie ? { cookie: `oc_session=${cookie}` } : {};
  // A gate that never answers fails here, not at the test's timeout.
  const res = await fetch(url, { method, headers, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

let work: string;
let stack: Awaited<ReturnType<typeof startStack>> | undefined;
let upstreams: { close(): Promise<void> }[] = [];
const running: Background[] = [];
const dirs = {} as Record<Fixture, string>;
/** Signed in with a key that has no attestation, and with one funded and published on the local chain and relay. */
let member: StackSession;
let unbonded: StackSession;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "oc-kit-fixtures-"));
  const packed = await timed("npm pack", async () => packKit(work));
  cpSync(packed.tarball, path.join(work, "open-oc-kit.tgz"));
  const esplora = await startEsplora();
  const relay = await startRelay();
  upstreams = [esplora, relay];
  // The stack and the three installs at once: the installs are mostly waiting on the disk and npm's cache.
  const [started] = await Promise.all([
    timed("stack start", () =>
      startStack({
        auth: PORTS.auth,
        fleet: PORTS.fleet,
        authInspector: PORTS.authInspector,
        fleetInspector: PORTS.fleetInspector,
        stateDir: ".build/kit-fixtures-state",
        env: { ESPLORA_URL: esplora.url, NOSTR_RELAYS: relay.url },
      }),
    ),
    ...(["workers", "node", "plain"] as const).map(async (name) => {
      dirs[name] = await install(work, name);
    }),
  ]);
  stack = started;
  [member, unbonded] = await Promise.all([signInWithBip322(AUTH), signInWithBip322(AUTH)]);
  // The README's walk-through: attest with the member's key, fund the address (60 days old), publish to the relay.
  const attest = await timed("attest", () =>
    run(
      process.execPath,
      [
        "scripts/attest.mjs",
        ...["--wif", member.wif, "--fund", String(BOND.sats), "--age-days", String(BOND.days), "--publish"],
        ...["--base", AUTH, "--esplora", esplora.url, "--relay", relay.url],
      ],
      { cwd: ROOT },
    ),
  );
  if (attest.code !== 0) throw new Error(`attest failed:\n${attest.stdout}${attest.stderr}`);
}, 300_000);

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await stack?.stop();
  await Promise.all(upstreams.map((u) => u.close()));
  if (work) rmSync(work, { recursive: true, force: true });
  console.log(`kit fixtures, ms: ${JSON.stringify(timings)}`);
}, 60_000);

describe("a Workers project (wrangler's TypeScript template, Hono)", () => {
  it("type-checks with zero errors", async () => {
    const checked = await timed("tsc workers", () => tsc(dirs.workers, "--noEmit", "-p", "tsconfig.json"));
    expect({ code: checked.code, output: checked.stdout + checked.stderr }).toEqual({ code: 0, output: "" });
  });

  it("runs in workerd: ocSession and requireStake answer from the real cookie and a real /api/check", async () => {
    const worker = background(
      WRANGLER,
      [
        ...["dev", "-c", path.join(dirs.workers, "wrangler.toml"), "--ip", "127.0.0.1"],
        ...["--port", String(PORTS.worker), "--inspector-port", String(PORTS.workerInspector)],
        ...["--persist-to", path.join(work, "workers-state"), "--var", `AUTH_ORIGIN:${AUTH}`],
      ],
      {
        cwd: dirs.workers,
        env: {
          ...process.env,
          WRANGLER_SEND_METRICS: "false",
          CLOUDFLARE_CF_FETCH_ENABLED: "false",
          // Its own dev registry, so it never binds to the stack's workers (or a developer's).
          WRANGLER_REGISTRY_PATH: path.join(work, "registry"),
        },
      },
    );
    running.push(worker);
    await timed("wrangler dev start", () =>
      until("the fixture Worker answering", () => answers(`${WORKER}/account/me`), worker),
    );

    expect(await ask(`${WORKER}/account/me`, member.cookie)).toEqual({
      status: 200,
      body: { did_oc: member.didOc, primary_btc: member.address },
    });
    expect(await ask(`${WORKER}/account/me`)).toMatchObject({
      status: 401,
      body: { ok: false, reason: "session_missing" },
    });
    const passed = await ask(`${WORKER}/members/`, member.cookie);
    expect(passed, worker.output()).toEqual({ status: 200, body: { ok: true, did_oc: member.didOc, sats: BOND.sats } });
    const refused = await ask(`${WORKER}/members/`, unbonded.cookie);
    expect(refused).toMatchObject({ status: 403, body: { ok: false, reason: "stake_insufficient" } });
    expect(refused.body.detail).toContain("not_found");
    expect(await ask(`${WORKER}/members/`)).toMatchObject({ status: 401, body: { reason: "session_missing" } });
  }, 120_000);
});

describe("a Node project (NodeNext, strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess; Express)", () => {
  it("type-checks with zero errors", async () => {
    const checked = await timed("tsc node", () => tsc(dirs.node, "--noEmit", "-p", "tsconfig.json"));
    expect({ code: checked.code, output: checked.stdout + checked.stderr }).toEqual({ code: 0, output: "" });
  });

  it("compiled by tsc and run by node: session, stake and freshness gates, and a real webhook from the fleet", async () => {
    const built = await timed("tsc build node", () => tsc(dirs.node, "-p", "tsconfig.json"));
    expect(built.code, built.stdout).toBe(0);
    // A project and an endpoint for the fixture's /webhooks, registered before it starts (it is given the secret).
    const browser = { cookie: `oc_session=${member.cookie}`, "sec-fetch-site": "same-origin" };
    const post = async (route: string, body: unknown) => {
      const res = await fetch(`${FLEET}${route}`, {
        method: "POST",
        headers: { ...browser, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { project?: { id: string }; secret?: string } };
    };
    const project = await post("/api/projects", { name: "kit fixture" });
    expect(project.status).toBe(201);
    const projectId = project.body.project?.id ?? "";
    const token = await post("/api/tokens", { project_id: projectId, name: "fixture" });
    const port = await freePort();
    const endpoint = await post("/api/webhooks/endpoints", {
      project_id: projectId,
      url: `http://127.0.0.1:${port}/webhooks`,
      event_types: ["delegation.registered"],
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);

    const site = background(process.execPath, ["dist/server.js"], {
      cwd: dirs.node,
      env: { ...process.env, PORT: String(port), AUTH_ORIGIN: AUTH, WEBHOOK_SECRET: endpoint.body.secret ?? "" },
    });
    running.push(site);
    await until("the Express site listening", () => site.output().includes('"listening"'), site);
    const base = `http://127.0.0.1:${port}`;
    expect(await ask(`${base}/me`, member.cookie)).toEqual({
      status: 200,
      body: { did_oc: member.didOc, primary_btc: member.address },
    });
    expect(await ask(`${base}/me`)).toMatchObject({ status: 401, body: { ok: false, reason: "session_missing" } });
    expect(await ask(`${base}/members`, member.cookie)).toEqual({ status: 200, body: { ok: true, sats: BOND.sats } });
    expect(await ask(`${base}/members`, unbonded.cookie)).toMatchObject({
      status: 403,
      body: { reason: "stake_insufficient" },
    });
    expect(await ask(`${base}/account/delete`, member.cookie, "POST")).toEqual({
      status: 200,
      body: { ok: true, did_oc: member.didOc },
    });
    expect(await ask(`${base}/account/delete`, undefined, "POST")).toMatchObject({
      status: 401,
      body: { reason: "session_missing" },
    });

    // The package's own `open-oc`: a new agent key, then a delegation registered with the fleet, which signs and
    // delivers delegation.registered to the fixture; the fixture's verifyWebhook accepts it.
    const oc = (...args: string[]) =>
      run(path.join(dirs.node, "node_modules", ".bin", "open-oc"), args, { cwd: dirs.node });
    const help = await oc("--help");
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining("oc key new")]);
    const monitorHelp = await oc("log", "monitor", "--help");
    expect([monitorHelp.code, monitorHelp.stdout]).toEqual([0, expect.stringContaining("oc log monitor")]);
    const agent = await oc("key", "new");
    expect(agent.code, agent.stderr).toBe(0);
    const delegate = await oc(
      ...["delegate", "--wif", member.wif, "--agent", JSON.parse(agent.stdout).address],
      ...["--scope", "stamp:sign(mime=text/markdown)", "--register", "--fleet", FLEET],
      ...["--token", token.body.secret ?? "", "--project", projectId],
    );
    expect(delegate.code, delegate.stderr).toBe(0);
    const delegationId = JSON.parse(delegate.stdout).id as string;
    await timed("webhook delivery", () =>
      until("a verified delivery", () => site.output().includes('"ok":true,"eventType"'), site, 30_000),
    );
    const deliveries = site
      .output()
      .split("\n")
      .filter((line) => line.startsWith('{"webhook"'))
      .map((line) => JSON.parse(line).webhook);
    expect(deliveries).toEqual([
      { ok: true, eventType: "delegation.registered", kind: "agent-delegation", envelopeId: delegationId, attempt: 1 },
    ]);
  }, 120_000);
});

describe("a plain JavaScript project (ES modules, checkJs)", () => {
  it("type-checks with zero errors against the package's declarations", async () => {
    const checked = await timed("tsc plain", () => tsc(dirs.plain, "-p", "jsconfig.json"));
    expect({ code: checked.code, output: checked.stdout + checked.stderr }).toEqual({ code: 0, output: "" });
  });

  it("runs: a challenge signed by the kit's key verifies, the real cookie verifies, an altered one does not", async () => {
    const ran = await run(process.execPath, ["src/check-session.js"], {
      cwd: dirs.plain,
      env: { ...process.env, AUTH_ORIGIN: AUTH, OC_SESSION: unbonded.cookie },
    });
    expect(ran.code, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout);
    expect(out.challenge).toEqual({ ok: true, address: out.expected });
    expect(out.session).toEqual({ ok: true, did_oc: unbonded.didOc });
    expect(out.altered).toEqual({ ok: false, reason: "session_bad_signature" });
  }, 30_000);
});
