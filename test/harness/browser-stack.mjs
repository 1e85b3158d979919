// The browser tests' stack: Debian's chromium (installed if missing) driven by playwright-core, and the whole
// local stack started as `npm start` starts it (scripts/dev.mjs), on other ports with its own state folder.
import { execFileSync, execSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { portFree } from "../../scripts/lib/cli.mjs";

export const CHROMIUM = "/usr/bin/chromium";
const root = path.join(import.meta.dirname, "../..");

export function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  // The test setup installs Debian's chromium (the machine reaches Debian's package archive).
  execSync("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium", {
    stdio: "inherit",
  });
}

/** The last `lines` lines of the stack's own output (its log file), for a failure's message. */
export function stackLogTail(logFile, lines = 40) {
  try {
    return readFileSync(logFile, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no stack log)";
  }
}

async function waitFor(url, logFile) {
  const until = Date.now() + 120_000;
  let last = "no answer";
  while (Date.now() < until) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = String(err?.cause?.code ?? err);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the stack did not start (${url}: ${last}); its output ended with:\n${stackLogTail(logFile)}`);
}

/**
 * A state folder holding only the migrated local D1 (wrangler's own `d1 migrations apply`), made once for the
 * migrations as they are (named by their hash) and copied for each stack: applying them took 11 of a stack's 17 s to
 * start, and each browser file starts one. scripts/dev.mjs still runs the apply, which then finds nothing to do.
 */
function migratedState() {
  const migrations = path.join(root, "d1-migrations");
  // Named by wrangler's version too: another version may keep its local D1 otherwise.
  const hash = createHash("sha256").update(readFileSync(path.join(root, "node_modules", "wrangler", "package.json")));
  for (const name of readdirSync(migrations)
    .filter((n) => n.endsWith(".sql"))
    .sort()) {
    hash.update(name).update(readFileSync(path.join(migrations, name)));
  }
  const template = path.join(root, ".build", `stack-state-${hash.digest("hex").slice(0, 16)}`);
  if (existsSync(template)) return template;
  mkdirSync(path.dirname(template), { recursive: true });
  // Made beside it and renamed into place: two files starting at once each make one, and the first rename wins.
  const making = mkdtempSync(`${template}-making-`);
  execFileSync(
    path.join(root, "node_modules", ".bin", "wrangler"),
    ["d1", "migrations", "apply", "oc-db", "--local", "--persist-to", making, "-c", "wrangler.toml"],
    { cwd: root, stdio: "ignore", env: { ...process.env, CI: "true" } },
  );
  try {
    renameSync(making, template);
  } catch {
    rmSync(making, { recursive: true, force: true });
  }
  return template;
}

/** Empties `stateDir` (relative to the repository) and fills it with a copy of the migrated state folder. */
export function freshState(stateDir) {
  rmSync(path.join(root, stateDir), { recursive: true, force: true });
  cpSync(migratedState(), path.join(root, stateDir), { recursive: true });
}

/** Starts scripts/dev.mjs once on a fresh state folder; its output goes to `logFile`. */
function spawnStack({ auth, fleet, authInspector, fleetInspector, stateDir, env, authOrigin, fleetOrigin }, logFile) {
  freshState(stateDir);
  mkdirSync(path.dirname(logFile), { recursive: true });
  const out = openSync(logFile, "w");
  const child = spawn(process.execPath, ["scripts/dev.mjs"], {
    cwd: root,
    detached: true,
    stdio: ["ignore", out, out],
    env: {
      ...process.env,
      PORT_AUTH: String(auth),
      PORT_FLEET: String(fleet),
      INSPECTOR_PORT_AUTH: String(authInspector),
      INSPECTOR_PORT_FLEET: String(fleetInspector),
      STATE_DIR: stateDir,
      AUTH_ORIGIN: authOrigin,
      FLEET_ORIGIN: fleetOrigin,
      ...env,
    },
  });
  closeSync(out); // the child holds its own copy
  return async function stop() {
    try {
      process.kill(child.pid, "SIGTERM"); // dev.mjs stops its wrangler process groups
    } catch {}
    // Stopped when its ports are free again (the next stack's npm start refuses a port still held), 20 s at most.
    const until = Date.now() + 20_000;
    do await new Promise((r) => setTimeout(r, 500));
    while (Date.now() < until && !((await portFree(auth)) && (await portFree(fleet))));
  };
}

/**
 * Starts scripts/dev.mjs with a fresh state folder (limits and rows of an earlier run never carry over) and waits
 * until both workers answer. `env` adds variables passed through to the workers (DECISIONS 27). The stack's output
 * goes to a log beside its state folder. A stack that does not answer within 120 s is stopped and started once
 * more (saying so, with its output): on a loaded CI run one wrangler start never answered.
 */
export async function startStack({ auth, fleet, authInspector, fleetInspector, stateDir, env = {} }) {
  const authOrigin = `http://localhost:${auth}`;
  const fleetOrigin = `http://localhost:${fleet}`;
  const logFile = path.join(root, `${stateDir}.log`);
  const options = { auth, fleet, authInspector, fleetInspector, stateDir, env, authOrigin, fleetOrigin };
  for (let attempt = 1; ; attempt++) {
    const stop = spawnStack(options, logFile);
    try {
      await waitFor(`${authOrigin}/api/health`, logFile);
      await waitFor(`${fleetOrigin}/api/health`, logFile);
      return { authOrigin, fleetOrigin, logFile, stop };
    } catch (err) {
      await stop();
      if (attempt > 1) throw err;
      console.warn(`browser tests: starting the stack again. ${err.message}`);
    }
  }
}

export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
