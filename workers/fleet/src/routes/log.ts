// Each project's registrations as a transparency log (issues 18, 29; docs/log.md): the latest checkpoint (a C2SP
// signed note by the fleet's audit key, signed by the project's log integrator), an inclusion proof for an envelope
// and a consistency proof between two sizes, computed from the log's tiles: at most three queries and O(log n)
// stored hashes whatever the log's size. The log served is the integrated one (the checkpoint's size); a leaf
// registered since is in the next checkpoint (docs/log.md gives the bound). Project members read them, at the
// primary (shared/db/read-replicas.ts); the verifier key is public.
import { createRoute, z } from "@hono/zod-openapi";
import { base64 } from "@scure/base";
import type { Context } from "hono";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { checkpointText } from "../../../../shared/tlog/checkpoint";
import { type Hash, rootOf } from "../../../../shared/tlog/merkle";
import { verifierKey } from "../../../../shared/tlog/note";
import {
  consistencyFromTiles,
  inclusionFromTiles,
  tilesForConsistency,
  tilesForInclusion,
} from "../../../../shared/tlog/tile-proofs";
import { routeGroup } from "../../../../shared/validate";
import { type Access, projectAccess } from "../access";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { logKey, logOrigin, projectNoteKey } from "../log/key";
import { signCheckpoint } from "../log/sign";
import { readState, readTiles } from "../log/store";
import { configuredWitnesses } from "../log/witness/config";
import { readCosignedCheckpoint } from "../log/witness/served";
import { leafAndSize, logIds } from "../registry/log";
import { ProjectId } from "../schemas";

export const logRoutes = routeGroup<FleetEnv>();

const b64 = (hashes: Hash[]) => hashes.map((h) => base64.encode(h));
const Size = z.coerce.number().int().min(1);
const keyOf = (c: Context<FleetEnv>) => logKey(c.env, c.req.url);

/**
 * The project's latest checkpoint as served: the integrator's with its witnesses' cosignatures (log/witness/served.ts),
 * or before its first integration the empty log's.
 */
export async function currentCheckpoint(
  c: Context<FleetEnv>,
  access: Pick<Access, "db">,
  projectId: string,
): Promise<string> {
  const stored = await readCosignedCheckpoint(access.db, projectId, configuredWitnesses(c.env));
  if (stored !== undefined) return stored;
  const key = keyOf(c);
  const text = checkpointText({ origin: logOrigin(key, projectId), size: 0, root: rootOf([]), extensions: [] });
  return signCheckpoint(key, text);
}

/** The integrated size (0 before the first integration). */
const sizeOf = async (access: Access, projectId: string) => (await readState(access.db, projectId))?.size ?? 0;

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/log/key",
    summary:
      "The verifier key of a project's checkpoints (C2SP signed-note, named for the log's origin " +
      "`<host>/api/log/<project_id>`), and the JWKS kid of the same key; without `project_id`, the key named for " +
      "the fleet's host, as checkpoints signed before the logs were named by their origin use",
    middleware: [routeLimit("log-key")],
    request: { query: z.strictObject({ project_id: ProjectId.optional() }) },
    responses: {
      200: json(
        z.object({ ok: z.literal(true), verifier_key: z.string(), kid: z.string(), origin: z.string().optional() }),
        "The key",
      ),
      ...errorResponses("invalid_query", "signing_key_unset"),
    },
  }),
  (c) => {
    const key = keyOf(c);
    const { project_id } = c.req.valid("query");
    if (!project_id) return c.json({ ok: true as const, verifier_key: verifierKey(key), kid: key.kid }, 200);
    const named = projectNoteKey(key, project_id);
    return c.json({ ok: true as const, verifier_key: verifierKey(named), kid: key.kid, origin: named.name }, 200);
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
    return c.text(await currentCheckpoint(c, access, project_id), 200, { "Cache-Control": "no-store" });
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
    const { idx, size: integrated } = await leafAndSize(access.db, project_id, id);
    const n = size ?? integrated;
    if (n > integrated) throw new AppError("invalid_query", { detail: `size: the log holds ${integrated}` });
    if (idx === null || idx >= n) {
      const pending = idx === null ? "" : ` (it is leaf ${idx}: a checkpoint covers it within seconds)`;
      throw new AppError("not_found", { detail: `${id} is not in the first ${n} leaves${pending}` });
    }
    const tiles = await readTiles(access.db, project_id, tilesForInclusion(idx, n));
    return c.json({ ok: true as const, index: idx, size: n, proof: b64(inclusionFromTiles(idx, n, tiles)) }, 200);
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
    const integrated = await sizeOf(access, project_id);
    const n = second ?? integrated;
    if (first > n || n > integrated) {
      throw new AppError("invalid_query", { detail: `need 1 ≤ first ≤ second ≤ ${integrated}` });
    }
    const tiles = await readTiles(access.db, project_id, tilesForConsistency(first, n));
    return c.json({ ok: true as const, first, second: n, proof: b64(consistencyFromTiles(first, n, tiles)) }, 200);
  },
);
