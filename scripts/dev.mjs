// `npm start`: local setup (signing key, D1 migrations, explorer assets), then all three workers:
// auth + verify on http://localhost:8787 (one wrangler process), fleet on http://localhost:8788 (a second one),
// sharing local D1/KV/DO state in .state. SIGINT or SIGTERM to this process stops everything.
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { setupDevVars } from "./dev-setup.mjs";

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

const passed = setupDevVars();
// `--var` reaches only the first worker of a multi-config `wrangler dev` (auth), not verify beside it, which reads
// only its own .dev.vars (setupDevVars rewrote it just now): its pass-through variables are appended there.
const VERIFY_VARS = ["ESPLORA_URL", "NOSTR_RELAYS", "CONFIRMATIONS", "ALLOW_TEST_NETWORKS"];
const verifyVars = VERIFY_VARS.filter((key) => process.env[key]).map((key) => `${key}='${process.env[key]}'\n`);
if (verifyVars.length) appendFileSync(path.join(root, "workers", "verify", ".dev.vars"), verifyVars.join(""));
// Variables from this process's environment (DECISIONS 27), for this start only.
const varFlags = Object.entries(passed).flatMap(([key, value]) => ["--var", `${key}:${value}`]);
execFileSync(process.execPath, ["scripts/build-assets.mjs"], { stdio: "inherit" });
execFileSync(
  wrangler,
  ["d1", "migrations", "apply", "oc-db", "--local", "--persist-to", stateDir, "-c", "wrangler.toml"],
  {
    stdio: "inherit",
    env,
  },
);

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
    console.log(`[${name}] exited ${code ?? signal}`);
    shutdown();
  });
  return child;
});

let stopping = false;
function shutdown() {
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
    process.exit(0);
  }, 3000).unref();
  Promise.all(
    processes.map((c) => (c.exitCode !== null || c.signalCode ? null : new Promise((r) => c.on("exit", r)))),
  ).then(() => process.exit(0));
}
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
