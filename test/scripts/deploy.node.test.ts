// `npm run deploy` against a recording stand-in for wrangler on PATH (test/harness/fake-wrangler.mjs), as an
// operator runs it (issue 28): the order of its steps, that a second run changes nothing but code, that missing
// credentials or a missing setting stop it before anything is created, and that a run failing half-way leaves
// nothing a re-run cannot finish (the audit key's two halves always match). What only a real account shows (DNS for
// custom domains, the first deploy's propagation, wrangler's real answers) is said in docs/decisions.md.
import { execFile, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { smokeCheck } from "../../scripts/deploy/smoke.mjs";

const root = path.join(import.meta.dirname, "../..");
const execute = promisify(execFile);

interface Stand {
  dir: string;
  env: NodeJS.ProcessEnv;
  state(): {
    databases: { name: string; uuid: string }[];
    namespaces: { title: string; id: string }[];
    workers: Record<string, { secrets: Record<string, string>; deployments: number; config: Record<string, unknown> }>;
    migrations: string[];
  };
  calls(): string[][];
}

/** A temp folder with the stand-in as `wrangler` first on PATH, and a configuration for staging on workers.dev. */
function stand(config: Record<string, unknown> = {}): Stand {
  const dir = mkdtempSync(path.join(tmpdir(), "oc-deploy-"));
  const bin = path.join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  const shim = path.join(bin, "wrangler");
  writeFileSync(
    shim,
    `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, "test/harness/fake-wrangler.mjs")}" "$@"\n`,
  );
  chmodSync(shim, 0o755);
  writeFileSync(
    path.join(dir, "deploy.config.json"),
    JSON.stringify({
      environments: { staging: { workers_dev_subdomain: "acme" } },
      verify: { nostr_relays: ["wss://relay.example"] },
      ...config,
    }),
  );
  const stateFile = path.join(dir, "state.json");
  const logFile = path.join(dir, "calls.log");
  return {
    dir,
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      FAKE_WRANGLER_STATE: stateFile,
      FAKE_WRANGLER_LOG: logFile,
    },
    state: () => JSON.parse(readFileSync(stateFile, "utf8")),
    calls: () =>
      existsSync(logFile)
        ? readFileSync(logFile, "utf8")
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l) as string[])
        : [],
  };
}

