// POST /api/webhooks/endpoints/{id}/recover: queue the events an endpoint missed since a time (by default since it
// was last paused), a page of registrations per call (webhooks/recover.ts; issue 26). Admins and owners, on an
// active endpoint: recovering to a paused one would only queue what it cannot receive.
import { createRoute, z } from "@hono/zod-openapi";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { isoMs } from "../../../../shared/time";
import { optionalJsonBody, routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { IdParam, okWith } from "../schemas";
import { kickEndpoints } from "../webhooks/dispatch";
import { RECOVER_PAGE, recoverPage } from "../webhooks/recover";
import { EndpointId } from "../webhooks/views";
import { endpointAccess } from "./webhook-endpoints";

export const webhookRecoveryRoutes = routeGroup<FleetEnv>();

const RecoverRequest = z
  .strictObject({
    since: z.iso.datetime({ offset: true }).optional().openapi({
      description: "Registrations at or after this time (default: when the endpoint was last paused)",
    }),
    cursor: z.number().int().min(0).optional().openapi({ description: "`next_cursor` of the previous call" }),
  })
  .openapi("WebhookRecoverRequest");

const RecoverResult = okWith({
  since: z.string(),
  queued: z.number().int(),
  scanned: z.number().int(),
  next_cursor: z.number().int().nullable(),
});

webhookRecoveryRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/webhooks/endpoints/{id}/recover",
    summary:
      "Queue the events this endpoint missed since `since` (default: its last pause): one delivery per subscribed " +
      `event not already sent or queued to it, ${RECOVER_PAGE} registrations per call; continue with next_cursor`,
    middleware: [routeLimit("webhook-endpoints-recover"), optionalJsonBody],
    request: {
      params: IdParam(EndpointId),
      body: { required: false, content: { "application/json": { schema: RecoverRequest } } },
    },
    responses: {
      200: json(RecoverResult, "Queued; next_cursor is null when the walk reached `since`"),
      ...errorResponses("invalid_id", "invalid_body", "not_found", "role_forbidden", "endpoint_paused"),
    },
  }),
  async (c) => {
    const input = (c.req.valid("json") as z.infer<typeof RecoverRequest> | undefined) ?? {};
    const { row, access } = await endpointAccess(c, c.req.valid("param").id);
    if (!row.active) throw new AppError("endpoint_paused", { detail: "resume the endpoint before recovering events" });
    const since = input.since === undefined ? row.pausedAt : Date.parse(input.since);
    if (since === null) {
      throw new AppError("invalid_body", { detail: "since: required, the endpoint was never paused" });
    }
    const page = await recoverPage(access.db, row, since, input.cursor ?? null, Date.now());
    if (page.queued > 0) await kickEndpoints(c.env, [{ id: row.id, shard: access.shard.binding }]);
    return c.json(
      {
        ok: true as const,
        since: isoMs(since),
        queued: page.queued,
        scanned: page.scanned,
        next_cursor: page.nextCursor,
      },
      200,
    );
  },
);
