// The deploy's one way to Cloudflare: the `wrangler` command found on PATH (`npm run deploy` puts the project's own
// first; the tests put a recording stand-in there). Each call is one wrangler command; its failure is one line that
// names the command and wrangler's last line of error. Nothing secret is ever on a command line: secrets go through
// a file (`secret bulk`).
import { spawn } from "node:child_process";

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ESC of a terminal colour code is what is removed.
const stripColour = (line) => line.replace(/\x1b\[[0-9;]*m/g, "");

/** The wrangler commands running now: a deploy stopped by a signal stops them too (secret-dir.mjs). */
const running = new Set();

/** Sends `signal` to every wrangler command still running. */
export function stopWranglers(signal = "SIGTERM") {
  for (const child of running) child.kill(signal);
}

/** Runs `wrangler …args`; resolves with stdout, or rejects with one line. */
export function wrangler(args, { cwd, env = process.env } = {}) {
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
      const last = `${err}\n${out}`
        .split("\n")
        .map((l) => stripColour(l).trim())
        .filter((l) => l && !/^[│└┌─╭╰]*$/.test(l))
        .findLast((l) => /error|✘|failed|not/i.test(l));
      reject(new Error(`wrangler ${args.slice(0, 3).join(" ")} failed: ${last ?? `exit ${code}`}`));
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
