// `npm start`: local setup (signing key, D1 migrations, explorer assets), then all three workers:
// auth + verify on http://localhost:8787 (one wrangler process), fleet on http://localhost:8788 (a second one),
// sharing local D1/KV/DO state in .state. SIGINT or SIGTERM to this process stops everything. A port already in
// use is refused before anything starts (exit 1); one line per host says when it answers, with its URLs; a worker
// that exits on its own stops the rest and exits non-zero.
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { setupDevVars } from "./dev-setup.mjs";
import { portFree } from "./lib/cli.mjs";

const root = path.join(import.meta.dirname, "..");
// Ports and the state folder can be moved (the browser tests run a second stack beside a developer's).
const ports = {
  auth: process.env.PORT_AUTH ?? "8787",
  fleet: process.env.PORT_FLEET ?? "8788",
  authInspector: process.env.INSPECTOR_PORT_AUTH ?? "9229",
  fleetInspector: process.env.INSPECTOR_PORT_FLEET ?? "9230",
};
const stateDir = process.env.STATE_DIR ?? ".state";
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
// Each stack gets its own dev registry (where wrangler finds the other process's workers for service bindings), so
// two stacks on one machine (a developer's, the browser tests', the soak run's) never bind to each other's workers.
const env = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_REGISTRY_PATH: process.env.WRANGLER_REGISTRY_PATH ?? path.join(root, stateDir, "registry"),
};
process.chdir(root);

for (const port of Object.values(ports)) {
  if (await portFree(port)) continue;
  console.error(
    `npm start: port ${port} is already in use (another npm start?). Stop it, or move this stack with PORT_AUTH, PORT_FLEET, INSPECTOR_PORT_AUTH and INSPECTOR_PORT_FLEET.`,
  );
  process.exit(1);
}

const passed = setupDevVars();
// `--var` reaches only the first worker of a multi-config `wrangler dev` (auth), not verify beside it, which reads
// only its own .dev.vars (setupDevVars rewrote it just now): its pass-through variables are appended there.
const VERIFY_VARS = ["ESPLORA_URL", "NOSTR_RELAYS", "CONFIRMATIONS", "ALLOW_TEST_NETWORKS"];
const verifyVars = VERIFY_VARS.filter((key) => process.env[key]).map((key) => `${key}='${process.env[key]}'\n`);
if (verifyVars.length) appendFileSync(path.join(root, "workers", "verify", ".dev.vars"), verifyVars.join(""));
// Variables from this process's environment (DECISIONS 27), for this start only.
const varFlags = Object.entries(passed).flatMap(([key, value]) => ["--var", `${key}:${value}`]);
execFileSync(process.execPath, ["scripts/build-assets.mjs"], { stdio: "inherit" });
// wrangler reprints its whole table after each migration it applies (seven tables for seven); say each once.
let migrationLog = "";
try {
  migrationLog = execFileSync(
    wrangler,
    ["d1", "migrations", "apply", "oc-db", "--local", "--persist-to", stateDir, "-c", "wrangler.toml"],
    { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
} catch (err) {
  process.stderr.write(`${err.stdout ?? ""}${err.stderr ?? ""}`);
  console.error("npm start: the local D1 migrations failed (above); nothing was started.");
  process.exit(1);
}
const applied = [...new Set([...migrationLog.matchAll(/([\w-]+\.sql)\s*│\s*✅/g)].map((m) => m[1]))];
console.log(applied.length ? `D1 migrations applied: ${applied.join(", ")}` : "D1 migrations: up to date");

let stopping = false;
const common = ["--ip", "127.0.0.1", "--persist-to", stateDir, ...varFlags];
const processes = [
  [
    "auth",
    [
      "dev",
      "-c",
      "wrangler.toml",
      "-c",
      "workers/verify/wrangler.toml",
      "--port",
      ports.auth,
      "--inspector-port",
      ports.authInspector,
      ...common,
    ],
  ],
  [
    "fleet",
    [
      "dev",
      "-c",
      "workers/fleet/wrangler.toml",
      "--port",
      ports.fleet,
      "--inspector-port",
      ports.fleetInspector,
      ...common,
    ],
  ],
].map(([name, args]) => {
  const child = spawn(wrangler, args, { stdio: ["ignore", "pipe", "pipe"], detached: true, env });
  for (const stream of [child.stdout, child.stderr]) {
    stream.on("data", (chunk) => process.stdout.write(chunk.toString().replace(/^(?=.)/gm, `[${name}] `)));
  }
  child.on("exit", (code, signal) => {
    if (stopping) return;
    console.error(`[${name}] exited on its own (${code ?? signal}); stopping the rest`);
    shutdown(1);
  });
  return child;
});

/** Prints one line per host once it answers its health route (polled; wrangler's own output stays above). */
async function announce(name, origin, pages) {
  const until = Date.now() + 180_000;
  while (!stopping && Date.now() < until) {
    try {
      if ((await fetch(`${origin}/api/health`)).ok) {
        console.log(`\n${name} ready: ${pages.map(([label, p]) => `${label} ${origin}${p}`).join(" · ")}\n`);
        return;
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
}
const authOrigin = `http://localhost:${ports.auth}`;
const fleetOrigin = `http://localhost:${ports.fleet}`;
Promise.all([
  announce("auth + verify", authOrigin, [
    ["sign-in", "/signin"],
    ["API explorer", "/api-explorer"],
  ]),
  announce("fleet", fleetOrigin, [
    ["dashboard", "/dashboard/"],
    ["API explorer", "/api-explorer"],
  ]),
]).then(() => {
  if (!stopping) console.log("Ctrl-C stops both.\n");
});

function shutdown(exitCode = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of processes) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
  }
  setTimeout(() => {
    for (const child of processes) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }
    process.exit(exitCode);
  }, 3000).unref();
  Promise.all(
    processes.map((c) => (c.exitCode !== null || c.signalCode ? null : new Promise((r) => c.on("exit", r)))),
  ).then(() => process.exit(exitCode));
}
process.on("SIGINT", () => shutdown(0));
process.on("SIGTERM", () => shutdown(0));
