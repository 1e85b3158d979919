// Revocations of OC Agent grants (kind 30085, service-spec rule 7): the target and every sub-delegation below it
// become revoked in the same batch as the revocation is stored. The tree below is walked by SQLite itself (a
// recursive query on the parent index), so a revocation reads nothing the size of the project.
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import { envelopes } from "../../../../shared/db/schema";
import {
  checkRevocation,
  FEDERATION_PREFIX,
  parseAgentEnvelope,
  parseFederationRevocation,
  verifyEnvelopeSignatures,
} from "../../../../shared/envelopes/agent";
import { storedFields } from "../../../../shared/envelopes/stored-fields";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { GRANT_KINDS, loadGrant } from "../registry/grants";
import { intake, mustHold, RegistrationBody, refuse } from "../registry/intake";
import { register } from "../registry/store";
import { EnvelopeRecord, envelopeView, LogIndex } from "../registry/views";
import { AGENT_ERRORS } from "./agent-envelopes";

export const revocationRoutes = routeGroup<FleetEnv>();

/** The grant `targetId` and every sub-delegation below it in the project (the rule `cascade()` states in code). */
export function grantTree(projectId: string, targetId: string): SQL {
  return sql`with recursive below(id) as (
      select ${targetId}
      union
      select e.id from ${envelopes} e join below on e.parent_id = below.id
      where e.project_id = ${projectId} and e.kind = 'subdelegation'
    ) select id from below`;
}

/** Revokes the tree below `targetId`, in the registration's batch and only if it `written`. */
const revokeTree = (db: Db, projectId: string, targetId: string) => (written: SQL) => [
  db
    .update(envelopes)
    .set({ status: "revoked" })
    .where(
      and(
        eq(envelopes.projectId, projectId),
        inArray(envelopes.kind, [...GRANT_KINDS]),
        sql`${envelopes.id} in (${grantTree(projectId, targetId)})`,
        written,
      ),
    ),
];

revocationRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/revocations",
    summary: "Register a revocation (kind 30085): the delegation and every sub-delegation below it become revoked",
    middleware: [routeLimit("revocations"), jsonBody],
    request: { body: jsonRequest(RegistrationBody) },
    responses: {
      201: json(z.object({ ok: z.literal(true), revocation: EnvelopeRecord, log_index: LogIndex }), "Registered"),
      ...errorResponses(
        ...AGENT_ERRORS,
        "delegation_not_found",
        "already_revoked",
        "signer_must_be_principal",
        "signer_must_match_session",
      ),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { db, conditions, raw, sessionAddress } = await intake(c, input.project_id);
    const signer = (input.envelope.signer as { address?: unknown } | undefined)?.address;
    const parsed =
      typeof signer === "string" && signer.startsWith(FEDERATION_PREFIX)
        ? await parseFederationRevocation(input.envelope)
        : await parseAgentEnvelope("revocation", input.envelope);
    if (!parsed.ok) refuse(parsed);
    const target = await loadGrant(db, input.project_id, parsed.envelope.delegation_id, {
      missing: "delegation_not_found",
      inactive: "already_revoked",
    });
    mustHold(checkRevocation(parsed, target.grant, { targetStatus: target.status, sessionAddress }));
    mustHold(verifyEnvelopeSignatures(parsed));
    const row = await register(
      db,
      { projectId: input.project_id, id: parsed.id, body: raw, ...storedFields(parsed) },
      { conditions: [...conditions, ...target.conditions], also: revokeTree(db, input.project_id, target.grant.id) },
    );
    return c.json({ ok: true as const, revocation: envelopeView(row), log_index: row.logIndex }, 201);
  },
);
