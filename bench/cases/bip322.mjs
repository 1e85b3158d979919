// BIP-322 verification inside workerd, both sides in the same workerd: the project's verifier (bench/workers/
// bip322-loop.ts: libsecp256k1 as WebAssembly, and @noble/curves for reference) and bip322-js (bench/workers/
// bip322js-loop.ts, wrangler-bundled with nodejs_compat), on the same bip322-js-signed OC Attest messages per address
// type (bip322-js signs 1… addresses the legacy BIP-137 way, so the P2PKH row is legacy verification for both).
// Times are the workerd process's CPU time per request (not wall time: the machine is shared with the load
// generator and more). Steady state: ops/s = n / (best n-loop request − best n=0 request), HTTP excluded. First
// verify: a fresh workerd per side, the first request that touches the curve minus an empty request.
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import { hex } from "@scure/base";
import { medianBy } from "../lib/load.mjs";
import { startStack } from "../lib/stack.mjs";

export const KINDS = ["p2pkh", "p2sh-p2wpkh", "p2wpkh", "p2tr"];
const COMPAT_DATE = "2026-05-01";

/** The workerd CPU time (ms) one request costs: robust to the load of a shared machine, unlike wall time. */
async function timed(stack, url) {
  const before = stack.cpuMs();
  const res = await fetch(url);
  const body = await res.json().catch(() => ({}));
  const ms = stack.cpuMs() - before;
  if (!res.ok || body.ok !== body.n) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return ms;
}

async function best(stack, url, tries) {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < tries; i++) min = Math.min(min, await timed(stack, url));
  return min;
}

/**
 * ops/s of each url (a query without n). A calibrating request sizes n to about `ms` per request (and warms up: JIT,
 * the curve's set-up); then `tries` rounds go over every url in turn, so load drifting during the run touches the
 * compared figures alike. ops/s = n / (best n-loop request − best n=0 request).
 */
async function rates(stack, urls, { ms, tries }) {
  const runs = [];
  for (const url of urls) {
    const probe = await timed(stack, `${url}&n=20`);
    const n = Math.max(20, Math.round((20 * ms) / Math.max(probe, 1)));
    runs.push({ url, n, full: Number.POSITIVE_INFINITY, empty: Number.POSITIVE_INFINITY });
  }
  for (let i = 0; i < tries; i++) {
    for (const run of runs) {
      run.full = Math.min(run.full, await timed(stack, `${run.url}&n=${run.n}`));
      run.empty = Math.min(run.empty, await timed(stack, `${run.url}&n=0`));
    }
  }
  return runs.map((run) => (run.n * 1000) / Math.max(run.full - run.empty, 1e-3));
}

/** One ECDSA, one BIP-340 and one recoverable signature over one digest, hex (the floors' inputs). */
function floorInputs() {
  const key = secp256k1.utils.randomSecretKey();
  const digest = crypto.getRandomValues(new Uint8Array(32));
  const recoverable = secp256k1.sign(digest, key, { prehash: false, format: "recovered" });
  return {
    digest: hex.encode(digest),
    ecdsa: hex.encode(secp256k1.sign(digest, key, { prehash: false })),
    ecdsaKey: hex.encode(secp256k1.getPublicKey(key, true)),
    schnorr: hex.encode(schnorr.sign(digest, key)),
    schnorrKey: hex.encode(schnorr.getPublicKey(key)),
    recoverable: hex.encode(recoverable),
  };
}

function workers(bundles, signatures) {
  const SIGNATURES = JSON.stringify(signatures);
  const project = {
    name: "project",
    modules: bundles.bip322.modules,
    modulesRoot: bundles.bip322.dir,
    compatibilityDate: COMPAT_DATE,
    bindings: { SIGNATURES, FLOOR: JSON.stringify(floorInputs()) },
  };
  const reference = {
    name: "bip322js",
    modules: true,
    scriptPath: bundles.bip322js.script,
    modulesRoot: bundles.bip322js.dir,
    compatibilityDate: COMPAT_DATE,
    compatibilityFlags: ["nodejs_compat"],
    bindings: { SIGNATURES },
  };
  const warmed = {
    ...project,
    name: "warmed",
    modules: bundles.bip322warm.modules,
    modulesRoot: bundles.bip322warm.dir,
  };
  return { project, warmed, reference };
}

