// `node bench/limiter-calls.mjs`: what one limiter step costs inside workerd, per call (a loop of `n` calls per
// request, minus an empty request, best of 5, workerd's isolate-thread CPU): a Durable Object id from a name, a stub
// for a bucket's shard, a lease call on a new bucket, a lease call on one bucket. Not part of `npm run bench`; the
// figures it gave are quoted in README.md ("/api/check cache hit").
import { buildBenchWorker } from "./lib/build.mjs";
import { startStack } from "./lib/stack.mjs";

const b = await buildBenchWorker("limiter-calls");
const stack = await startStack(
  [
    {
      name: "m",
      modules: b.modules,
      modulesRoot: b.dir,
      compatibilityDate: "2026-05-01",
      durableObjects: { RATE_LIMITER: { className: "RateLimiter", useSQLite: true } },
    },
  ],
  ["m"],
);
const timed = async (url) => {
  const t = stack.cpuMs();
  const r = await fetch(url);
  const tx = await r.text();
  if (!r.ok) throw new Error(tx);
  return stack.cpuMs() - t;
};
const base = stack.urls.m;
for (const op of ["id", "stub", "lease", "same"]) {
  let full = Infinity,
    empty = Infinity;
  const n = op === "id" || op === "stub" ? 20000 : 500;
  await timed(`${base}/?op=${op}&n=${n}`);
  for (let i = 0; i < 5; i++) {
    full = Math.min(full, await timed(`${base}/?op=${op}&n=${n}`));
    empty = Math.min(empty, await timed(`${base}/?op=${op}&n=0`));
  }
  console.log(op, (((full - empty) * 1000) / n).toFixed(2), "µs");
}
await stack.dispose();
