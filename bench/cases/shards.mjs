// The registry in 1, 2 and 4 databases (issue 31, item 5): the same registration load (POST /api/actions, closed
// loop, 50 connections, projects spread round robin over the shards) against a fleet bound to that many registry
// databases, with the auth host's database apart and the auth worker itself beside it. At fixed rates beside the
// registrations: BIP-322 sign-ins on the auth worker (a challenge, then the signed sign-in: the sign-in state a
// registration must not slow), and cookie requests whose caller the fleet reads from the session row. Both also run
// alone first, so their p99 beside the registrations has a baseline.
//
// Local workerd runs every worker, every Durable Object and every local D1 database on one JavaScript thread, so
// shards here show their overhead (the fan-out, the sessions), not Cloudflare's gain (a D1 database per shard, each
// its own single writer on its own machine): docs/scale.md turns the measured per-database figures into that model.

import { interleavedIp, loadWithCpu, openLoad, percentile } from "../lib/load.mjs";
import { benchSecrets, migrate, productWorker, startStack } from "../lib/stack.mjs";
import { benchProjects, requestsFor, signActions } from "./registration.mjs";

const PER_PROJECT = 400;
const CONNECTIONS = 50;
const ISSUER = "http://localhost:8787";
const dbId = (n) => `00000000-0000-0000-0000-${n.toString(16).padStart(12, "0")}`;
const AUTH_DB_ID = "00000000-0000-0000-0000-0000000000a1";

/** An account and a live session row in the auth database, and the cookie the fleet accepts for it. */
async function session(fx, authDb, signingJwk) {
  const now = Date.now();
  const owner = fx.newWallet("p2wpkh");
  const id = crypto.randomUUID().replaceAll("-", "");
  const jti = crypto.randomUUID();
  await authDb.batch([
    authDb
      .prepare(
        "INSERT INTO accounts (id, did_oc, primary_btc, display_identity_kind, created_at, updated_at) VALUES (?, ?, ?, 'btc', ?, ?)",
      )
      .bind(id, `did:oc:${id}`, owner.address, now, now),
    authDb
      .prepare(
        "INSERT INTO sessions (id, token_hash, account_id, roster_id, authenticated_at, created_at, expires_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .bind(crypto.randomUUID(), await fx.sha256Hex(jti), id, crypto.randomUUID(), now, now, now + 86_400_000, now),
  ]);
  const key = await fx.loadSigningKey(JSON.stringify(signingJwk));
  return fx.signSessionToken(
    {
      sub: id,
      did_oc: `did:oc:${id}`,
      jti,
      display_name: null,
      primary_btc: owner.address,
      display_identity: { kind: "btc", value: owner.address },
      step_up_at: null,
      sudo_at: null,
    },
    key,
    { issuer: ISSUER, now, expiresAt: now + 86_400_000 },
  );
}

/** `count` session checks: the cookie's caller resolved, then a constant answer (GET /api/webhook-events). */
function sessionChecks(cookie, count, ipBase) {
  return Array.from({ length: count }, (_, i) => ({
    method: "GET",
    path: "/api/webhook-events",
    headers: { cookie: `oc_session=${cookie}`, "cf-connecting-ip": interleavedIp(ipBase, i, count, 20) },
  }));
}

/**
 * `count` BIP-322 sign-ins at `rate` a second, open loop, each from a fresh wallet and address: the challenge, the
 * signature made here, the sign-in. Latency is the two requests' together (the signing excluded); ok counts 200s.
 */
async function signIns(fx, url, { count, rate, ipBase }) {
  const latencies = [];
  let ok = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const wait = start + (i * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const wallet = fx.newWallet("p2wpkh");
      const headers = { "cf-connecting-ip": interleavedIp(ipBase, i, count, 1), "sec-fetch-site": "same-origin" };
      const query = new URLSearchParams({ addr: wallet.address, audience: ISSUER, purpose: "login" });
      const t0 = performance.now();
      const challenged = await fetch(`${url}/api/challenge?${query}`, { headers });
      const { message, nonce } = await challenged.json();
      const t1 = performance.now();
      const signature = wallet.sign(message);
      const t2 = performance.now();
      const res = await fetch(`${url}/api/auth/signin`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ address: wallet.address, message, signature, nonce }),
      });
      await res.arrayBuffer();
      if (res.status === 200) ok += 1;
      latencies.push(t1 - t0 + (performance.now() - t2));
    }),
  );
  latencies.sort((x, y) => x - y);
  return { ok, sent: count, p50: Math.round(percentile(latencies, 0.5)), p99: Math.round(percentile(latencies, 0.99)) };
}

