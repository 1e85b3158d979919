// OC Pledge V2 resolutions: an outcome (kept, broken, disputed, expired_unresolved) or an abandonment moves a
// pending pledge of the project to its final state, in the same batch as the resolution is stored; the pledge's
// status is re-checked there, so of two racing resolutions exactly one lands (DECISIONS 17).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Db } from "../../../../shared/db/client";
import {
  checkAbandonment,
  checkOutcome,
  type ParsedAbandonment,
  type ParsedOutcome,
  type PledgeEnvelope,
  type PledgeStatus,
  parseAbandonmentEnvelope,
  parseOutcomeEnvelope,
  type RuleCheck,
  verifyPledgeSignature,
} from "../../../../shared/envelopes/pledge";
import { storedFields } from "../../../../shared/envelopes/stored-fields";
import { AppError, type Reason } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { intake, mustHold, REGISTRATION_ERRORS, RegistrationBody, refuse } from "../registry/intake";
import { stillIn, storedEnvelope } from "../registry/parents";
import { pledgeMovesTo } from "../registry/pledge-state";
import { register } from "../registry/store";
import { EnvelopeRecord, envelopeView, LogIndex } from "../registry/views";
import { PledgeId } from "./pledges";

export const pledgeResolutionRoutes = routeGroup<FleetEnv>();

/** The stored pledge an outcome or abandonment cites, in the same project. */
async function citedPledge(db: Db, projectId: string, pledgeId: string, pathId: string | undefined) {
  if (pathId !== undefined && pathId !== pledgeId)
    throw new AppError("invalid_body", { detail: "pledge_id must be the pledge in the path" });
  const row = await storedEnvelope(db, projectId, pledgeId, ["pledge"]);
  if (!row) throw new AppError("not_found", { detail: `pledge ${pledgeId} is not registered in this project` });
  return { row, pledge: JSON.parse(row.body) as PledgeEnvelope, status: (row.status ?? "pending") as PledgeStatus };
}

/**
 * An outcome or an abandonment: parse, find the pending pledge it cites (in the path too, for the nested form),
 * verify the signature, apply the state rule, then store it with its event and the pledge's new status at once.
 */
async function resolvePledge<P extends ParsedOutcome | ParsedAbandonment>(
  c: Context<FleetEnv>,
  inPath: boolean,
  steps: {
    parse: (json: unknown) => Promise<P | { ok: false; reason: Reason; detail: string }>;
    check: (parsed: P, pledge: PledgeEnvelope, status: PledgeStatus, now: number) => RuleCheck;
  },
) {
  const input = (c.req.valid as (t: "json") => { project_id: string; envelope: Record<string, unknown> })("json");
  const { db, conditions, raw } = await intake(c, input.project_id);
  const parsed = await steps.parse(input.envelope);
  if (!parsed.ok) refuse(parsed);
  const pledgeId = parsed.envelope.pledge_id;
  const cited = await citedPledge(db, input.project_id, pledgeId, inPath ? c.req.param("id") : undefined);
  mustHold(verifyPledgeSignature(parsed));
  const next = steps.check(parsed, cited.pledge, cited.status, Date.now());
  if (!next.ok) refuse(next);
  return register(
    db,
    { projectId: input.project_id, id: parsed.id, body: raw, ...storedFields(parsed) },
    {
      conditions: [...conditions, ...stillIn(cited.row, "pledge_not_pending")],
      also: pledgeMovesTo(db, input.project_id, pledgeId, next.status),
    },
  );
}

for (const path of ["/api/pledges/{id}/outcome", "/api/pledge-outcomes"] as const) {
  const inPath = path.includes("{id}");
  pledgeResolutionRoutes.openapi(
    createRoute({
      method: "post",
      path,
      summary: "Register a pledge outcome (V2): kept, broken, disputed or expired_unresolved",
      middleware: [routeLimit("pledge-outcomes"), jsonBody],
      request: inPath
        ? { params: PledgeId, body: jsonRequest(RegistrationBody) }
        : { body: jsonRequest(RegistrationBody) },
      responses: {
        201: json(
          z.object({ ok: z.literal(true), outcome: EnvelopeRecord, log_index: LogIndex }),
          "Registered; the pledge took this outcome",
        ),
        ...errorResponses(
          ...REGISTRATION_ERRORS,
          "overloaded",
          "pledge_not_pending",
          "pledge_expired",
          "pledge_not_expired",
          "resolver_unauthorized",
        ),
      },
    }),
    async (c) => {
      const row = await resolvePledge(c, inPath, {
        parse: parseOutcomeEnvelope,
        check: checkOutcome,
      });
      return c.json({ ok: true as const, outcome: envelopeView(row), log_index: row.logIndex }, 201);
    },
  );
}

for (const path of ["/api/pledges/{id}/abandon", "/api/pledge-abandonments"] as const) {
  const inPath = path.includes("{id}");
  pledgeResolutionRoutes.openapi(
    createRoute({
      method: "post",
      path,
      summary: "Register a pledge abandonment (V2): the swearer permanently retracts a pending pledge",
      middleware: [routeLimit("pledge-abandonments"), jsonBody],
      request: inPath
        ? { params: PledgeId, body: jsonRequest(RegistrationBody) }
        : { body: jsonRequest(RegistrationBody) },
      responses: {
        201: json(
          z.object({ ok: z.literal(true), abandonment: EnvelopeRecord, log_index: LogIndex }),
          "Registered; the pledge is abandoned",
        ),
        ...errorResponses(
          ...REGISTRATION_ERRORS,
          "overloaded",
          "pledge_not_pending",
          "pledge_expired",
          "signer_must_be_swearer",
        ),
      },
    }),
    async (c) => {
      const row = await resolvePledge(c, inPath, {
        parse: parseAbandonmentEnvelope,
        check: checkAbandonment,
      });
      return c.json({ ok: true as const, abandonment: envelopeView(row), log_index: row.logIndex }, 201);
    },
  );
}
