// GET /api/check: does an address, attestation or identity hold at least min_sats bonded for min_days?
// Finds the attestation on the relays, re-verifies it against the chain, applies the thresholds; cached 60 s.
import { createRoute } from "@hono/zod-openapi";
import { applyThresholds } from "../../../../shared/attest";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { routeGroup } from "../../../../shared/validate";
import { checkRoute } from "../../../../shared/verify-api/routes";
import { identityParam } from "../../../../shared/verify-api/schemas";
import { discover, withChain } from "../attestations";
import { checkCache } from "../check-cache";
import { CHECK_LIMIT } from "../check-hit";
import type { VerifyEnv } from "../env";

export const checkRoutes = routeGroup<VerifyEnv>();

const PASSING = new Set(["sig_ok_bip322", "sig_ok_legacy", "bond_confirmed"]);

checkRoutes.openapi(
  createRoute({
    ...checkRoute,
    middleware: [rateLimit(CHECK_LIMIT), checkCache],
  }),
  async (c) => {
    const query = c.req.valid("query");
    const { found } = await discover(c.env, {
      addr: query.addr,
      id: query.id,
      identity: identityParam(query.identity),
    });
    const latest = found[0];
    if (!latest) return c.json({ ok: false as const, reasons: ["not_found" as const] }, 404);
    const { pre, result: verified, tip } = await withChain(c.env, latest.pre);
    const result = applyThresholds(verified, { minSats: query.min_sats, minDays: query.min_days });
    return c.json(
      {
        ok: result.ok,
        sats: result.metrics.sats_bonded,
        days: result.metrics.days_unspent,
        score: result.metrics.score,
        attestation_id: pre.attestationId as string,
        address: pre.parsed?.address ?? "",
        identities: pre.identities,
        network: pre.network,
        ...(!result.ok && { reasons: result.codes.filter((code) => !PASSING.has(code)) }),
        ...(tip && { block_height: tip.height, block_hash: tip.hash }),
      },
      200,
    );
  },
);
