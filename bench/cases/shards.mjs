// The registry in 1, 2 and 4 databases (issue 31, item 5): the same registration load (POST /api/actions, closed
// loop, 50 connections, projects spread round robin over the shards) against a fleet bound to that many registry
// databases, with the auth host's database apart; beside it, at a fixed rate, cookie requests whose caller the
// fleet resolves from the session row in that auth database (the sign-in state a registration must not slow).
// The session checks also run alone first, so their p99 beside the registrations has a baseline.
//
// Local workerd runs every worker, every Durable Object and every local D1 database on one JavaScript thread, so
// shards here show their overhead (the fan-out, the sessions), not Cloudflare's gain (a D1 database per shard, each
// its own single writer on its own machine): docs/scale.md turns the measured per-database figures into that model.

import { interleavedIp, loadWithCpu, openLoad } from "../lib/load.mjs";
import { authStub, benchSecrets, migrate, productWorker, startStack } from "../lib/stack.mjs";
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

/** One stack: the fleet bound to `shards` registry databases and its own auth database. */
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
  const stack = await startStack([fleet, authStub], ["fleet"]);
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
export async function shardsBench({ fx, bundles, shardCounts, count, checkRate, checkSeconds, log }) {
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
      // The session checks alone, at the rate they keep beside the registrations (about as long as these last).
      const checks = Math.round(checkRate * checkSeconds);
      const alone = await openLoad(url, sessionChecks(cookie, checks, ipBase), { rate: checkRate });
      ipBase += checks;
      // Registrations, with the session checks beside them for as long as they last (about the same time).
      const measured = signed.slice(warmCount);
      const [registrations, beside] = await Promise.all([
        loadWithCpu(stack, url, requestsFor(measured, { ipBase }), { connections: CONNECTIONS, expect: 201 }),
        openLoad(url, sessionChecks(cookie, checks, ipBase + count), { rate: checkRate }),
      ]);
      ipBase += count + checks;
      log(
        `shards ${shards}: registrations ${JSON.stringify(registrations)} checks alone ${JSON.stringify(alone)} beside ${JSON.stringify(beside)}`,
      );
      rows.push({ shards, registrations, alone, beside });
    } finally {
      await stack.dispose().catch(() => {});
    }
  }
  return rows;
}
