// Each project's registrations as a transparency log (issue 18; docs/log.md): the latest checkpoint as a C2SP
// signed note by the fleet's audit key, an inclusion proof for an envelope, and a consistency proof between two
// sizes. Project members read them, at the primary (shared/db/read-replicas.ts: a checkpoint and the proof asked for
// next never see two sizes); the verifier key is public. Each answer costs a fixed number of D1 queries (issue 26).
import { createRoute, z } from "@hono/zod-openapi";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base64, base64urlnopad } from "@scure/base";
import type { Context } from "hono";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { checkpointText } from "../../../../shared/tlog/checkpoint";
import { consistencyProof, inclusionProof, rootOf } from "../../../../shared/tlog/merkle";
import { type NoteKey, signNote, verifierKey } from "../../../../shared/tlog/note";
import { routeGroup } from "../../../../shared/validate";
import { projectAccess } from "../access";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { leafIndex, logHashes, logIds } from "../registry/log";
import { ProjectId } from "../schemas";

export const logRoutes = routeGroup<FleetEnv>();

interface LogKey extends NoteKey {
  secret: Uint8Array;
  kid: string;
}

/** The fleet's audit key (FLEET_SIGNING_KEY, an Ed25519 private JWK), named for signed notes by the fleet's host. */
function logKey(c: Context<FleetEnv>): LogKey {
  const unset = (detail: string) => new AppError("signing_key_unset", { detail });
  const secret = c.env.FLEET_SIGNING_KEY;
  if (!secret) throw unset("FLEET_SIGNING_KEY is not set");
  let jwk: { kty?: unknown; crv?: unknown; d?: unknown; kid?: unknown };
  try {
    jwk = JSON.parse(secret);
  } catch {
    throw unset("FLEET_SIGNING_KEY is not JSON");
  }
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.d !== "string" || typeof jwk.kid !== "string") {
    throw unset("FLEET_SIGNING_KEY is not an Ed25519 private JWK");
  }
  const seed = base64urlnopad.decode(jwk.d);
  const host = new URL(c.env.FLEET_ORIGIN ?? c.req.url).host;
  return { name: host, secret: seed, publicKey: ed25519.getPublicKey(seed), kid: jwk.kid };
}

const originOf = (key: LogKey, projectId: string) => `${key.name}/log/${projectId}`;
const b64 = (hashes: Uint8Array[]) => hashes.map((h) => base64.encode(h));
const Size = z.coerce.number().int().min(1);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/log/key",
    summary: "The verifier key of the projects' checkpoints (C2SP signed-note), and the JWKS kid of the same key",
    middleware: [routeLimit("log-key")],
    responses: {
      200: json(z.object({ ok: z.literal(true), verifier_key: z.string(), kid: z.string() }), "The key"),
      ...errorResponses("signing_key_unset"),
    },
  }),
  (c) => {
    const key = logKey(c);
    return c.json({ ok: true as const, verifier_key: verifierKey(key), kid: key.kid }, 200);
  },
);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/log/checkpoint",
    summary: "The project's latest checkpoint (C2SP tlog-checkpoint), signed by the fleet's audit key",
    middleware: [routeLimit("log-checkpoint")],
    request: { query: z.strictObject({ project_id: ProjectId }) },
    responses: {
      200: { description: "The signed note, text/plain", content: { "text/plain": { schema: z.string() } } },
      ...errorResponses("invalid_query", "unauthenticated", "not_found", "signing_key_unset"),
    },
  }),
  async (c) => {
    const { project_id } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    const key = logKey(c);
    const hashes = await logHashes(access.db, project_id);
    const text = checkpointText({
      origin: originOf(key, project_id),
      size: hashes.length,
      root: rootOf(hashes),
      extensions: [],
    });
    return c.text(signNote(text, key.name, key.secret), 200, { "Cache-Control": "no-store" });
  },
);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/log/leaves",
    summary: "The envelope ids of the project's log in leaf order (with a CSV export and a checkpoint: verify-bundle)",
    middleware: [routeLimit("log-leaves")],
    request: { query: z.strictObject({ project_id: ProjectId }) },
    responses: {
      200: json(z.object({ ok: z.literal(true), size: z.number(), ids: z.array(z.string()) }), "The leaf order"),
      ...errorResponses("invalid_query", "unauthenticated", "not_found"),
    },
  }),
  async (c) => {
    const { project_id } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    const ids = await logIds(access.db, project_id);
    return c.json({ ok: true as const, size: ids.length, ids }, 200);
  },
);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/log/inclusion",
    summary: "An envelope's leaf index and its inclusion proof in the tree of `size` (default: the latest)",
    middleware: [routeLimit("log-proof")],
    request: {
      query: z.strictObject({ project_id: ProjectId, id: z.string().regex(/^[0-9a-f]{64}$/), size: Size.optional() }),
    },
    responses: {
      200: json(
        z.object({ ok: z.literal(true), index: z.number(), size: z.number(), proof: z.array(z.string()) }),
        "The proof (base64 hashes, RFC 9162 order)",
      ),
      ...errorResponses("invalid_query", "unauthenticated", "not_found"),
    },
  }),
  async (c) => {
    const { project_id, id, size } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    const index = await leafIndex(access.db, project_id, id);
    const hashes = await logHashes(access.db, project_id);
    const n = size ?? hashes.length;
    if (n > hashes.length) throw new AppError("invalid_query", { detail: `size: the log holds ${hashes.length}` });
    if (index === undefined || index >= n) {
      throw new AppError("not_found", { detail: `${id} is not in the first ${n} leaves` });
    }
    const proof = inclusionProof(index, hashes.slice(0, n));
    return c.json({ ok: true as const, index, size: n, proof: b64(proof) }, 200);
  },
);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/log/consistency",
    summary: "A proof that the tree of `first` leaves is a prefix of the tree of `second` (default: the latest)",
    middleware: [routeLimit("log-proof")],
    request: { query: z.strictObject({ project_id: ProjectId, first: Size, second: Size.optional() }) },
    responses: {
      200: json(
        z.object({ ok: z.literal(true), first: z.number(), second: z.number(), proof: z.array(z.string()) }),
        "The proof (base64 hashes, RFC 9162 order)",
      ),
      ...errorResponses("invalid_query", "unauthenticated", "not_found"),
    },
  }),
  async (c) => {
    const { project_id, first, second } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    const hashes = await logHashes(access.db, project_id);
    const n = second ?? hashes.length;
    if (first > n || n > hashes.length) {
      throw new AppError("invalid_query", { detail: `need 1 ≤ first ≤ second ≤ ${hashes.length}` });
    }
    const proof = consistencyProof(first, hashes.slice(0, n));
    return c.json({ ok: true as const, first, second: n, proof: b64(proof) }, 200);
  },
);
