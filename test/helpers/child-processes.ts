// Commands and servers a Node test runs as a person would in a terminal: one run to its end (code and output, never
// a throw), one left running in its own process group (wrangler starts children) and stopped as a group, and the
// waits around them.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createServer } from "node:net";
import { promisify } from "node:util";

const exec = promisify(execFile);

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export async function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<Run> {
  try {
    const { stdout, stderr } = await exec(command, args, { ...options, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? String(err) };
  }
}

export interface Background {
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  exited(): boolean;
  /** SIGTERM to the group, SIGKILL after 5 s; resolves once the leader has exited. */
  stop(): Promise<void>;
}

export function background(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child: ChildProcess = spawn(command, args, { ...options, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const signal = (name: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, name);
    } catch {}
  };
  const proc: Background = {
    output: () => output,
    exited,
    async stop() {
      if (exited()) return;
      signal("SIGTERM");
      const kill = setTimeout(() => signal("SIGKILL"), 5_000);
      await exit;
      clearTimeout(kill);
    },
  };
  return proc;
}

/** Polls until `ready` holds; throws with the process's output when it exits first or time runs out. */
export async function until(what: string, ready: () => Promise<boolean> | boolean, proc?: Background, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline || proc?.exited()) throw new Error(`${what} did not happen:\n${proc?.output() ?? ""}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Whether anything answers at `url` yet (any status). */
export const answers = (url: string): Promise<boolean> =>
  fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
    () => true,
    () => false,
  );

/** A loopback port nothing listens on now, for a server that must be named before it starts (a webhook URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
