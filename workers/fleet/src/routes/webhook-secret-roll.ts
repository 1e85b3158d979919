// Rolling an endpoint's signing secret without a failed verify (issue 18, issue 26): a new secret, shown once in
// the answer. For the overlap window every delivery's Standard Webhooks header carries a signature by each secret
// (the format allows several); X-Service-Signature, the spec's one-value header, stays by the old secret (what every
// receiver that has not switched yet holds, so stock GitHub-style receivers keep verifying) and
// X-Service-Signature-Next carries the new secret's HMAC. When the overlap ends X-Service-Signature is by the new
// secret and the Next header is gone: a receiver of X-Service-Signature alone switches at previous_secret_until, or
// holds both secrets and tries each. Rolling again within the window keeps only the newest predecessor.
import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { webhookEndpoints } from "../../../../shared/db/schema";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { routeGroup } from "../../../../shared/validate";
import { newWebhookSecret, sealSecret } from "../../../../shared/webhooks";
import { changeWithLog } from "../admin-log";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { IdParam, okWith } from "../schemas";
import { EndpointId, EndpointSchema, endpointView } from "../webhooks/views";
import { endpointAccess, requireMasterKey } from "./webhook-endpoints";

/** The overlap when none is asked for: a day, time for a receiver's deploy. */
export const DEFAULT_OVERLAP_HOURS = 24;
/** The longest overlap: a week. */
export const MAX_OVERLAP_HOURS = 168;

export const webhookSecretRollRoutes = routeGroup<FleetEnv>();

webhookSecretRollRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/webhooks/endpoints/{id}/rotate-secret",
    summary: "Roll the endpoint's signing secret; the old one keeps signing X-Service-Signature for the overlap",
    description:
      "Until previous_secret_until, X-Service-Signature is by the old secret, X-Service-Signature-Next by the new " +
      "one, and webhook-signature carries a signature by each; after it, only the new secret signs.",
    middleware: [routeLimit("webhook-endpoints-rotate")],
    request: {
      params: IdParam(EndpointId),
      query: z.strictObject({
        overlap_hours: z.coerce.number().int().min(0).max(MAX_OVERLAP_HOURS).optional(),
      }),
    },
    responses: {
      200: json(
        okWith({ endpoint: EndpointSchema, secret: z.string(), previous_secret_until: z.string().nullable() }),
        "Rolled: the new secret, shown once, and when the old one stops signing (null: at once)",
      ),
      ...errorResponses("invalid_id", "invalid_query", "not_found", "role_forbidden", "webhook_master_key_unset"),
    },
  }),
  async (c) => {
    const { row, access } = await endpointAccess(c, c.req.valid("param").id);
    const masterKey = requireMasterKey(c);
    const overlapHours = c.req.valid("query").overlap_hours ?? DEFAULT_OVERLAP_HOURS;
    const secret = newWebhookSecret();
    const now = Date.now();
    const until = overlapHours > 0 ? now + overlapHours * 3_600_000 : null;
    const changes = {
      secretSealed: await sealSecret(secret, masterKey),
      previousSecretSealed: until === null ? null : row.secretSealed,
      previousSecretUntil: until,
      updatedAt: now,
    };
    await changeWithLog(
      access,
      access.db.update(webhookEndpoints).set(changes).where(eq(webhookEndpoints.id, row.id)),
      {
        eventType: "webhook_endpoint.secret_rotated",
        targetId: row.id,
        detail: { overlap_hours: overlapHours },
      },
    );
    const previousUntil = until === null ? null : new Date(until).toISOString();
    const endpoint = endpointView({ ...row, ...changes });
    return c.json({ ok: true as const, endpoint, secret, previous_secret_until: previousUntil }, 200);
  },
);
