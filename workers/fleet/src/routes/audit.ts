// GET /api/audit/export: every envelope of a project, byte-identical to what was registered, in replay order,
// streamed page by page (registry/export-stream.ts) and closed by a manifest signed with the fleet's Ed25519 key.
// GET /api/audit/bundles: the counts and digest of each completed export.
import { createRoute, z } from "@hono/zod-openapi";
import { desc, eq } from "drizzle-orm";
import { AUDIT_FORMATS, type AuditFormat } from "../../../../shared/audit/bundle-format";
import { loadSigningKey, type SigningKey } from "../../../../shared/crypto/signing-key";
import { auditBundles } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { isoMs } from "../../../../shared/time";
import { routeGroup } from "../../../../shared/validate";
import { projectAccess } from "../access";
import type { FleetBindings, FleetEnv } from "../env";
import { newId } from "../ids";
import { routeLimit } from "../limits";
import { exportStream } from "../registry/export-stream";
import { listOf, ProjectId } from "../schemas";

const CONTENT_TYPES: Record<AuditFormat, string> = {
  ndjson: "application/x-ndjson; charset=utf-8",
  json: "application/json; charset=utf-8",
  csv: "text/csv; charset=utf-8",
};

export const auditRoutes = routeGroup<FleetEnv>();

async function fleetKey(env: FleetBindings): Promise<SigningKey> {
  if (!env.FLEET_SIGNING_KEY) throw new AppError("signing_key_unset", { detail: "FLEET_SIGNING_KEY is not set" });
  try {
    return await loadSigningKey(env.FLEET_SIGNING_KEY);
  } catch {
    throw new AppError("signing_key_unset", { detail: "FLEET_SIGNING_KEY is not an Ed25519 private JWK" });
  }
}

auditRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/audit/export",
    summary: "Export every envelope of a project as a signed audit bundle (ndjson, json or csv)",
    middleware: [routeLimit("audit-export")],
    request: { query: z.strictObject({ project_id: ProjectId, format: z.enum(AUDIT_FORMATS).optional() }) },
    responses: {
      200: { description: "The bundle, streamed; its last line is the signed manifest" },
      ...errorResponses("invalid_query", "unauthenticated", "not_found", "signing_key_unset"),
    },
  }),
  async (c) => {
    const { project_id, format = "ndjson" } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    const key = await fleetKey(c.env);
    const bundleId = newId("bnd");
    return new Response(exportStream(access.db, key, project_id, format, bundleId), {
      headers: {
        "Content-Type": CONTENT_TYPES[format],
        "Content-Disposition": `attachment; filename="${project_id}-${bundleId}.${format}"`,
        "Cache-Control": "no-store",
        "X-Bundle-Id": bundleId,
      },
    });
  },
);

const BundleSchema = z
  .object({
    id: z.string(),
    project_id: z.string(),
    format: z.string(),
    counts: z.record(z.string(), z.number()),
    sha256: z.string(),
    kid: z.string(),
    created_at: z.string(),
  })
  .openapi("AuditBundle");

auditRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/audit/bundles",
    summary: "The completed audit exports of a project, newest first, with their counts",
    middleware: [routeLimit("audit-bundles")],
    request: { query: z.strictObject({ project_id: ProjectId }) },
    responses: {
      200: json(listOf("bundles", BundleSchema), "Bundles"),
      ...errorResponses("invalid_query", "not_found"),
    },
  }),
  async (c) => {
    const { project_id } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    const rows = await access.db
      .select()
      .from(auditBundles)
      .where(eq(auditBundles.projectId, project_id))
      .orderBy(desc(auditBundles.createdAt))
      .limit(100);
    const bundles = rows.map((r) => ({
      id: r.id,
      project_id: r.projectId,
      format: r.format,
      counts: JSON.parse(r.counts) as Record<string, number>,
      sha256: r.sha256,
      kid: r.kid,
      created_at: isoMs(r.createdAt),
    }));
    return c.json({ ok: true as const, bundles, next_cursor: null }, 200);
  },
);