/**
 * The first verify of a fresh isolate (new workerd), minus an empty request of the same warm route, ms; and the
 * workerd CPU its start took (global scope included), up to its first request.
 */
async function firstVerify(worker, path, tries) {
  const stack = await startStack([worker], [worker.name]);
  try {
    const start = stack.cpuMs();
    const base = stack.urls[worker.name];
    await timed(stack, `${base}${path}&n=0`); // the isolate's first request: HTTP path and handler, no curve
    const first = await timed(stack, `${base}${path}&n=1`);
    return { first: first - (await best(stack, `${base}${path}&n=0`, tries)), start };
  } finally {
    await stack.dispose().catch(() => {});
  }
}

const fmtMs = (value) => `${value.toFixed(1)} ms`;

export async function bip322({ fx, bundles, ms, tries, coldRuns, log }) {
  // 4 signatures per type, each set signed by bip322-js in Node with fresh keys.
  const signatures = Array.from({ length: 4 }, () => fx.signedAttestations().slice(0, 4)).flat();
  const { project, warmed, reference } = workers(bundles, signatures);
  const stack = await startStack([project, reference], ["project", "bip322js"]);
  const rows = [];
  const floor = {};
  try {
    const { project: p, bip322js: r } = stack.urls;
    const urls = KINDS.flatMap((kind) => [
      `${p}/verify?curve=wasm&kind=${kind}`,
      `${p}/verify?curve=noble&kind=${kind}`,
      `${r}/verify?kind=${kind}`,
      `${p}/verify?curve=wasm&kind=${kind}&keys=kept`,
    ]);
    const ops = ["ecdsa", "schnorr", "recover"].flatMap((op) => ["wasm", "noble"].map((curve) => `${curve} ${op}`));
    const measured = await rates(
      stack,
      [...urls, ...ops.map((name) => `${p}/floor?curve=${name.split(" ")[0]}&op=${name.split(" ")[1]}`)],
      { ms, tries },
    );
    KINDS.forEach((kind, i) => {
      const [wasm, noble, reference, wasmKept] = measured.slice(4 * i, 4 * i + 4);
      log(
        `bip322 ${kind}: wasm ${wasm.toFixed(0)}/s (key seen before ${wasmKept.toFixed(0)}/s), noble ${noble.toFixed(0)}/s, bip322-js ${reference.toFixed(0)}/s`,
      );
      rows.push({ kind, wasm, noble, reference, wasmKept });
    });
    ops.forEach((name, i) => {
      floor[name] = measured[urls.length + i];
    });
    log(`bip322 floors: ${ops.map((name) => `${name} ${floor[name].toFixed(0)}/s`).join(", ")}`);
  } finally {
    await stack.dispose().catch(() => {});
  }
  const cold = [];
  for (const kind of KINDS) {
    // wasm: as the workers run (warmed at start); unwarmed: the same bundle without the warm-up.
    const runs = {
      wasm: [warmed, `/verify?curve=wasm&kind=${kind}`],
      unwarmed: [project, `/verify?curve=wasm&kind=${kind}`],
      noble: [project, `/verify?curve=noble&kind=${kind}`],
      reference: [reference, `/verify?kind=${kind}`],
    };
    const sides = Object.fromEntries(Object.keys(runs).map((side) => [side, []]));
    const starts = { wasm: [], unwarmed: [] };
    for (let i = 0; i < coldRuns; i++) {
      for (const [side, [worker, path]] of Object.entries(runs)) {
        const { first, start } = await firstVerify(worker, path, tries);
        sides[side].push(first);
        starts[side]?.push(start);
      }
    }
    const row = { kind, ...Object.fromEntries(Object.entries(sides).map(([side, xs]) => [side, medianBy(xs)])) };
    row.startWarmed = medianBy(starts.wasm);
    row.startUnwarmed = medianBy(starts.unwarmed);
    log(
      `bip322 first verify ${kind}: wasm ${fmtMs(row.wasm)} (unwarmed ${fmtMs(row.unwarmed)}), noble ${fmtMs(row.noble)}, bip322-js ${fmtMs(row.reference)}; start ${fmtMs(row.startWarmed)} warmed, ${fmtMs(row.startUnwarmed)} not`,
    );
    cold.push(row);
  }
  return { rows, floor, cold };
}
