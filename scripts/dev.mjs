// `npm start`: local setup (signing key, D1 migrations, explorer assets), then all three workers:
// auth + verify on http://localhost:8787 (one wrangler process), fleet on http://localhost:8788 (a second one),
// sharing local D1/KV/DO state in .state. SIGINT or SIGTERM to this process stops everything.
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { setupDevVars } from "./dev-setup.mjs";

const root = path.join(import.meta.dirname, "..");
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
process.chdir(root);

setupDevVars();
execFileSync(process.execPath, ["scripts/build-assets.mjs"], { stdio: "inherit" });
execFileSync(
  wrangler,
  ["d1", "migrations", "apply", "oc-db", "--local", "--persist-to", ".state", "-c", "wrangler.toml"],
  {
    stdio: "inherit",
    env,
  },
);

const common = ["--ip", "127.0.0.1", "--persist-to", ".state"];
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
      "8787",
      "--inspector-port",
      "9229",
      ...common,
    ],
  ],
  ["fleet", ["dev", "-c", "workers/fleet/wrangler.toml", "--port", "8788", "--inspector-port", "9230", ...common]],
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
