// The soak's stack: the loopback upstreams (Esplora, a nostr relay, the webhook receiver; test/harness/) in this
// process, and the three workers through scripts/dev.mjs on the soak's own ports and state folder, which can be
// stopped and started again on the same state. D1 is read with `wrangler d1 execute --local` on that state.
// It runs from a snapshot of the sources (.build/soak-tree): `wrangler dev` reloads its workers, failing requests in
// flight with 503 "Your worker restarted mid-request", whenever a watched file changes, and on a shared working tree
// other runs rewrite .dev.vars and .build/public (every `npm start`, every `npm test`) and edit sources.
import { execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { startEsplora } from "../../test/harness/esplora-server.mjs";
import { startRelay } from "../../test/harness/nostr-relay.mjs";

const main = path.join(import.meta.dirname, "..", "..");
/** The snapshot the stack runs from; its state folder is STATE_DIR inside it. */
export const TREE = ".build/soak-tree";
const root = path.join(main, TREE);
const SNAPSHOT = ["package.json", "wrangler.toml", "tsconfig.json", "workers", "shared", "d1-migrations", "scripts"];
const run = promisify(execFile);

export const PORTS = { auth: 8827, fleet: 8828, authInspector: 9267, fleetInspector: 9268 };
export const STATE_DIR = ".build/soak-state";
export const AUTH = `http://localhost:${PORTS.auth}`;
export const FLEET = `http://localhost:${PORTS.fleet}`;
/** Fixed for the run, passed through to the workers (DECISIONS 27), so the soak can call the cron route. */
export const CRON_SECRET = `soak-cron-${process.pid}-0123456789abcdef`;

/**
 * The webhook receiver in a child process: in this one, the clients' signing would hold its answers back past the
 * fleet's 8-second delivery limit, and the retries would be the soak's own doing.
 */
async function startReceiverProcess() {
  const code = `import("${path.join(main, "test/harness/webhook-receiver.mjs")}").then((m) => m.startReceiver()).then((r) => console.log(r.url));`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    child.stdout.once("data", (d) => resolve(d.toString().trim()));
    child.once("exit", (c) => reject(new Error(`receiver exited ${c}`)));
  });
  return {
    url,
    close: async () => {
      child.kill("SIGTERM");
    },
  };
}

export async function startUpstreams() {
  const [esplora, relay, receiver] = await Promise.all([startEsplora(), startRelay(), startReceiverProcess()]);
  return { esplora, relay, receiver, close: () => Promise.all([esplora, relay, receiver].map((s) => s.close())) };
}

export class Stack {
  /** @param {{ esplora: { url: string }, relay: { url: string } }} upstreams */
  constructor(upstreams, log) {
    this.upstreams = upstreams;
    this.log = log;
    this.child = undefined;
    this.output = [];
  }

  /** A fresh snapshot of the sources with empty state: every run starts from empty D1, KV and Durable Objects. */
  static reset() {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    for (const entry of SNAPSHOT) {
      cpSync(path.join(main, entry), path.join(root, entry), {
        recursive: true,
        filter: (source) => !/\.dev\.vars$/.test(source),
      });
    }
    symlinkSync(path.join(main, "node_modules"), path.join(root, "node_modules"));
  }

  async start() {
    const env = {
      ...process.env,
      PORT_AUTH: String(PORTS.auth),
      PORT_FLEET: String(PORTS.fleet),
      INSPECTOR_PORT_AUTH: String(PORTS.authInspector),
      INSPECTOR_PORT_FLEET: String(PORTS.fleetInspector),
      STATE_DIR,
      AUTH_ORIGIN: AUTH,
      FLEET_ORIGIN: FLEET,
      ESPLORA_URL: this.upstreams.esplora.url,
      NOSTR_RELAYS: this.upstreams.relay.url,
      CONFIRMATIONS: "1",
      CRON_SECRET,
    };
    // Its own process group: stopping it stops wrangler and workerd too, and nothing else.
    this.child = spawn(process.execPath, ["scripts/dev.mjs"], { cwd: root, env, detached: true, stdio: "pipe" });
    const keep = (chunk) => {
      this.output.push(chunk.toString());
      if (this.output.length > 20_000) this.output.splice(0, 10_000);
    };
    this.child.stdout.on("data", keep);
    this.child.stderr.on("data", keep);
    const started = Date.now();
    await Promise.all([waitHealthy(`${AUTH}/api/health`, this.child), waitHealthy(`${FLEET}/api/health`, this.child)]);
    // The auth worker reaches verify through its service binding: wait until that answers too.
    await waitHealthy(
      `${AUTH}/api/check?addr=bc1qsoakwarmup0000000000000000000000000000&min_sats=1`,
      this.child,
      [404, 200, 429],
    );
    this.log(`stack up in ${((Date.now() - started) / 1000).toFixed(1)} s (pid ${this.child.pid})`);
  }

  /** SIGTERM to dev.mjs's group (it stops both wrangler groups), SIGKILL after 15 s. */
  async stop() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode) return;
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, 15_000);
    await exited;
    clearTimeout(timer);
    // dev.mjs waits for its wranglers; give the ports a moment to be released.
    await new Promise((r) => setTimeout(r, 500));
  }

  /** Rows of a SQL query on the stack's local D1 (retried while the running stack holds the database busy). */
  async query(sql) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.queryOnce(sql);
      } catch (err) {
        if (attempt >= 10 || !/SQLITE_BUSY/.test(String(err))) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  async queryOnce(sql) {
    const { stdout } = await run(
      path.join(root, "node_modules", ".bin", "wrangler"),
      [
        "d1",
        "execute",
        "oc-db",
        "--local",
        "--persist-to",
        STATE_DIR,
        "-c",
        "wrangler.toml",
        "--json",
        "--command",
        sql,
      ],
      {
        cwd: root,
        maxBuffer: 256 * 1024 * 1024,
        env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
      },
    );
    const parsed = JSON.parse(stdout);
    return parsed[0]?.results ?? [];
  }

  tail(lines = 40) {
    return this.output.join("").split("\n").slice(-lines).join("\n");
  }
}

async function waitHealthy(url, child, statuses = [200], timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`dev.mjs exited ${child.exitCode} before ${url} answered`);
    try {
      const res = await fetch(url, {
        signal: AbortSignal.timeout(5000),
        headers: { "cf-connecting-ip": "192.0.2.250" },
      });
      await res.arrayBuffer();
      if (statuses.includes(res.status)) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}
