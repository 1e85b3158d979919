// The baselines: a bare Hono worker on the same D1 database as the fleet, doing only the floor of each measured
// route (one insert, a constant answer, one select), and a fan-out that only POSTs. No validation, no auth, no
// rate limit: what the runtime and the database cost by themselves. Beside them, the floors of two rows (what the
// spec requires of the route and nothing else): a registration's writes with and without its signature check, and
// the constant answered in a check hit's shape.
import { bytesToHex } from "@noble/hashes/utils.js";
import { type Context, Hono } from "hono";
import { verifyMessageSignature } from "../../shared/bitcoin/bip322";
import { warmVerifier } from "../../shared/bitcoin/warm-up";
import { PUBLIC_CORS_HEADERS } from "../../shared/http/public-cors";
import { requestLine } from "../../shared/http/request-line";
import { ANSWER_SECURITY_HEADERS } from "../../shared/http/security-headers";
import { rateLimitPolicy, rateLimitValue } from "../../shared/rate-limit/middleware";
import { READ_RULE } from "../../shared/rate-limit/rules";
import { leafDigest } from "../../shared/tlog/leaf-digest";
import { CHECK_CACHE_SECONDS } from "../../workers/verify/src/check-cache";

type Env = { Bindings: { DB: D1Database } };
const app = new Hono<Env>();

// As the product's workers do at their start (shared/bitcoin/warm-up.ts), for the signed floor below.
warmVerifier();

/** Same shape and size as a /api/check answer. */
const CHECK_ANSWER = {
  ok: true,
  sats: 150000,
  days: 40,
  score: 71.3,
  attestation_id: "0".repeat(64),
  address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
  identities: [{ protocol: "github", identifier: "bench" }],
  network: "mainnet",
  block_height: 900000,
  block_hash: "0".repeat(64),
};

// The same single insert as a registration's envelope row (without the outbox row, validation or signature).
app.post("/insert", async (c) => {
  const input = await c.req.json<{ project_id: string; envelope: Record<string, unknown> }>();
  const e = input.envelope as Record<string, string> & { agent: { address: string }; content: Record<string, string> };
  await c.env.DB.prepare(
    "INSERT INTO envelopes (project_id, id, kind, body, agent_address, signer_address, delegation_id, scope_exercised, signed_at, created_at) VALUES (?, ?, 'action', ?, ?, ?, ?, ?, ?, ?)",
  )
    .bind(
      input.project_id,
      e.id,
      JSON.stringify(e),
      e.agent?.address ?? null,
      e.agent?.address ?? null,
      e.delegation_id ?? null,
      e.scope_exercised ?? null,
      e.signed_at ?? null,
      Date.now(),
    )
    .run();
  return c.json({ ok: true, id: e.id }, 201);
});

interface GuardedInput {
  project_id: string;
  guard: { project_id: string; token_id: string; parent_id: string };
  envelope: Record<string, unknown> & {
    id: string;
    agent: { address: string };
    sig: { pubkey: string; value: string };
    content?: { hash?: string; length?: number; mime?: string };
  };
}

/**
 * The writes of a registration and nothing else (an experiment's floor, not a row's baseline): the product's
 * statement in plain SQL, one round trip. The envelope is inserted only while the token is live, the project
 * writable, the parent delegation active and the envelope new; the row is its log leaf (its hash, which SQLite
 * cannot compute, and the project's next leaf index, d1-migrations/0021), and it carries an event id, so the
 * database's trigger writes its event when the project has an active endpoint. No body validation, no signature, no
 * limiter: what D1 costs for the route's own writes.
 */
