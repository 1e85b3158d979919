// The `oc` CLI spawned as a user runs it (node scripts/oc.mjs … from the repository root), for the kit's Node tests.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const ROOT = path.join(import.meta.dirname, "../..");
const run = promisify(execFile);

export async function oc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["scripts/oc.mjs", ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
