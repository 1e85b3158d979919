// GET /api/discover: the attestation envelopes the relays hold for an address, id or identity, read on every
// call, de-duplicated and re-verified; `?limit=` keeps the N most recent.
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { READ_RULE } from "../../../../shared/rate-limit/rules";
import { routeGroup } from "../../../../shared/validate";
import { discover } from "../attestations";
import type { VerifyEnv } from "../env";
import { DISCOVER_MAX_LIMIT, DiscoverQuery, DiscoverResult, identityParam } from "../schemas";

export const discoverRoutes = routeGroup<VerifyEnv>();

discoverRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/discover",
    summary: "List the verified attestation envelopes published for an address, attestation id or identity",
    middleware: [rateLimit({ bucket: "discover", rule: READ_RULE, failClosed: false })],
    request: { query: DiscoverQuery },
    responses: {
      200: json(DiscoverResult, "count: envelopes returned (verified); total: distinct envelopes the relays sent"),
      ...errorResponses("invalid_query", "relays_unavailable", "relays_not_configured", "rate_limited"),
    },
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
