// POST /api/verify: verify a raw signed attestation against the chain (no thresholds, no relay lookup, no cache).
import { createRoute } from "@hono/zod-openapi";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { READ_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { verifyRoute } from "../../../../shared/verify-api/routes";
import { preVerify, withChain } from "../attestations";
import type { VerifyEnv } from "../env";
import { confirmationsFor } from "../upstreams";

export const verifyRoutes = routeGroup<VerifyEnv>();

verifyRoutes.openapi(
  createRoute({
    ...verifyRoute,
    middleware: [rateLimit({ bucket: "verify", rule: READ_RULE, failClosed: false }), jsonBody],
  }),
  async (c) => {
    const body = c.req.valid("json");
    const pre = await preVerify(c.env, {
      addr: body.addr,
      msg: body.msg,
      sig: body.sig,
      scheme: body.scheme,
      claimedId: body.attestation_id,
      expectedAudience: body.audience,
    });
    const { result, tip } = await withChain(c.env, pre);
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        ok: result.ok,
        codes: result.codes,
        network: pre.network,
        attestation_id: pre.attestationId ?? null,
        identities: pre.identities,
        metrics: result.metrics,
        ...(tip && { block_height: tip.height, block_hash: tip.hash }),
        confirmations_required: confirmationsFor(c.env),
      },
      200,
    );
  },
);
