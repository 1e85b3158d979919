// How every script starts and fails (issue 15): `--help` prints the usage and exits 0; a bad flag, a refused
// request or an unreachable host prints one line (what failed, why, what to do) and exits non-zero. No stack traces.
import { createServer } from "node:net";
import { parseArgs } from "node:util";

/** A failure the person can act on: the message says what failed and why, the hint what to do. */
export class CliError extends Error {
  constructor(message, hint, exitCode = 1) {
    super(message);
    this.hint = hint;
    this.exitCode = exitCode;
  }
}

/** `parseArgs` with `--help`/`-h`, and a usage error (exit 2) instead of Node's stack trace for a bad flag. */
export function parseCli(usage, config = {}) {
  let parsed;
  try {
    parsed = parseArgs({ ...config, options: { ...config.options, help: { type: "boolean", short: "h" } } });
  } catch (err) {
    fail(new CliError(err.message.split("\n")[0], "see --help", 2));
  }
  if (parsed.values.help) {
    console.log(usage.trim());
    process.exit(0);
  }
  return parsed;
}

/** One line for any error; a network failure names the host and the usual cause. */
export function describe(err) {
  if (err instanceof CliError) return err.hint ? `${err.message}; ${err.hint}` : err.message;
  return err instanceof Error ? err.message : String(err);
}

export function fail(err) {
  console.error(`error: ${describe(err)}`);
  process.exit(err instanceof CliError ? err.exitCode : 1);
}

/** Runs a script's body; anything it throws ends the process with one line. */
export async function run(main) {
  try {
    await main();
  } catch (err) {
    fail(err);
  }
}

const HINTS = [
  [(s) => s === 401, "sign in first (npm run signin) or pass --token"],
  [(s) => s === 403, "the account or token lacks the role for this"],
  [(s) => s === 404, "check the id, and that you are a member of its project"],
  [(s) => s === 429, "rate limited: wait a minute and retry"],
  [(s) => s === 503, "the service is not configured for this: see the README's configuration table"],
  [(s) => s >= 500, "the worker failed: see its log where npm start runs"],
];

/** The failure of an HTTP answer, in one line: `POST /api/x answered 409 reason: detail; hint`. */
export function httpFailure(method, path, status, body) {
  const reason = body && typeof body === "object" && body.reason ? ` ${body.reason}` : "";
  const detail = body && typeof body === "object" && body.detail ? `: ${body.detail}` : "";
  const hint = HINTS.find(([test]) => test(status))?.[1];
  return new CliError(`${method} ${path} answered ${status}${reason}${detail}`, hint);
}

/** fetch() that turns "fetch failed" into which host could not be reached and what to do. */
export async function reach(url, init) {
  try {
    return await fetch(url, init);
  } catch (err) {
    const code = err?.cause?.code ?? err?.cause?.message ?? err?.message;
    throw new CliError(
      `could not reach ${new URL(url).origin} (${code})`,
      "is the stack running (npm start)? or pass --base",
    );
  }
}

/** A JSON request to a host; throws `httpFailure` for a non-2xx answer. */
export async function requestJson(base, method, path, { headers = {}, body } = {}) {
  const res = await reach(`${base.replace(/\/+$/, "")}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = undefined;
  }
  if (!res.ok) throw httpFailure(method, path, res.status, json);
  return { res, json, text };
}

/** Whether a loopback port can be bound now (some servers throw on a busy port from an event, not a promise). */
export function portFree(port, host = "127.0.0.1") {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(Number(port), host, () => probe.close(() => resolve(true)));
  });
}

/** Starts a local server; a port already in use is one line and exit 1, not a stack trace. */
export async function listening(name, port, start) {
  const busy = () =>
    fail(new CliError(`${name} cannot listen: port ${port} is in use`, "stop what holds it, or choose another port"));
  if (!(await portFree(port))) busy();
  try {
    return await start();
  } catch (err) {
    if (err?.code === "EADDRINUSE")
      fail(new CliError(`${name} cannot listen: port ${port} is in use`, "stop what holds it, or choose another port"));
    fail(err);
  }
}
