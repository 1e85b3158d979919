// Serves built bundles in workerd through wrangler's own miniflare (the version wrangler 4.86 pins, driving the
// workerd it pins): local D1, KV, Durable Objects and Cache, no `wrangler dev` in the path. Each worker gets its
// own loopback socket straight into the worker (no miniflare entry proxy in front), the way `workerd serve` would.
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig, unstable_splitSqlQuery } from "wrangler";
import { generateSigningJwk } from "../../scripts/dev-keys.mjs";
import { ROOT } from "./build.mjs";
import { INSPECTOR_PORT } from "./profile.mjs";

const require = createRequire(path.join(ROOT, "node_modules", "wrangler", "package.json"));
const { Miniflare, Log, LogLevel } = require("miniflare");
export const MINIFLARE_VERSION = require("miniflare/package.json").version;
export const WORKERD_VERSION = require("workerd/package.json").version;

/** Loopback ports this harness may bind (the brief's range); fake upstreams use port 0. */
export const FIRST_PORT = 8830;
const COMPAT_DATE = "2026-05-01";

/** Secrets a product worker needs, generated per run (nothing is read from .dev.vars). */
export function benchSecrets() {
  const key = generateSigningJwk();
  const { d: _d, ...publicKey } = key;
  return {
    signingJwk: key,
    FLEET_SIGNING_KEY: JSON.stringify(key),
    AUTH_SIGNING_KEY: JSON.stringify(key),
    AUTH_PUBLIC_KEYS: JSON.stringify([publicKey]),
    WEBHOOK_MASTER_KEY: randomBytes(32).toString("base64url"),
    CRON_SECRET: randomBytes(24).toString("base64url"),
    WEBHOOK_ALLOW_LOOPBACK: "true",
  };
}

/** Miniflare options for a product worker: its wrangler.toml's bindings, its built bundle, bench secrets. */
export function productWorker(name, bundle, extraBindings = {}) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(bundle.config);
  const { vars = {} } = unstable_readConfig({ config: bundle.config });
  const { assets: _assets, bindings: _devVars, ...rest } = workerOptions; // assets: the API explorer, not measured
  return {
    ...rest,
    name,
    ...(bundle.modules ? { modules: bundle.modules } : { modules: true, scriptPath: bundle.script }),
    modulesRoot: bundle.dir,
    bindings: { ...vars, ...extraBindings },
  };
}

/** A bench-only worker sharing the product's D1 database. */
export function benchWorker(name, bundle, options = {}) {
  return {
    name,
    ...(bundle.modules ? { modules: bundle.modules } : { modules: true, scriptPath: bundle.script }),
    modulesRoot: bundle.dir,
    compatibilityDate: COMPAT_DATE,
    d1Databases: { DB: "00000000-0000-0000-0000-000000000001" },
    ...options,
  };
}

export const authStub = {
  name: "auth",
  modules: true,
  script: "export default { fetch: () => new Response('auth stub', { status: 503 }) }",
  compatibilityDate: COMPAT_DATE,
};

function childWorkerdPid() {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (comm === "workerd" && ppid === process.pid) return Number(entry);
    } catch {}
  }
  return undefined;
}

/**
 * A workerd whose stdout is /dev/null: the request lines (one per request, shared/http/request-log.ts) are still
 * made and written by the isolate, so they stay measured, but no process wakes to read them. Through miniflare's
 * pipe each line woke this process, which also runs the load generator, and was printed again: CPU on the
 * product's side only (the bare worker logs nothing), which on the platform goes to Workers Logs outside the
 * isolate. stderr (errors) still reaches this process's stderr.
 */
