// Where the deploy's generated secrets wait for `wrangler deploy --secrets-file` (review 3, item 12): a fresh
// private folder under the system's temporary directory (0700, files 0600 created new), removed when the deploy
// ends, fails, or is stopped by SIGINT, SIGTERM or SIGHUP (a `finally` does not run on a signal). A start removes
// what an earlier run could not: folders of deploys no longer running, and the secret files older versions wrote
// into .deploy/<env>/.
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The folder's name: this prefix, the deploy's process id, then mkdtemp's random suffix. */
export const SECRET_DIR_PREFIX = "oc-deploy-secrets-";
/** Each signal, with the exit code a shell gives a process it ended (128 + the signal's number). */
const SIGNAL_EXITS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** True while the process `pid` exists (one that is not ours to signal exists too). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/**
 * Removes the leftovers of interrupted deploys: this user's secret folders in `tmp` whose deploy is no longer
 * running, and `secrets-*.json` in each folder of `deployRoot` (.deploy/). Returns what it removed.
 */
export function sweepLeftovers({ tmp = tmpdir(), deployRoot }) {
  const removed = [];
  for (const name of existsSync(tmp) ? readdirSync(tmp) : []) {
    const pid = Number(/^oc-deploy-secrets-(\d+)-/.exec(name)?.[1]);
    const dir = path.join(tmp, name);
    if (!pid || pid === process.pid || alive(pid)) continue;
    try {
      if (statSync(dir).uid !== process.getuid?.()) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  for (const env of existsSync(deployRoot) ? readdirSync(deployRoot) : []) {
    const dir = path.join(deployRoot, env);
    if (!statSync(dir).isDirectory()) continue;
    for (const file of readdirSync(dir).filter((f) => /^secrets-.*\.json$/.test(f))) {
      rmSync(path.join(dir, file), { force: true });
      removed.push(path.join(dir, file));
    }
  }
  return removed;
}

/**
 * Makes the private folder and keeps it only as long as the deploy runs: `write(name, value)` puts a 0600 file in
 * it and returns its path; `close()` removes it. On SIGINT, SIGTERM or SIGHUP it is removed, `onSignal` is called
 * (the deploy stops its wrangler), and the process exits with the shell's code for the signal.
 */
export function openSecretDir({ tmp = tmpdir(), onSignal = () => undefined } = {}) {
  const dir = mkdtempSync(path.join(tmp, `${SECRET_DIR_PREFIX}${process.pid}-`));
  chmodSync(dir, 0o700);
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const handlers = Object.entries(SIGNAL_EXITS).map(([signal, code]) => {
    const handler = () => {
      remove();
      onSignal(signal);
      process.exit(code);
    };
    process.on(signal, handler);
    return [signal, handler];
  });
  // A process.exit() anywhere else still leaves nothing behind.
  process.on("exit", remove);
  return {
    dir,
    write(name, value) {
      const file = path.join(dir, name);
      writeFileSync(file, value, { mode: 0o600, flag: "wx" });
      return file;
    },
    close() {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      process.off("exit", remove);
      remove();
    },
  };
}