/** The auth worker's VERIFY binding: a sign-in never calls it. */
const verifyStub = {
  name: "verify",
  modules: true,
  script: "export default { fetch: () => new Response('verify stub', { status: 503 }) }",
  compatibilityDate: "2026-05-01",
};

/** One stack: the fleet bound to `shards` registry databases and its own auth database, and the auth worker. */
async function stackWith(bundles, shards) {
  const secrets = benchSecrets();
  const bindings = ["DB", ...Array.from({ length: shards - 1 }, (_, i) => `REGISTRY_${i + 1}`)];
  const fleet = {
    ...productWorker("fleet", bundles.fleet, {
      FLEET_SIGNING_KEY: secrets.FLEET_SIGNING_KEY,
      AUTH_PUBLIC_KEYS: secrets.AUTH_PUBLIC_KEYS,
      WEBHOOK_MASTER_KEY: secrets.WEBHOOK_MASTER_KEY,
      ...(shards > 1 && { REGISTRY_SHARDS: bindings.join(", ") }),
    }),
    d1Databases: {
      AUTH_DB: AUTH_DB_ID,
      ...Object.fromEntries(bindings.map((binding, i) => [binding, dbId(i + 1)])),
    },
  };
  // The auth worker: its sign-in state in the fleet's AUTH_DB, its family counts on the first shard.
  const auth = {
    ...productWorker("auth", bundles.auth, { AUTH_SIGNING_KEY: secrets.AUTH_SIGNING_KEY }),
    d1Databases: { DB: AUTH_DB_ID, REGISTRY_DB: dbId(1) },
  };
  const stack = await startStack([fleet, auth, verifyStub], ["fleet", "auth"]);
  const dbs = [];
  for (const binding of bindings) {
    const db = await stack.mf.getD1Database(binding, "fleet");
    await migrate(db);
    dbs.push(db);
  }
  const authDb = await stack.mf.getD1Database("AUTH_DB", "fleet");
  await migrate(authDb);
  return { stack, dbs, authDb, secrets };
}

/**
 * For each shard count: registrations/s (and p50/p99, CPU per registration) with the session checks beside them,
 * and the session checks' p50/p99 alone and beside.
 */
export async function shardsBench({ fx, bundles, shardCounts, count, checkRate, signInRate, checkSeconds, log }) {
  const rows = [];
  let ipBase = 50_000_000;
  for (const shards of shardCounts) {
    const { stack, dbs, authDb, secrets } = await stackWith(bundles, shards);
    try {
      const warmCount = 200;
      const nProjects = Math.max(shards * 2, Math.ceil((count + warmCount) / PER_PROJECT));
      const projects = await benchProjects({ fx, db: dbs, fleetUrl: stack.urls.fleet, count: nProjects });
      const signed = await signActions(fx, projects, count + warmCount);
      const cookie = await session(fx, authDb, secrets.signingJwk);
      const url = stack.urls.fleet;
      await loadWithCpu(stack, url, requestsFor(signed.slice(0, warmCount), { ipBase }), {
        connections: 10,
        expect: 201,
      });
      ipBase += warmCount;
      // Sign-ins and session checks alone, at the rates they keep beside the registrations (about as long as these).
      const checks = Math.round(checkRate * checkSeconds);
      const signing = { count: Math.round(signInRate * checkSeconds), rate: signInRate };
      await signIns(fx, stack.urls.auth, { ...signing, ipBase: ipBase + 10_000_000 }); // warms the auth isolate
      const [alone, signInsAlone] = await Promise.all([
        openLoad(url, sessionChecks(cookie, checks, ipBase), { rate: checkRate }),
        signIns(fx, stack.urls.auth, { ...signing, ipBase: ipBase + 20_000_000 }),
      ]);
      ipBase += checks;
      // Registrations, with both beside them for about as long as they last.
      const measured = signed.slice(warmCount);
      const [registrations, beside, signInsBeside] = await Promise.all([
        loadWithCpu(stack, url, requestsFor(measured, { ipBase }), { connections: CONNECTIONS, expect: 201 }),
        openLoad(url, sessionChecks(cookie, checks, ipBase + count), { rate: checkRate }),
        signIns(fx, stack.urls.auth, { ...signing, ipBase: ipBase + 30_000_000 }),
      ]);
      ipBase += count + checks;
      const facts = { registrations, alone, beside, signInsAlone, signInsBeside };
      log(`shards ${shards}: ${JSON.stringify(facts)}`);
      rows.push({ shards, ...facts });
    } finally {
      await stack.dispose().catch(() => {});
    }
  }
  return rows;
}