function quietWorkerd() {
  const wrapper = path.join(ROOT, "bench", ".out", "workerd-quiet.sh");
  mkdirSync(path.dirname(wrapper), { recursive: true });
  writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(require("workerd").default)} "$@" >/dev/null\n`, {
    mode: 0o755,
  });
  return wrapper;
}

/**
 * Starts one workerd with `workers` (the first is miniflare's entry); `exposed` names the workers that get a
 * direct socket. Returns their URLs, the D1 handle for seeding, the workerd PID and memory readers.
 */
export async function startStack(workers, exposed, { quiet = true, inspect = false } = {}) {
  let port = FIRST_PORT;
  const withSockets = workers.map((w) =>
    exposed.includes(w.name)
      ? { ...w, unsafeDirectSockets: [{ host: "127.0.0.1", port: ++port, entrypoint: undefined }] }
      : w,
  );
  const options = {
    host: "127.0.0.1",
    port: FIRST_PORT,
    log: new Log(quiet ? LogLevel.ERROR : LogLevel.INFO),
    ...(inspect && { inspectorPort: INSPECTOR_PORT }),
    workers: withSockets,
  };
  // Read by miniflare when it starts workerd (a restart included); a path set by the caller is kept.
  if (quiet) process.env.MINIFLARE_WORKERD_PATH ??= quietWorkerd();
  const mf = new Miniflare(options);
  await mf.ready;
  const urls = {};
  for (const name of exposed) urls[name] = (await mf.unsafeGetDirectURL(name)).toString().replace(/\/$/, "");
  let pid = childWorkerdPid();
  return {
    mf,
    urls,
    get pid() {
      return pid;
    },
    /**
     * A fresh workerd with the same workers and the same storage (miniflare keeps it until `dispose`): every isolate
     * starts again, with nothing left of what earlier requests allocated. `inspect` turns the inspector on or off
     * for it: a measured run never goes through a workerd whose inspector is on, since V8 then records every
     * console call (a request line each request) with its stack for the debugger, a cost the bare worker, which
     * logs nothing, never pays.
     */
    async restart({ inspect: withInspector = inspect } = {}) {
      const { inspectorPort: _off, ...rest } = options;
      await mf.setOptions({ ...rest, ...(withInspector && { inspectorPort: INSPECTOR_PORT }) });
      pid = childWorkerdPid();
    },
    db: (worker) => mf.getD1Database("DB", worker),
    /** Resets the peak-RSS counter (VmHWM) of the workerd process. */
    resetPeak() {
      if (pid) require("node:fs").writeFileSync(`/proc/${pid}/clear_refs`, "5");
    },
    /**
     * CPU time (ms, ns resolution from schedstat) of workerd's isolate thread, the one named "workerd" that runs
     * every worker: unlike wall time it does not grow while the process waits for a core on a busy machine. V8's
     * background threads (concurrent compilation and GC) are left out: the figure is the request's own thread.
     */
    cpuMs() {
      if (!pid) return Number.NaN;
      let ns = 0;
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        try {
          if (readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim() !== "workerd") continue;
          ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
        } catch {} // the thread ended meanwhile
      }
      return ns / 1e6;
    },
    /** {rssKiB, peakKiB} of the workerd process. */
    memory() {
      if (!pid) return { rssKiB: Number.NaN, peakKiB: Number.NaN };
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1]);
      return { rssKiB: field("VmRSS"), peakKiB: field("VmHWM") };
    },
    dispose: () => mf.dispose(),
  };
}

/** Applies d1-migrations/ in order (NNNN_ prefix), statement by statement. */
export async function migrate(db) {
  const dir = path.join(ROOT, "d1-migrations");
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    const statements = unstable_splitSqlQuery(readFileSync(path.join(dir, file), "utf8"));
    await db.batch(statements.map((sql) => db.prepare(sql)));
  }
}

/**
 * The fleet bundle (with its signing key, the auth keys and the bindings `more(secrets)` adds), the auth stub and
 * the bare baseline worker, the fleet's database migrated: what the registration, audit and webhook benchmarks share.
 */
export async function startFleetAndBare(bundles, more = () => ({}), options = {}) {
  const secrets = benchSecrets();
  const fleet = productWorker("fleet", bundles.fleet, {
    FLEET_SIGNING_KEY: secrets.FLEET_SIGNING_KEY,
    AUTH_PUBLIC_KEYS: secrets.AUTH_PUBLIC_KEYS,
    ...more(secrets),
  });
  const stack = await startStack([fleet, authStub, benchWorker("bare", bundles.bare)], ["fleet", "bare"], options);
  const db = await stack.db("fleet");
  await migrate(db);
  return { stack, db, secrets };
}
