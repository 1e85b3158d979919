// The machine and versions a run measured on, and bench/RESULTS.md: one table of every figure with its baseline
// measured in the same run, the ratio and the target, then the detail each benchmark needs to be read.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./build.mjs";
import { MINIFLARE_VERSION, WORKERD_VERSION } from "./stack.mjs";

const require = createRequire(path.join(ROOT, "package.json"));
const version = (pkg) => {
  try {
    return JSON.parse(readFileSync(path.join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version;
  } catch {
    return require(`${pkg}/package.json`).version;
  }
};

export function machine() {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? os.cpus()[0]?.model;
  const release = /PRETTY_NAME="([^"]+)"/.exec(readFileSync("/etc/os-release", "utf8"))?.[1] ?? os.type();
  return {
    cpu,
    cores: os.cpus().length,
    ramGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    os: `${release}, Linux ${os.release()}`,
    load: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" / "),
  };
}

export function versions() {
  return {
    node: process.version,
    workerd: WORKERD_VERSION,
    miniflare: MINIFLARE_VERSION,
    wrangler: version("wrangler"),
    autocannon: version("autocannon"),
    "bip322-js": version("bip322-js"),
    "@noble/curves": version("@noble/curves"),
    hono: version("hono"),
  };
}

const fmt = (n, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "–";
export const num = fmt;

/** rows: {benchmark, size, project, baseline, ratio, target, met, note?} → markdown. */
export function table(rows) {
  const head =
    "| Benchmark | Data size | Project | Baseline (same run) | Ratio | Target | Met |\n|---|---|---|---|---|---|---|";
  const body = rows.map(
    (r) =>
      `| ${r.benchmark} | ${r.size} | ${r.project} | ${r.baseline} | ${r.ratio} | ${r.target} | ${r.met ? "met" : "**missed**"} |`,
  );
  return [head, ...body].join("\n");
}

export function profileTable(cpu) {
  if (!cpu) return "_not profiled in this run_";
  const lines = cpu.rows.map((r) => `| ${r.fn.replace(/\|/g, "\\|")} | ${r.ms} | ${(r.share * 100).toFixed(1)} % |`);
  return [
    `Sampled ${cpu.totalMs} ms in the isolate (idle included); ${cpu.awayMs ?? 0} ms more passed between its samples while workerd's one thread ran other isolates (the local D1, Durable Objects, other workers) or waited, not counted below (bench/lib/profile.mjs).`,
    "",
    "| Function (bundle line) | Self ms | Share |",
    "|---|---|---|",
    ...lines,
  ].join("\n");
}
