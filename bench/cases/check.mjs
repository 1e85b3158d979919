// `/api/check` served from its cache, on the verify bundle directly (auth's VERIFY forwarding is not in the path),
// against the bare worker's constant JSON. The cache is primed once from loopback upstreams (Esplora and a nostr
// relay, the test harness's fakes) with a bip322-js-signed, funded and published attestation; every measured
// answer must be a hit. The read limit (60/min per IP) is respected: each client address sends at most 50, and
// the clients take turns (a client's 50 back to back at 50 connections would stall every connection on that
// client's first lease call, one round trip per client, which no traffic of independent clients looks like).
// Rounds alternate the two sides (and the floor: the bare worker answering the hit's shape); the figure is the
// median round by its own ratio (bench/README.md).
import WebSocket from "ws";
import { startEsplora } from "../../test/harness/esplora-server.mjs";
import { attestationEvent } from "../../test/harness/nostr-event.mjs";
import { startRelay } from "../../test/harness/nostr-relay.mjs";
import { interleavedIp, load, loadWithCpu, medianBy } from "../lib/load.mjs";
import { profileWhile } from "../lib/profile.mjs";
import { benchWorker, productWorker, startStack } from "../lib/stack.mjs";

/** Reads each client address sends a round, under the read limit (60/min). */
export const PER_IP = 50;

async function publishAttestation(fx, esplora, relay) {
  const att = fx.signedAttestations().find((a) => a.kind === "p2wpkh");
  const tip = Number(await (await fetch(`${esplora.url}/blocks/tip/height`)).text());
  const utxo = {
    txid: "ab".repeat(32),
    vout: 0,
    value: 150_000,
    status: { confirmed: true, block_height: tip - 100, block_time: Math.floor(Date.now() / 1000) - 40 * 86400 },
  };
  await fetch(`${esplora.url}/__admin/address/${att.address}/utxo`, { method: "PUT", body: JSON.stringify([utxo]) });
  const envelope = fx.createAttestationEnvelope({
    message: att.message,
    signature: att.signature,
    scheme: "bip322",
    attestationId: await fx.attestationId(att.message),
  });
  const secretKey = crypto.getRandomValues(new Uint8Array(32));
  const event = attestationEvent(envelope, secretKey, att.identities);
  const socket = new WebSocket(relay.url);
  await new Promise((resolve, reject) => {
    socket.on("open", () => socket.send(JSON.stringify(["EVENT", event])));
    socket.on("message", resolve);
    socket.on("error", reject);
  });
  socket.close();
  return att.address;
}

