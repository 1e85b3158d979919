// Reading registered envelopes: per-kind lists filtered by project (cursor-paginated, registration order) and
// single delegations and sub-delegations by id, visible only within the caller's projects.
import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq, gt } from "drizzle-orm";
import { envelopes } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { routeGroup } from "../../../../shared/validate";
import { projectAccess } from "../access";
import { requireCaller } from "../caller";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { DEFAULT_LIMIT, decodeSeqCursor, encodeSeqCursor, PageQuery } from "../pagination";
import { isAction } from "../registry/pledge-rows";
import { findOnShards, projectDb } from "../registry/shards";
import { visibleEnvelope } from "../registry/store";
import { EnvelopeRecord, envelopeView } from "../registry/views";
import { listOf, ProjectId } from "../schemas";

export const envelopeReadRoutes = routeGroup<FleetEnv>();

const LISTS = [
  ["/api/delegations", "delegation", "delegations"],
  ["/api/subdelegations", "subdelegation", "subdelegations"],
  ["/api/actions", "action", "actions"],
  ["/api/revocations", "revocation", "revocations"],
  ["/api/pledge-outcomes", "outcome", "outcomes"],
  ["/api/pledge-abandonments", "abandonment", "abandonments"],
] as const;

const ListQuery = z.strictObject({
  project_id: ProjectId,
  delegation_id: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  ...PageQuery,
});

for (const [path, kind, key] of LISTS) {
  envelopeReadRoutes.openapi(
    createRoute({
      method: "get",
      path,
      summary: `The ${key} registered in a project, in registration order`,
      middleware: [routeLimit(`${key}-list`)],
      request: { query: ListQuery },
      responses: {
        200: json(listOf(key, EnvelopeRecord), "A page"),
        ...errorResponses("invalid_query", "unauthenticated", "not_found"),
      },
    }),
    async (c) => {
      const { project_id, delegation_id, limit = DEFAULT_LIMIT, cursor } = c.req.valid("query");
      const after = decodeSeqCursor(cursor);
      const access = await projectAccess(c, project_id);
      const rows = await access.db
        .select()
        .from(envelopes)
        .where(
          and(
            eq(envelopes.projectId, project_id),
            // A delegation's actions through envelopes_delegation, which holds actions only (pledge-rows.ts).
            kind === "action" ? isAction : eq(envelopes.kind, kind),
            gt(envelopes.seq, after),
            delegation_id ? eq(envelopes.delegationId, delegation_id) : undefined,
          ),
        )
        .orderBy(asc(envelopes.seq))
        .limit(limit + 1);
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      const next_cursor = rows.length > limit && last ? encodeSeqCursor(last.seq) : null;
      return c.json({ ok: true as const, [key]: items.map(envelopeView), next_cursor } as never, 200);
    },
  );
}

for (const [path, kind] of [
  ["/api/delegations/{id}", "delegation"],
  ["/api/subdelegations/{id}", "subdelegation"],
] as const) {
  envelopeReadRoutes.openapi(
    createRoute({
      method: "get",
      path,
      summary: `One ${kind} by id, with its status (revoked, expired or active)`,
      middleware: [routeLimit(`${kind}-read`)],
      request: { params: z.object({ id: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex") }) },
      responses: {
        200: json(z.object({ ok: z.literal(true), [kind]: EnvelopeRecord }), "Found"),
        ...errorResponses("invalid_id", "unauthenticated", "not_found"),
      },
    }),
    async (c) => {
      const caller = requireCaller(c);
      const id = c.req.valid("param").id;
      // A token reads its project's shard; a session every shard its memberships may be in (registry/shards.ts).
      const row =
        caller.kind === "token"
          ? await visibleEnvelope(await projectDb(c.env, caller.projectId), caller, id, [kind])
          : (await findOnShards(c.env, (db) => visibleEnvelope(db, caller, id, [kind])))?.row;
      if (!row) throw new AppError("not_found");
      return c.json({ ok: true as const, [kind]: envelopeView(row) }, 200);
    },
  );
}
