// GET /api/discover: the attestation envelopes the relays hold for an address, id or identity, read on every
// call, de-duplicated and re-verified; `?limit=` keeps the N most recent.
import { createRoute } from "@hono/zod-openapi";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { READ_RULE } from "../../../../shared/rate-limit/rules";
import { routeGroup } from "../../../../shared/validate";
import { discoverRoute } from "../../../../shared/verify-api/routes";
import { DISCOVER_MAX_LIMIT, identityParam } from "../../../../shared/verify-api/schemas";
import { discover } from "../attestations";
import type { VerifyEnv } from "../env";

export const discoverRoutes = routeGroup<VerifyEnv>();

discoverRoutes.openapi(
  createRoute({
    ...discoverRoute,
    middleware: [rateLimit({ bucket: "discover", rule: READ_RULE, failClosed: false })],
  }),
  async (c) => {
    const query = c.req.valid("query");
    const { total, found } = await discover(c.env, {
      addr: query.addr,
      id: query.id,
      identity: identityParam(query.identity),
    });
    // The limit applies after re-verification (found is most recent first), never to the relay filter: a relay's
    // own limit would let newer forged copies push the real attestations out.
    const kept = found.slice(0, query.limit ?? DISCOVER_MAX_LIMIT);
    c.header("Cache-Control", "no-store");
    return c.json({ count: kept.length, total, attestations: kept.map((f) => f.envelope) }, 200);
  },
);