async function deploy(s: Stand, extraEnv: NodeJS.ProcessEnv = {}, flags: string[] = []) {
  const args = [
    "scripts/deploy.mjs",
    "--env",
    "staging",
    "--no-smoke",
    "--config",
    path.join(s.dir, "deploy.config.json"),
    ...flags,
  ];
  try {
    const { stdout, stderr } = await execute(process.execPath, args, { cwd: root, env: { ...s.env, ...extraEnv } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** What a call did, in a word: the first two or three arguments, with the worker a deploy names. */
function step(call: string[]): string {
  if (call[0] === "deploy") {
    const config = call[call.indexOf("-c") + 1] ?? "";
    return `deploy ${path.basename(config, ".json")}${call.includes("--secrets-file") ? " +secrets" : ""}`;
  }
  if (call[0] === "secret" || call[0] === "versions") return `${call[0]} list ${call[call.indexOf("--name") + 1]}`;
  return call.slice(0, call[0] === "kv" ? 3 : 2).join(" ");
}

const publicX = (jwk: string) => (JSON.parse(jwk) as { x: string }).x;
/** stderr's lines: the first `error: …`, the others indented. */
const linesOf = (stderr: string) => stderr.trimEnd().split("\n");

describe("npm run deploy", () => {
  it("provisions, migrates and deploys in dependency order; a second run changes nothing but code", async () => {
    const s = stand();
    const first = await deploy(s);
    expect(first.code, first.stderr).toBe(0);
    expect(s.calls().map(step)).toEqual([
      "whoami",
      "versions list verify-staging",
      "versions list auth-staging",
      "versions list fleet-staging",
      "d1 list",
      "d1 create",
      "d1 list",
      "kv namespace list",
      "kv namespace create",
      "kv namespace list",
      "d1 migrations",
      "secret list verify-staging",
      "secret list auth-staging",
      "secret list fleet-staging",
      "deploy verify",
      "deploy auth +secrets",
      "deploy fleet +secrets",
    ]);
    const state = s.state();
    expect(state.databases.map((d) => d.name)).toEqual(["oc-db-staging"]);
    expect(state.namespaces.map((n) => n.title)).toEqual(["oc-kv-staging"]);
    const { auth, fleet } = { auth: state.workers["auth-staging"], fleet: state.workers["fleet-staging"] };
    expect(Object.keys(auth?.secrets ?? {}).sort()).toEqual([
      "AUTH_SIGNING_KEY",
      "EMAIL_CODE_KEY",
      "ID_TOKEN_SIGNING_KEY",
      "PUBLISHED_KEYS",
    ]);
    expect(Object.keys(fleet?.secrets ?? {}).sort()).toEqual([
      "CRON_SECRET",
      "FLEET_SIGNING_KEY",
      "WEBHOOK_MASTER_KEY",
    ]);
    // The audit key's public half is what auth publishes.
    const published = JSON.parse(auth?.secrets.PUBLISHED_KEYS ?? "[]") as { x: string }[];
    expect(published.map((k) => k.x)).toEqual([publicX(fleet?.secrets.FLEET_SIGNING_KEY ?? "{}")]);
    // The configuration carries this environment's names, ids and bindings; no secret is in it or on the screen.
    const config = auth?.config as {
      name: string;
      services: { service: string }[];
      d1_databases: { database_id: string }[];
      vars: Record<string, string>;
    };
    expect(config.name).toBe("auth-staging");
    expect(config.services).toEqual([{ binding: "VERIFY", service: "verify-staging" }]);
    expect(config.d1_databases[0]?.database_id).toBe(state.databases[0]?.uuid);
    expect(config.vars.AUTH_ORIGIN).toBe("https://auth-staging.acme.workers.dev");
    const fleetConfig = fleet?.config as { triggers: { crons: string[] }; services: { service: string }[] };
    expect(fleetConfig.triggers.crons).toEqual(["*/5 * * * *"]);
    expect(fleetConfig.services).toEqual([{ binding: "AUTH", service: "auth-staging" }]);
    const everySecret = [...Object.values(auth?.secrets ?? {}), ...Object.values(fleet?.secrets ?? {})];
    for (const secret of everySecret) expect(first.stdout + first.stderr).not.toContain(secret);
    expect(readdirSync(path.join(root, ".deploy/staging")).filter((f) => f.startsWith("secrets-"))).toEqual([]);
    expect(first.stdout).toContain("deployed staging: auth https://auth-staging.acme.workers.dev");

    const before = s.calls().length;
    const second = await deploy(s);
    expect(second.code, second.stderr).toBe(0);
    expect(s.calls().slice(before).map(step)).toEqual([
      "whoami",
      "versions list verify-staging",
      "versions list auth-staging",
      "versions list fleet-staging",
      "d1 list",
      "kv namespace list",
      "d1 migrations",
      "secret list verify-staging",
      "secret list auth-staging",
      "secret list fleet-staging",
      "deploy verify",
      "deploy auth",
      "deploy fleet",
    ]);
    expect(s.state().workers["auth-staging"]?.secrets).toEqual(auth?.secrets);
  }, 120_000);

  it("registry_database own: a second database, migrated too, that the fleet's DB and auth's REGISTRY_DB name", async () => {
    const s = stand({ registry_database: "own" });
    const first = await deploy(s);
    expect(first.code, first.stderr).toBe(0);
    const state = s.state();
    expect(state.databases.map((d) => d.name)).toEqual(["oc-db-staging", "oc-registry-staging"]);
    expect(state.migrations).toEqual(["oc-db-staging", "oc-registry-staging"]);
    const uuid = (name: string) => state.databases.find((d) => d.name === name)?.uuid;
    const bindings = (worker: string) => {
      const config = state.workers[worker]?.config as { d1_databases?: { binding: string; database_id: string }[] };
      return Object.fromEntries((config?.d1_databases ?? []).map((d) => [d.binding, d.database_id]));
    };
    expect(bindings("fleet-staging")).toEqual({ DB: uuid("oc-registry-staging"), AUTH_DB: uuid("oc-db-staging") });
    expect(bindings("auth-staging")).toEqual({ DB: uuid("oc-db-staging"), REGISTRY_DB: uuid("oc-registry-staging") });
    // A second run finds both by name and creates nothing.
    const before = s.calls().length;
    expect((await deploy(s)).code).toBe(0);
    expect(s.calls().slice(before).map(step)).not.toContain("d1 create");
  }, 120_000);

  it("without Cloudflare credentials: one line, exit non-zero, nothing created", async () => {
    const s = stand();
    const res = await deploy(s, { FAKE_WRANGLER_SIGNED_OUT: "1" });
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^error: no Cloudflare credentials/)]);
    expect(s.calls().map(step)).toEqual(["whoami"]);
  });

  it("a setting the configuration asks for but the environment lacks: one line, before any call", async () => {
    const s = stand({ providers: { github: true } });
    const res = await deploy(s, { GITHUB_CLIENT_ID: "", GITHUB_CLIENT_SECRET: "" });
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toBe(
      "error: GITHUB_CLIENT_ID is not set in the environment (the configuration's providers.github needs it)",
    );
    expect(s.calls()).toEqual([]);
  });

  it("a configuration error is one line naming the setting", async () => {
    const s = stand({ environments: { staging: { auth_host: "auth.example.com" } } });
    const res = await deploy(s);
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toMatch(/^error: .*environments\.staging: give both auth_host and fleet_host/);
    expect(s.calls()).toEqual([]);
  });

  it("a failure half-way leaves nothing a re-run cannot finish: the audit key's halves still match", async () => {
    const s = stand();
    const failed = await deploy(s, { FAKE_WRANGLER_FAIL: "fleet.json" });
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/^error: deploying the worker fleet-staging failed/);
    expect(s.state().workers["fleet-staging"]).toBeUndefined();
    expect(s.state().workers["auth-staging"]?.secrets.PUBLISHED_KEYS).toBeDefined();
    const again = await deploy(s);
    expect(again.code, again.stderr).toBe(0);
    const { workers } = s.state();
    const published = JSON.parse(workers["auth-staging"]?.secrets.PUBLISHED_KEYS ?? "[]") as { x: string }[];
    expect(published.map((k) => k.x)).toEqual([publicX(workers["fleet-staging"]?.secrets.FLEET_SIGNING_KEY ?? "{}")]);
    // The session key made by the first run is kept: sessions signed with it stay valid.
    expect(Object.keys(workers["auth-staging"]?.secrets ?? {})).toContain("AUTH_SIGNING_KEY");
  }, 120_000);

  it("answers --help, and refuses an unknown environment in one line", async () => {
    const help = await execute(process.execPath, ["scripts/deploy.mjs", "--help"], { cwd: root });
    expect(help.stdout).toContain("npm run deploy -- --dry-run");
    const s = stand();
    const res = await execute(process.execPath, ["scripts/deploy.mjs", "--env", "prod"], {
      cwd: root,
      env: s.env,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(res).toMatchObject({ code: 2, stderr: "error: unknown environment prod; use production or staging\n" });
  });
});

describe("the deploy's failures say why (issue 45)", () => {
  it("a deploy step: wrangler's reason and hint, the request, and the worker's name", async () => {
    const s = stand();
    // The auth worker's upload (its migrations name the same configuration, after `--remote`).
    const upload = `deploy -c ${path.join(root, ".deploy/staging/auth.json")}`;
    const res = await deploy(s, { FAKE_WRANGLER_FAIL: upload, CLOUDFLARE_API_TOKEN: "test-token" });
    expect(res.code).not.toBe(0);
    expect(linesOf(res.stderr)).toEqual([
      "error: deploying the worker auth-staging failed (wrangler deploy): Authentication error [code: 10000]",
      expect.stringMatching(
        /^ {2}A request to the Cloudflare API \(\/accounts\/\w+\/workers\/scripts\/auth-staging\) failed\.$/,
      ),
      "  hint: It looks like you are authenticating Wrangler via a custom API token set in an environment variable. " +
        "Please ensure it has the correct permissions for this operation.",
    ]);
  }, 120_000);

  it("a migration step: the reason and the database's name", async () => {
    const s = stand();
    const res = await deploy(s, { FAKE_WRANGLER_FAIL: "migrations apply", CLOUDFLARE_API_TOKEN: "" });
    expect(res.code).not.toBe(0);
    const uuid = s.state().databases.find((d) => d.name === "oc-db-staging")?.uuid;
    expect(linesOf(res.stderr)).toEqual([
      "error: migrating the database oc-db-staging failed (wrangler d1 migrations apply): Authentication error [code: 10000]",
      expect.stringContaining(`/d1/database/${uuid}/query) failed.`),
    ]);
  }, 120_000);

  it("credentials that reach two accounts: wrangler's hint to set CLOUDFLARE_ACCOUNT_ID", async () => {
    const s = stand();
    const res = await deploy(s, { FAKE_WRANGLER_ACCOUNTS: "2", CLOUDFLARE_ACCOUNT_ID: "" });
    expect(res.code).not.toBe(0);
    expect(linesOf(res.stderr)).toEqual([
      "error: looking up the worker verify-staging failed (wrangler versions list): More than one account available " +
        "but unable to select one in non-interactive mode.",
      "  hint: Please set the appropriate `account_id` in your Wrangler configuration file or assign it to the " +
        "`CLOUDFLARE_ACCOUNT_ID` environment variable.",
    ]);
    expect(s.calls().map(step)).toEqual(["whoami", "versions list verify-staging"]);
    const chosen = await deploy(s, {
      FAKE_WRANGLER_ACCOUNTS: "2",
      CLOUDFLARE_ACCOUNT_ID: "fedcba9876543210fedcba9876543210",
    });
    expect(chosen.code, chosen.stderr).toBe(0);
  }, 120_000);
});

describe("a worker of the same name that the deploy did not make (issue 45)", () => {
  /** A stand whose account already has a worker `name`, deployed by someone else (no version tagged oc-deploy). */
  function standWith(name: string): Stand {
    const s = stand();
    const versions = [{ id: "v1", number: 1, annotations: { "workers/triggered_by": "upload" } }];
    writeFileSync(
      s.env.FAKE_WRANGLER_STATE ?? "",
      JSON.stringify({
        databases: [],
        namespaces: [],
        migrations: [],
        failed: false,
        workers: { [name]: { secrets: {}, deployments: 1, versions } },
      }),
    );
    return s;
  }

  it("stops before creating anything, in one line naming it; --replace NAME replaces it, and it is ours after", async () => {
    const s = standWith("auth-staging");
    const refused = await deploy(s);
    expect(refused.code).not.toBe(0);
    expect(linesOf(refused.stderr)).toEqual([
      expect.stringMatching(
        /^error: a worker named auth-staging already exists on this Cloudflare account and was not deployed by npm run deploy: .*--replace auth-staging/,
      ),
    ]);
    expect(s.calls().map(step)).toEqual([
      "whoami",
      "versions list verify-staging",
      "versions list auth-staging",
      "versions list fleet-staging",
    ]);
    // Naming another worker does not let this one be replaced.
    expect((await deploy(s, {}, ["--replace", "fleet-staging"])).code).not.toBe(0);
    const replaced = await deploy(s, {}, ["--replace", "auth-staging"]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(s.state().workers["auth-staging"]?.deployments).toBe(2);
    // Its newest version carries the deploy's tag: the next run needs no flag.
    const again = await deploy(s);
    expect(again.code, again.stderr).toBe(0);
  }, 120_000);

  it("--yes replaces any such worker", async () => {
    const s = standWith("verify-staging");
    const res = await deploy(s, {}, ["--yes"]);
    expect(res.code, res.stderr).toBe(0);
  }, 120_000);
});

/** True while the process `pid` exists. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `check` holds (every 50 ms), or fails after `ms`. */
async function until(check: () => boolean, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the deploy's secret files (review 3, item 12)", () => {
  it("SIGINT while a secrets file is on disk: the file, its private folder and wrangler are gone, exit 130", async () => {
    const s = stand();
    const tmp = path.join(s.dir, "tmp");
    mkdirSync(tmp);
    const args = ["scripts/deploy.mjs", "--env", "staging", "--no-smoke", "--config", `${s.dir}/deploy.config.json`];
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...s.env, TMPDIR: tmp, FAKE_WRANGLER_BLOCK: "--secrets-file" },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    const blockedFile = `${s.env.FAKE_WRANGLER_LOG}.blocked`;
    let wranglerPid = 0;
    try {
      await until(() => existsSync(blockedFile) && readFileSync(blockedFile, "utf8") !== "", "the blocked deploy");
      wranglerPid = Number(readFileSync(blockedFile, "utf8"));
      const call = s.calls().find((c) => c.includes("--secrets-file")) ?? [];
      const file = call[call.indexOf("--secrets-file") + 1] ?? "";
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // Not in the repository: in a private folder of its own under the temporary directory.
      expect(path.dirname(path.dirname(file))).toBe(tmp);
      expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      child.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(existsSync(file)).toBe(false);
      expect(readdirSync(tmp)).toEqual([]);
      await until(() => !running(wranglerPid), "the interrupted wrangler to end", 10_000);
    } finally {
      child.kill("SIGKILL");
      if (wranglerPid && running(wranglerPid)) process.kill(wranglerPid, "SIGKILL");
    }
  }, 120_000);

  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    it(`${signal}: the private folder is removed too, exit ${code}`, async () => {
      const tmp = mkdtempSync(path.join(tmpdir(), "oc-deploy-signal-"));
      const script = `import { openSecretDir } from ${JSON.stringify(path.join(root, "scripts/deploy/secret-dir.mjs"))};
        const dir = openSecretDir({ tmp: ${JSON.stringify(tmp)} });
        console.log(dir.write("secrets-x.json", "{}"));
        setTimeout(() => undefined, 60_000);`;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
      try {
        const file = await new Promise<string>((resolve) =>
          child.stdout.once("data", (d) => resolve(String(d).trim())),
        );
        expect(existsSync(file)).toBe(true);
        child.kill(signal);
        expect(await exited).toBe(code);
        expect(readdirSync(tmp)).toEqual([]);
      } finally {
        child.kill("SIGKILL");
      }
    });
  }

  it("a start removes what interrupted runs left: stale private folders and old .deploy/<env>/secrets-*.json", async () => {
    const s = stand();
    const tmp = path.join(s.dir, "tmp");
    // A folder of a deploy that has ended (its process id is free), one of a deploy still running (this one's).
    const ended = spawn(process.execPath, ["-e", ""]);
    const endedPid = await new Promise<number>((resolve) => ended.on("exit", () => resolve(ended.pid ?? 0)));
    const stale = path.join(tmp, `oc-deploy-secrets-${endedPid}-abc123`);
    const live = path.join(tmp, `oc-deploy-secrets-${process.pid}-def456`);
    for (const dir of [stale, live]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "secrets-auth-staging.json"), "{}", { mode: 0o600 });
    }
    const old = path.join(root, ".deploy/staging/secrets-auth-staging.json");
    mkdirSync(path.dirname(old), { recursive: true });
    writeFileSync(old, "{}", { mode: 0o600 });
    const res = await deploy(s, { TMPDIR: tmp, FAKE_WRANGLER_SIGNED_OUT: "1" });
    expect(res.code).not.toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});

describe("the smoke check", () => {
  it("passes when both hosts answer; names the URL that does not", async () => {
    let audit = true;
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url?.endsWith("/api/auth/jwks")) {
        const keys = [{ oc_use: "session" }, ...(audit ? [{ oc_use: "audit" }] : [])];
        return res.end(JSON.stringify({ keys }));
      }
      if (req.url?.endsWith("/api/openapi")) return res.end(JSON.stringify({ openapi: "3.1.0" }));
      res.end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const origin = `http://127.0.0.1:${port}`;
    const said: string[] = [];
    await smokeCheck({ auth: origin, fleet: origin }, { say: (line: string) => said.push(line), waitMs: 0 });
    expect(said).toHaveLength(5);
    audit = false;
    await expect(smokeCheck({ auth: origin, fleet: origin }, { say: () => undefined, waitMs: 0 })).rejects.toThrow(
      `smoke check ${origin}/api/auth/jwks: no audit key in the JWKS (PUBLISHED_KEYS)`,
    );
    server.close();
  });
});
