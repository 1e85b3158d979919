// GET /api/audit/export: every envelope of a project, byte-identical to what was registered, in replay order,
// streamed page by page (bounded memory) and closed by a manifest signed with the fleet's Ed25519 key.
// GET /api/audit/bundles: the counts and digest of each completed export.
import { createRoute, z } from "@hono/zod-openapi";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { and, asc, desc, eq, gt } from "drizzle-orm";
import {
  AUDIT_FORMATS,
  type AuditFormat,
  BUNDLE_FORMAT,
  bundleHead,
  bundleRow,
  bundleTail,
  type EnvelopeKind,
  encodeSignature,
  type Manifest,
  manifestBytes,
  REPLAY_ORDER,
} from "../../../../shared/audit/bundle-format";
import { loadSigningKey, type SigningKey } from "../../../../shared/crypto/signing-key";
import type { Db } from "../../../../shared/db/client";
import { auditBundles, envelopes } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { isoMs } from "../../../../shared/time";
import { routeGroup } from "../../../../shared/validate";
import { projectAccess } from "../access";
import type { FleetBindings, FleetEnv } from "../env";
import { newId } from "../ids";
import { routeLimit } from "../limits";
import { listOf, ProjectId } from "../schemas";

/** Envelopes read per page: the stream holds at most one page in memory. */
export const EXPORT_PAGE_SIZE = 200;
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

function exportStream(db: Db, key: SigningKey, projectId: string, format: AuditFormat, bundleId: string) {
  const encoder = new TextEncoder();
  const digest = sha256.create();
  const counts = Object.fromEntries(REPLAY_ORDER.map((k) => [k, 0])) as Record<EnvelopeKind, number>;
  let kindIndex = 0;
  let afterSeq = 0;
  let first = true;
  let started = false;
  const emit = (controller: ReadableStreamDefaultController<Uint8Array>, text: string, hashed = true) => {
    const bytes = encoder.encode(text);
    if (hashed) digest.update(bytes);
    controller.enqueue(bytes);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        emit(controller, bundleHead(format, projectId));
      }
      while (kindIndex < REPLAY_ORDER.length) {
        const kind = REPLAY_ORDER[kindIndex] as EnvelopeKind;
        const rows = await db
          .select({ seq: envelopes.seq, id: envelopes.id, body: envelopes.body })
          .from(envelopes)
          .where(and(eq(envelopes.projectId, projectId), eq(envelopes.kind, kind), gt(envelopes.seq, afterSeq)))
          .orderBy(asc(envelopes.seq))
          .limit(EXPORT_PAGE_SIZE);
        if (rows.length > 0) {
          for (const row of rows) {
            emit(controller, bundleRow(format, { kind, id: row.id, body: row.body }, first));
            first = false;
            counts[kind] += 1;
          }
          afterSeq = rows[rows.length - 1]?.seq ?? afterSeq;
          return; // one page per pull: the consumer's pace bounds memory
        }
        kindIndex += 1;
        afterSeq = 0;
      }
      const manifest: Manifest = {
        format: BUNDLE_FORMAT,
        bundle_id: bundleId,
        project_id: projectId,
        generated_at: new Date().toISOString(),
        export_format: format,
        counts,
        total: Object.values(counts).reduce((a, b) => a + b, 0),
        sha256: bytesToHex(digest.digest()),
        kid: key.kid,
        alg: "EdDSA",
      };
      const signature = new Uint8Array(await crypto.subtle.sign("Ed25519", key.privateKey, manifestBytes(manifest)));
      emit(controller, bundleTail(format, manifest, encodeSignature(signature)), false);
      await db.insert(auditBundles).values({
        id: bundleId,
        projectId,
        format,
        counts: JSON.stringify(counts),
        sha256: manifest.sha256,
        kid: key.kid,
        createdAt: Date.now(),
      });
      controller.close();
    },
  });
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