/** One stack (the verify bundle given and the bare worker): primed, warmed, then both measured. */
async function measure({ fx, verify, bare, count, rounds, profile, floor, esplora, relay, log }) {
  const stack = await startStack(
    [productWorker("verify", verify, { ESPLORA_URL: esplora.url, NOSTR_RELAYS: relay.url }), benchWorker("bare", bare)],
    ["verify", "bare"],
  );
  try {
    const address = await publishAttestation(fx, esplora, relay);
    const path = `/api/check?addr=${address}&min_sats=100000&min_days=30`;
    const requests = (p, base) =>
      Array.from({ length: count }, (_, i) => ({
        method: "GET",
        path: p,
        headers: { "cf-connecting-ip": interleavedIp(base, i, count, PER_IP) },
      }));
    const prime = async () => {
      const first = await fetch(`${stack.urls.verify}${path}`, { headers: { "cf-connecting-ip": "192.0.2.1" } });
      const body = await first.json();
      if (first.status !== 200 || body.ok !== true) throw new Error(`check did not pass: ${JSON.stringify(body)}`);
      const again = await fetch(`${stack.urls.verify}${path}`, { headers: { "cf-connecting-ip": "192.0.2.2" } });
      await again.text();
      if (again.headers.get("x-cache") !== "HIT") throw new Error("check answer was not served from the cache");
    };
    await prime();
    await load(stack.urls.verify, requests(path, 0).slice(0, 500), { connections: 10 });
    await load(stack.urls.bare, requests("/constant", 0).slice(0, 500), { connections: 10 });
    const cpuPerAnswer = (url, list) => loadWithCpu(stack, url, list, { connections: 50 });
    // Rounds take turns between the two sides, each round with clients never seen before (every client's first
    // lease is in every round), and each side's best round is its figure: on this shared virtual machine the same
    // bundle's rate moved by a third from one run to the next, more than the differences measured.
    const runs = [];
    for (let round = 0; round < rounds; round++) {
      await prime(); // the cache keeps an answer 60 s: each round is measured right after priming
      const base = 1_000_000 * (round + 1);
      const project = await cpuPerAnswer(stack.urls.verify, requests(path, base));
      const bare = await cpuPerAnswer(stack.urls.bare, requests("/constant", base));
      // The floor: the bare worker answering with the hit's headers and request line (bare.ts), after the two.
      const shaped = floor ? await cpuPerAnswer(stack.urls.bare, requests("/constant-as-hit", base)) : undefined;
      runs.push({ project, bare, ...(shaped && { floor: shaped }) });
      const side = (r) => `${Math.round(r.okPerSecond)}/s (${Math.round(r.cpuUs)} µs)`;
      log(`check round ${round + 1}: ${side(project)} against ${side(bare)}${shaped ? `, floor ${side(shaped)}` : ""}`);
    }
    // The figure: the median round, by its own ratio (the product's rate over the bare's measured right after it):
    // two figures taken seconds apart, where each side's best round (shown beside it) pairs the product's best
    // moment with the bare worker's, often minutes apart in machine state (issue 31, item 7).
    const { project, bare: baseline } = medianBy(runs, (run) => run.project.okPerSecond / run.bare.okPerSecond);
    const best = (side) => runs.map((run) => run[side]).reduce((a, b) => (b.okPerSecond > a.okPerSecond ? b : a));
    const probe = await fetch(`${stack.urls.verify}${path}`, { headers: { "cf-connecting-ip": "192.0.2.3" } });
    await probe.text();
    const stillHit = probe.headers.get("x-cache") === "HIT";
    // The CPU profile: after the rounds, in a fresh workerd on the same storage with the inspector on, of one more
    // round's load (its own new clients). The rounds ran without the inspector (stack.mjs, restart).
    let cpu;
    if (profile) {
      await stack.restart({ inspect: true });
      await prime();
      const list = requests(path, 1_000_000 * (rounds + 1));
      cpu = await profileWhile("verify", () => load(stack.urls.verify, list, { connections: 50 }));
    }
    return { project, bare: baseline, best: { project: best("project"), bare: best("bare") }, runs, stillHit, cpu };
  } finally {
    await stack.dispose().catch(() => {});
  }
}

/**
 * The product's figure, then each experiment (a variant of the verify bundle, `buildVariant`) in a stack of its
 * own against its own bare run: what a part of the path costs is the difference it makes.
 */
export async function check({ fx, bundles, count, rounds, log, profile = false, experiments = [] }) {
  const esplora = await startEsplora({ port: 0 });
  const relay = await startRelay({ port: 0 });
  const common = { fx, bare: bundles.bare, count, rounds, esplora, relay, log };
  try {
    const result = await measure({ ...common, verify: bundles.verify, profile, floor: true });
    log(`check: project ${JSON.stringify(result.project)} bare ${JSON.stringify(result.bare)}`);
    const tried = [];
    for (const { name, bundle } of experiments) {
      const r = await measure({ ...common, verify: bundle, profile: false, floor: false });
      log(`check experiment ${name}: ${JSON.stringify(r.project)} bare ${JSON.stringify(r.bare)}`);
      tried.push({ name, ...r });
    }
    return { ...result, experiments: tried };
  } finally {
    await esplora.close();
    await relay.close();
  }
}
