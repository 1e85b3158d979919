// `npm run deploy -- --dry-run` (issue 28): the three production bundles built exactly as a deploy would build them
// (`wrangler deploy --dry-run --outdir`, from the same generated configurations, with placeholder resource ids), each
// one's gzip size against the Workers limits, and each one's startup CPU (`wrangler check startup`, a CPU profile
// of the module's evaluation in local workerd) against the platform's startup limit. No account or credential is
// needed, so CI runs it: a change that breaks the production build or outgrows a limit fails there. It builds the
// assets first, as the deploy does: wrangler refuses a configuration whose assets folder is missing (a fresh clone).
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { buildAssets, DEFAULT_BUILD_DIR } from "./assets.mjs";
import { nameIn, root, WORKERS, workerConfig } from "./plan.mjs";
import { wrangler } from "./wrangler.mjs";

/** Workers limits (developers.cloudflare.com/workers/platform/limits): the gzip size of a Worker's upload. */
export const SIZE_LIMITS = { free: 3 * 1024 * 1024, paid: 10 * 1024 * 1024 };
/** Startup: 1 s in the current limits; 400 ms in earlier revisions, which the check holds to, to keep the margin. */
export const STARTUP_LIMIT_MS = 400;

const PLACEHOLDER_IDS = {
  database: "00000000-0000-0000-0000-000000000000",
  registry: "00000000-0000-0000-0000-000000000001",
  namespace: "0".repeat(32),
};

/** Every file under `dir`. */
const filesUnder = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });

/** The bundle's size: each module gzipped on its own, as the upload compresses them (source maps left out). */
export function bundleSize(dir) {
  const files = filesUnder(dir).filter((f) => !f.endsWith(".map") && !f.endsWith("README.md"));
  const raw = files.reduce((sum, f) => sum + statSync(f).size, 0);
  const gzip = files.reduce((sum, f) => sum + gzipSync(readFileSync(f), { level: 9 }).length, 0);
  return { raw, gzip };
}

/** From a V8 CPU profile: its duration and the time the CPU spent in script (idle and GC samples left out). */
export function startupOf(profile) {
  const idle = new Set(
    profile.nodes
      .filter((n) => ["(idle)", "(program)", "(garbage collector)"].includes(n.callFrame.functionName))
      .map((n) => n.id),
  );
  let busy = 0;
  profile.samples.forEach((sample, i) => {
    if (!idle.has(sample)) busy += profile.timeDeltas[i] ?? 0;
  });
  return { durationMs: (profile.endTime - profile.startTime) / 1000, cpuMs: busy / 1000 };
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

/**
 * Builds the assets into `buildDir` (.build), then builds and measures every worker; resolves with the rows, and
 * `failures` naming any limit outgrown.
 */
export async function dryRun({ config, env, buildDir = DEFAULT_BUILD_DIR, say = console.log }) {
  say("building the assets");
  buildAssets(buildDir);
  const dir = path.join(buildDir, "deploy", env);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const rows = [];
  for (const { id } of WORKERS) {
    const configFile = path.join(dir, `${id}.json`);
    writeFileSync(configFile, JSON.stringify(workerConfig(id, { config, env, ids: PLACEHOLDER_IDS, buildDir })));
    const outdir = path.join(dir, id);
    await wrangler(["deploy", "--dry-run", "--outdir", outdir, "-c", configFile], { cwd: root });
    const size = bundleSize(outdir);
    const profileFile = path.join(dir, `${id}.cpuprofile`);
    await wrangler(["check", "startup", "-c", configFile, "--outfile", profileFile], { cwd: root });
    const startup = startupOf(JSON.parse(readFileSync(profileFile, "utf8")));
    rows.push({ worker: nameIn(id, env), ...size, ...startup });
    say(
      `${nameIn(id, env)}: ${mib(size.gzip)} gzip (${mib(size.raw)} raw; limits ${mib(SIZE_LIMITS.free)} Free, ` +
        `${mib(SIZE_LIMITS.paid)} Paid), startup ${startup.cpuMs.toFixed(0)} ms CPU in ` +
        `${startup.durationMs.toFixed(0)} ms (limit ${STARTUP_LIMIT_MS} ms)`,
    );
  }
  const failures = rows.flatMap((r) => [
    ...(r.gzip > SIZE_LIMITS.free
      ? [`${r.worker} is ${mib(r.gzip)} gzip, over the Free plan's ${mib(SIZE_LIMITS.free)}`]
      : []),
    ...(r.durationMs > STARTUP_LIMIT_MS
      ? [`${r.worker} starts in ${r.durationMs.toFixed(0)} ms, over ${STARTUP_LIMIT_MS} ms`]
      : []),
  ]);
  return { rows, failures };
}
