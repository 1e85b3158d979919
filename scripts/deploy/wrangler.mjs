// The deploy's one way to Cloudflare: the `wrangler` command found on PATH (`npm run deploy` puts the project's own
// first; the tests put a recording stand-in there). Each call is one wrangler command; its failure is one line that
// names the step (the worker or database it concerns) with wrangler's reason, and at most two indented lines: the
// request that failed and wrangler's hint (wrangler-failure.mjs). Nothing secret is ever on a command line: secrets
// go through a file (`--secrets-file`).
import { spawn } from "node:child_process";
import { describeFailure } from "./wrangler-failure.mjs";

/** The wrangler commands running now: a deploy stopped by a signal stops them too (secret-dir.mjs). */
const running = new Set();

/** Sends `signal` to every wrangler command still running. */
export function stopWranglers(signal = "SIGTERM") {
  for (const child of running) child.kill(signal);
}

/**
 * Runs `wrangler …args`; resolves with stdout, or rejects with the failure of `step` (what the command does, e.g.
 * `deploying the worker auth`; by default the command itself).
 */
export function wrangler(args, { cwd, env = process.env, step } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn("wrangler", args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    child.on("exit", () => running.delete(child));
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", (e) =>
      reject(new Error(`wrangler could not start (${e.code ?? e.message}): run npm install first`)),
    );
    child.on("close", (code) => {
      if (code === 0) return resolve(out);
      // The command's words up to its first flag: `wrangler d1 migrations apply`, `wrangler deploy`.
      const flagAt = args.findIndex((w) => w.startsWith("-"));
      const command = `wrangler ${args.slice(0, Math.min(3, flagAt < 0 ? args.length : flagAt)).join(" ")}`;
      const accountIdSet = Boolean(env.CLOUDFLARE_ACCOUNT_ID);
      reject(new Error(describeFailure({ step, command, output: `${err}\n${out}`, exitCode: code, accountIdSet })));
    });
  });
}

/** The JSON a wrangler listing prints (it may print a banner line before it). */
export function jsonOf(text) {
  const start = text.search(/[[{]/);
  if (start < 0) throw new Error("wrangler printed no JSON");
  return JSON.parse(text.slice(start));
}

/** The account's Cloudflare credentials work: `wrangler whoami` succeeds and names an account. */
export async function checkCredentials(run = wrangler) {
  let out;
  try {
    out = await run(["whoami"]);
  } catch {
    throw new Error(
      "no Cloudflare credentials: set CLOUDFLARE_API_TOKEN (and CLOUDFLARE_ACCOUNT_ID), or run npx wrangler login",
    );
  }
  if (/not authenticated|You are not/i.test(out)) {
    throw new Error("no Cloudflare credentials: set CLOUDFLARE_API_TOKEN, or run npx wrangler login");
  }
}
