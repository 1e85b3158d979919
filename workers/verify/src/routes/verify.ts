// POST /api/verify: verify a raw signed attestation against the chain (no thresholds, no relay lookup, no cache).
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { READ_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { preVerify, withChain } from "../attestations";
import type { VerifyEnv } from "../env";
import { VerifyBody, VerifyResult } from "../schemas";
import { confirmationsFor } from "../upstreams";

export const verifyRoutes = routeGroup<VerifyEnv>();

verifyRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/verify",
    summary: "Verify a signed OC Attest attestation: canonical form, id, signature, network, policy and bond",
    middleware: [rateLimit({ bucket: "verify", rule: READ_RULE, failClosed: false }), jsonBody],
    request: { body: jsonRequest(VerifyBody) },
    responses: {
      200: json(VerifyResult, "The verifier ran; ok says whether the attestation holds, codes say why"),
      ...errorResponses(
        "invalid_body",
        "malformed_json",
        "unsupported_media_type",
        "chain_unavailable",
        "rate_limited",
      ),
    },
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