async function insertGuarded(c: Context<Env>, input: GuardedInput) {
  const e = input.envelope as GuardedInput["envelope"] & Record<string, string | undefined>;
  const now = Date.now();
  const eventId = `evt_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
  const g = input.guard;
  const body = JSON.stringify(e);
  const hash = bytesToHex(await leafDigest(new TextEncoder().encode(body)));
  const { results } = await c.env.DB.prepare(
    `INSERT INTO envelopes (project_id, id, kind, body, agent_address, signer_address, delegation_id, scope_exercised,
       content_hash, content_length, content_mime, signed_at, created_at, event_id, leaf_hash, leaf_idx)
     SELECT ?, ?, 'action', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
       (select coalesce(max(leaf_idx) + 1, 0) from envelopes where project_id = ?)
     WHERE exists (select 1 from api_tokens join members on members.project_id = api_tokens.project_id
         and members.address = api_tokens.created_by and members.role = 'owner'
         where api_tokens.id = ? and api_tokens.revoked_at is null and api_tokens.expires_at > ?)
       AND exists (select 1 from projects where id = ? and archived_at is null)
       AND exists (select 1 from envelopes where project_id = ? and id = ? and kind = 'delegation' and status = 'active')
       AND not exists (select 1 from envelopes where project_id = ? and id = ?)
     RETURNING seq, leaf_idx, exists (select 1 from webhook_endpoints where project_id = ? and active = 1) as pending`,
  )
    .bind(
      input.project_id,
      e.id,
      body,
      e.agent?.address ?? null,
      e.agent?.address ?? null,
      e.delegation_id ?? null,
      e.scope_exercised ?? null,
      e.content?.hash ?? null,
      e.content?.length ?? null,
      e.content?.mime ?? null,
      e.signed_at ?? null,
      now,
      eventId,
      hash,
      input.project_id,
      g.token_id,
      now,
      g.project_id,
      g.project_id,
      g.parent_id,
      input.project_id,
      e.id,
      input.project_id,
    )
    .all();
  if (!results.length) return c.json({ ok: false, reason: "not_inserted" }, 409);
  return c.json({ ok: true, id: e.id }, 201);
}

app.post("/insert-guarded", async (c) => insertGuarded(c, await c.req.json<GuardedInput>()));

/**
 * The same writes after the one check the spec puts before them that costs CPU: the envelope's BIP-322 signature
 * over its id, by the product's verifier. What a registration cannot do without, beside the one insert.
 */
app.post("/insert-guarded-signed", async (c) => {
  const input = await c.req.json<GuardedInput>();
  const { id, sig } = input.envelope;
  const verdict = verifyMessageSignature({ address: sig.pubkey, message: id, signature: sig.value });
  if (!verdict.ok) return c.json({ ok: false, reason: verdict.reason }, 400);
  return insertGuarded(c, input);
});

app.get("/constant", (c) => c.json(CHECK_ANSWER));

/**
 * What a cached /api/check answer carries (the verify worker's check-hit.ts), in one Headers object made once: the
 * hit copies such an object into each Response, the cheapest way the runtime offers (bench/README.md).
 */
const HIT_HEADERS = new Headers([
  ["Content-Type", "application/json"],
  ...ANSWER_SECURITY_HEADERS,
  ...PUBLIC_CORS_HEADERS,
  ["Cache-Control", `public, max-age=${CHECK_CACHE_SECONDS}`],
  ["X-Cache", "HIT"],
  ["RateLimit-Policy", rateLimitPolicy(READ_RULE)],
]);
let answered = 0;

/**
 * The constant as a check hit must answer it (the floor of the check row, not its baseline): the hit's headers, a
 * RateLimit header and a request id of its own, and one JSON request line through console.log, built by the
 * product's own functions as it writes one per request (README "Logs"). No cache, no limiter: what the answer's
 * required shape costs the runtime.
 */
app.get("/constant-as-hit", () => {
  const startedAt = Date.now();
  const id = crypto.randomUUID();
  answered += 1;
  const answer = new Response(JSON.stringify(CHECK_ANSWER), { headers: HIT_HEADERS });
  const admission = { remaining: READ_RULE.capacity - 1 - (answered % 50), resetMs: READ_RULE.windowMs };
  answer.headers.set("RateLimit", rateLimitValue(READ_RULE, admission));
  answer.headers.set("X-Request-Id", id);
  const facts = { id, worker: "verify", method: "GET", route: "/constant-as-hit", status: 200 } as const;
  console.log(JSON.stringify(requestLine({ ...facts, startedAt, endedAt: Date.now() })));
  return answer;
});

// The same rows as the audit export, in one select, written out as ndjson.
app.get("/select", async (c) => {
  const { results } = await c.env.DB.prepare(
    "SELECT kind, id, body FROM envelopes WHERE project_id = ? ORDER BY kind, seq",
  )
    .bind(c.req.query("project_id") ?? "")
    .all<{ kind: string; id: string; body: string }>();
  const lines = results.map((r) => `{"kind":"${r.kind}","id":"${r.id}","envelope":${r.body}}\n`);
  return c.body(lines.join(""), 200, { "content-type": "application/x-ndjson" });
});

// POSTs each body to each URL, `parallel` at a time: the floor of a webhook fan-out (no signing, no state).
app.post("/fanout", async (c) => {
  const { urls, bodies, parallel } = await c.req.json<{ urls: string[]; bodies: string[]; parallel: number }>();
  const jobs = urls.flatMap((url) => bodies.map((body) => ({ url, body })));
  let next = 0;
  let ok = 0;
  const lane = async () => {
    for (let job = jobs[next++]; job; job = jobs[next++]) {
      const res = await fetch(job.url, {
        method: "POST",
        body: job.body,
        headers: { "content-type": "application/json" },
      });
      await res.body?.cancel();
      if (res.ok) ok += 1;
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return c.json({ ok, sent: jobs.length });
});

export default app;
