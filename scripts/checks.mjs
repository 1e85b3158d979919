// `npm test`'s static checks on every core: the commands of package.json's `typecheck` and `lint` scripts (five tsc
// projects, Biome, dependency-cruiser), read from there and run side by side instead of one after another (on two
// cores ~45 s instead of ~90 s). Each command's output is printed whole when it ends, so two never interleave;
// every command runs even after one fails, and the exit code is non-zero if any failed.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { parseCli } from "./lib/cli.mjs";
import { inLanes } from "./lib/lanes.mjs";

const USAGE = `
Usage: npm run check

Runs the commands of the typecheck and lint scripts (package.json) on every core and prints each one's output when it
ends. Exits 1 if any of them failed.
`;

/**
 * The commands of some package.json scripts, in order: each script split at `&&`.
 * @param {Record<string, string>} scripts package.json's `scripts`
 * @param {string[]} names which scripts
 * @returns {string[]}
 */
export function commandsOf(scripts, names) {
  return names.flatMap((name) => {
    const script = scripts[name];
    if (script === undefined) throw new Error(`package.json has no "${name}" script`);
    return script.split("&&").map((command) => command.trim());
  });
}

/**
 * Runs the commands, `lanes` at a time in the order given (the longest first keeps the lanes even), and prints each
 * one's output when it ends.
 * @param {string[]} commands
 * @param {number} lanes
 * @param {string} cwd
 * @returns {Promise<string[]>} the commands that failed
 */
export async function runAll(commands, lanes, cwd) {
  const failed = [];
  await inLanes(commands, lanes, async (command) => {
    const started = Date.now();
    const { code, output } = await run(command, cwd);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`> ${command} (${seconds} s${code === 0 ? "" : `, exit ${code}`})\n${output}`);
    if (code !== 0) failed.push(command);
  });
  return failed;
}

/** One command through the shell (as npm runs a script), stdout and stderr kept together in order. */
function run(command, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, { cwd, shell: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  parseCli(USAGE);
  const root = path.join(import.meta.dirname, "..");
  const { scripts } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  // npm puts node_modules/.bin on PATH for a script; run directly, this does the same.
  process.env.PATH = `${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`;
  const failed = await runAll(commandsOf(scripts, ["typecheck", "lint"]), availableParallelism(), root);
  if (failed.length > 0) {
    console.error(`${failed.length} check(s) failed: ${failed.join("; ")}`);
    process.exit(1);
  }
}
