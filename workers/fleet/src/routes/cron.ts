// POST /api/cron/reconcile: the reconciler on demand, for operators and tests; guarded by CRON_SECRET
// (Authorization: Bearer <secret>). 503 cron_secret_unset without one configured, 401 unauthorized on a mismatch.
import { createRoute, z } from "@hono/zod-openapi";
import { sha256Hex } from "../../../../shared/crypto/digest";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { routeGroup } from "../../../../shared/validate";
import { reconcile } from "../cron";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";

export const cronRoutes = routeGroup<FleetEnv>();

cronRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/cron/reconcile",
    summary:
      "Run the reconciler now: expire pledges, fan out events, re-arm webhook dispatchers, hash unhashed log leaves",
    middleware: [routeLimit("cron")],
    responses: {
      200: json(
        z.object({
          ok: z.literal(true),
          expired: z.number(),
          rearmed: z.number(),
          leaves_hashed: z.number(),
          logs_behind: z.number(),
        }),
        "Done",
      ),
      ...errorResponses("unauthorized", "cron_secret_unset"),
    },
  }),
  async (c) => {
    const secret = c.env.CRON_SECRET;
    if (!secret) throw new AppError("cron_secret_unset");
    const given = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1] ?? "";
    // Compared as digests, so the comparison time does not depend on where the strings differ.
    if ((await sha256Hex(given)) !== (await sha256Hex(secret))) throw new AppError("unauthorized");
    return c.json({ ok: true as const, ...(await reconcile(c.env)) }, 200);
  },
);
