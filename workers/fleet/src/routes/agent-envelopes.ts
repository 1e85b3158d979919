// Registration of OC Agent grants and actions (service-spec rules 1-8, DECISIONS 1-3, 18, 28): delegations
// (single-address and federation), sub-delegations, actions (both body forms). Revocations: revocations.ts.
import { createRoute, z } from "@hono/zod-openapi";
import {
  actionFromFlat,
  checkAction,
  checkDelegationSession,
  checkSubdelegation,
  FEDERATION_PREFIX,
  parseAgentEnvelope,
  parseFederationDelegation,
  verifyEnvelopeSignatures,
} from "../../../../shared/envelopes/agent";
import { storedFields } from "../../../../shared/envelopes/stored-fields";
import { AppError, type Reason } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { grantRow, loadGrant } from "../registry/grants";
import { intake, mustHold, REGISTRATION_ERRORS, RegistrationBody, refuse } from "../registry/intake";
import { register } from "../registry/store";
import { EnvelopeRecord, envelopeView, LogIndex } from "../registry/views";
import { ProjectId } from "../schemas";

export const agentRoutes = routeGroup<FleetEnv>();
export const AGENT_ERRORS: Reason[] = [...REGISTRATION_ERRORS, "role_forbidden", "overloaded"];

for (const federation of [false, true]) {
  agentRoutes.openapi(
    createRoute({
      method: "post",
      path: federation ? "/api/delegations/federation" : "/api/delegations",
      summary: federation
        ? "Register a federation (M-of-N guardians) delegation"
        : "Register a single-address delegation (kind 30083); its principal is the session address",
      middleware: [routeLimit(federation ? "delegations-federation" : "delegations"), jsonBody],
      request: { body: jsonRequest(RegistrationBody) },
      responses: {
        201: json(z.object({ ok: z.literal(true), delegation: EnvelopeRecord, log_index: LogIndex }), "Registered"),
        ...errorResponses(
          ...AGENT_ERRORS,
          "principal_must_match_session",
          federation ? "descriptor_invalid" : "federation_principal_wrong_endpoint",
          ...(federation
            ? ([
                "descriptor_id_mismatch",
                "insufficient_signatures",
                "threshold_mismatch",
                "duplicate_guardian",
                "unknown_guardian",
              ] as const)
            : []),
        ),
      },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const { db, conditions, raw, sessionAddress } = await intake(c, input.project_id);
      const principal = (input.envelope.principal as { address?: unknown } | undefined)?.address;
      const isFederation = typeof principal === "string" && principal.startsWith(FEDERATION_PREFIX);
      if (!federation && isFederation) throw new AppError("federation_principal_wrong_endpoint");
      const parsed = federation
        ? await parseFederationDelegation(input.envelope)
        : await parseAgentEnvelope("delegation", input.envelope);
      if (!parsed.ok) refuse(parsed);
      mustHold(checkDelegationSession(parsed, sessionAddress));
      mustHold(verifyEnvelopeSignatures(parsed));
      const row = await register(db, grantRow(input.project_id, raw, parsed, 0), {
        conditions,
      });
      return c.json({ ok: true as const, delegation: envelopeView(row), log_index: row.logIndex }, 201);
    },
  );
}

agentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/subdelegations",
    summary: "Register a sub-delegation (kind 30086): signed by the parent's agent, narrower in scope and time",
    middleware: [routeLimit("subdelegations"), jsonBody],
    request: { body: jsonRequest(RegistrationBody) },
    responses: {
      201: json(z.object({ ok: z.literal(true), subdelegation: EnvelopeRecord, log_index: LogIndex }), "Registered"),
      ...errorResponses(
        ...AGENT_ERRORS,
        "parent_not_found",
        "parent_inactive",
        "principal_must_be_parent_agent",
        "federation_not_yet_supported",
      ),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { db, conditions, raw } = await intake(c, input.project_id);
    const principal = (input.envelope.principal as { address?: unknown } | undefined)?.address;
    if (typeof principal === "string" && principal.startsWith(FEDERATION_PREFIX)) {
      throw new AppError("federation_not_yet_supported");
    }
    const parsed = await parseAgentEnvelope("subdelegation", input.envelope);
    if (!parsed.ok) refuse(parsed);
    const parent = await loadGrant(db, input.project_id, parsed.envelope.parent_id, {
      missing: "parent_not_found",
      inactive: "parent_inactive",
    });
    const parentDepth = parent.row.depth ?? 0;
    mustHold(checkSubdelegation(parsed, parent.grant, { parentStatus: parent.status, parentDepth, now: Date.now() }));
    mustHold(verifyEnvelopeSignatures(parsed));
    const row = await register(db, grantRow(input.project_id, raw, parsed, parentDepth + 1), {
      conditions: [...conditions, ...parent.conditions],
    });
    return c.json({ ok: true as const, subdelegation: envelopeView(row), log_index: row.logIndex }, 201);
  },
);

const FlatActionBody = z
  .strictObject({
    project_id: ProjectId,
    id: z.string(),
    delegation_id: z.string(),
    agent_address: z.string(),
    scope_exercised: z.string(),
    content_hash: z.string(),
    content_length: z.number(),
    content_mime: z.string(),
    signed_at: z.string(),
    signature: z.string(),
  })
  .openapi("FlatActionRequest");

agentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/actions",
    summary: "Register an action (kind 30084), as an envelope or in the flat form agent adapters send",
    middleware: [routeLimit("actions"), jsonBody],
    request: { body: jsonRequest(z.union([RegistrationBody, FlatActionBody])) },
    responses: {
      201: json(z.object({ ok: z.literal(true), action: EnvelopeRecord, log_index: LogIndex }), "Registered"),
      ...errorResponses(...AGENT_ERRORS, "delegation_not_found", "delegation_inactive", "agent_must_match_delegation"),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const flat = !("envelope" in input);
    const { db, conditions, raw: received } = await intake(c, input.project_id, !flat);
    let envelope: Record<string, unknown>;
    if (flat) {
      const { project_id: _p, ...fields } = input;
      const built = actionFromFlat(fields);
      if (!built.ok) refuse(built);
      envelope = built.envelope;
    } else {
      envelope = input.envelope;
    }
    const parsed = await parseAgentEnvelope("action", envelope);
    if (!parsed.ok) refuse(parsed);
    const delegation = await loadGrant(db, input.project_id, parsed.envelope.delegation_id, {
      missing: "delegation_not_found",
      inactive: "delegation_inactive",
    });
    mustHold(checkAction(parsed, delegation.grant, { status: delegation.status, now: Date.now() }));
    mustHold(verifyEnvelopeSignatures(parsed));
    // The flat form has no bytes of its own: it is stored as the envelope's canonical JSON.
    const raw = flat ? parsed.canonicalJson : received;
    const row = await register(
      db,
      { projectId: input.project_id, id: parsed.id, body: raw, ...storedFields(parsed) },
      { conditions: [...conditions, ...delegation.conditions] },
    );
    return c.json({ ok: true as const, action: envelopeView(row), log_index: row.logIndex }, 201);
  },
);
