// OC Pledge registration (V1) and its public reads, by id and by swearer (service-spec "States and transitions →
// Pledge"; DECISIONS 17, 28). Outcomes and abandonments (V2), which resolve a pending pledge: pledge-resolutions.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { checkPledgeDelegation, parsePledgeEnvelope, verifyPledgeSignature } from "../../../../shared/envelopes/pledge";
import { storedFields } from "../../../../shared/envelopes/stored-fields";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { GRANT_KINDS } from "../registry/grants";
import { intake, mustHold, REGISTRATION_ERRORS, RegistrationBody, refuse } from "../registry/intake";
import { stillIn, storedEnvelope } from "../registry/parents";
import { pledgeIdsOf, publicPledge } from "../registry/public-pledges";
import { register } from "../registry/store";
import { EnvelopeRecord, envelopeView, LogIndex, PublicPledgeRecord, publicPledgeView } from "../registry/views";
import { Address } from "../schemas";

export const pledgeRoutes = routeGroup<FleetEnv>();
export const PledgeId = z.object({ id: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex") });

pledgeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/pledges",
    summary: "Register a pledge (OC Pledge V1); it starts pending",
    middleware: [routeLimit("pledges"), jsonBody],
    request: { body: jsonRequest(RegistrationBody) },
    responses: {
      201: json(z.object({ ok: z.literal(true), pledge: EnvelopeRecord, log_index: LogIndex }), "Registered"),
      ...errorResponses(
        ...REGISTRATION_ERRORS,
        "overloaded",
        "delegation_not_found",
        "delegation_inactive",
        "agent_must_match_delegation",
        "delegation_scope_violated",
      ),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { db, conditions, raw } = await intake(c, input.project_id);
    const parsed = await parsePledgeEnvelope(input.envelope);
    if (!parsed.ok) refuse(parsed);
    mustHold(verifyPledgeSignature(parsed));
    const via = parsed.envelope.via_delegation;
    if (via) {
      const grant = await storedEnvelope(db, input.project_id, via, GRANT_KINDS);
      if (!grant) throw new AppError("delegation_not_found");
      conditions.push(...stillIn(grant, "delegation_inactive"));
      mustHold(
        checkPledgeDelegation(parsed.envelope, {
          principal_address: grant.principalAddress ?? "",
          agent_address: grant.agentAddress ?? "",
          scopes: JSON.parse(grant.scopes ?? "[]") as string[],
          expires_at: grant.expiresAt ?? "",
          status: grant.status ?? undefined,
        }),
      );
    }
    const row = await register(
      db,
      { projectId: input.project_id, id: parsed.id, body: raw, ...storedFields(parsed) },
      { conditions },
    );
    return c.json({ ok: true as const, pledge: envelopeView(row), log_index: row.logIndex }, 201);
  },
);

pledgeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/pledges",
    summary: "Public: the pledges a swearer registered",
    middleware: [routeLimit("pledges-by-swearer")],
    request: { query: z.strictObject({ swearer: Address }) },
    responses: { 200: json(z.object({ ok: z.literal(true), pledges: z.array(PublicPledgeRecord) }), "Pledges") },
  }),
  async (c) => {
    const { swearer } = c.req.valid("query");
    const ids = await pledgeIdsOf(c.env, swearer);
    const pledges = await Promise.all(ids.map((id) => publicPledge(c.env, id)));
    return c.json({ ok: true as const, pledges: pledges.filter((p) => p !== undefined).map(publicPledgeView) }, 200);
  },
);

pledgeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/pledges/{id}",
    summary: "Public: one pledge and its state",
    middleware: [routeLimit("pledges-read")],
    request: { params: PledgeId },
    responses: {
      200: json(z.object({ ok: z.literal(true), pledge: PublicPledgeRecord }), "The pledge"),
      ...errorResponses("invalid_id", "not_found"),
    },
  }),
  async (c) => {
    const row = await publicPledge(c.env, c.req.valid("param").id);
    if (!row) throw new AppError("not_found");
    return c.json({ ok: true as const, pledge: publicPledgeView(row) }, 200);
  },
);
