// Registration of OC Agent envelopes (service-spec rules 1-8, DECISIONS 1-3, 18, 28): delegations (single-address
// and federation), sub-delegations, actions (both body forms), revocations with their cascade.
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import { envelopes } from "../../../../shared/db/schema";
import {
  actionFromFlat,
  cascade,
  checkAction,
  checkDelegationSession,
  checkRevocation,
  checkSubdelegation,
  FEDERATION_PREFIX,
  flatFields,
  type GrantStatus,
  type ParsedGrant,
  parseAgentEnvelope,
  parseFederationDelegation,
  parseFederationRevocation,
  verifyEnvelopeSignatures,
} from "../../../../shared/envelopes/agent";
import { AppError, type Reason } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { intake, REGISTRATION_ERRORS, RegistrationBody, refuse } from "../registry/intake";
import { findEnvelope, register } from "../registry/store";
import { EnvelopeRecord, envelopeView } from "../registry/views";
import { ProjectId } from "../schemas";

export const agentRoutes = routeGroup<FleetEnv>();
const GRANT_KINDS = ["delegation", "subdelegation"] as const;
const COMMON: Reason[] = [...REGISTRATION_ERRORS, "role_forbidden"];

/** A stored delegation or sub-delegation, parsed again from its bytes, with its status now (DECISIONS 18). */
async function loadGrant(db: Db, projectId: string, id: string, missing: Reason) {
  const row = await findEnvelope(db, projectId, id, GRANT_KINDS);
  if (!row) throw new AppError(missing, { detail: `${id} is not registered in this project` });
  const parsed = row.principalAddress?.startsWith(FEDERATION_PREFIX)
    ? await parseFederationDelegation(JSON.parse(row.body))
    : await parseAgentEnvelope(row.kind as "delegation" | "subdelegation", JSON.parse(row.body));
  if (!parsed.ok) throw new Error(`stored envelope ${id} no longer parses: ${parsed.detail}`);
  const status: GrantStatus = row.status === "revoked" ? "revoked" : "active";
  return { row, grant: parsed as ParsedGrant, status };
}

function signed(check: { ok: true } | { ok: false; reason: Reason; detail: string }) {
  if (!check.ok) refuse(check);
}

function grantRow(projectId: string, raw: string, parsed: ParsedGrant, depth: number) {
  const flat = flatFields(parsed);
  return {
    projectId,
    id: parsed.id,
    kind: parsed.kind,
    body: raw,
    status: "active",
    principalAddress: flat.principal_address,
    agentAddress: flat.agent_address,
    parentId: "parent_id" in flat ? flat.parent_id : null,
    scopes: JSON.stringify(flat.scopes),
    issuedAt: flat.issued_at,
    expiresAt: flat.expires_at,
    depth,
  };
}

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
        201: json(z.object({ ok: z.literal(true), delegation: EnvelopeRecord }), "Registered"),
        ...errorResponses(
          ...COMMON,
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
      const { access, raw, sessionAddress } = await intake(c, input.project_id);
      const principal = (input.envelope.principal as { address?: unknown } | undefined)?.address;
      const isFederation = typeof principal === "string" && principal.startsWith(FEDERATION_PREFIX);
      if (!federation && isFederation) throw new AppError("federation_principal_wrong_endpoint");
      const parsed = federation
        ? await parseFederationDelegation(input.envelope)
        : await parseAgentEnvelope("delegation", input.envelope);
      if (!parsed.ok) refuse(parsed);
      signed(checkDelegationSession(parsed, sessionAddress));
      signed(verifyEnvelopeSignatures(parsed));
      const row = await register(access.db, grantRow(input.project_id, raw, parsed, 0), "delegation.registered");
      return c.json({ ok: true as const, delegation: envelopeView(row) }, 201);
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
      201: json(z.object({ ok: z.literal(true), subdelegation: EnvelopeRecord }), "Registered"),
      ...errorResponses(
        ...COMMON,
        "parent_not_found",
        "parent_inactive",
        "principal_must_be_parent_agent",
        "federation_not_yet_supported",
      ),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { access, raw } = await intake(c, input.project_id);
    const principal = (input.envelope.principal as { address?: unknown } | undefined)?.address;
    if (typeof principal === "string" && principal.startsWith(FEDERATION_PREFIX)) {
      throw new AppError("federation_not_yet_supported");
    }
    const parsed = await parseAgentEnvelope("subdelegation", input.envelope);
    if (!parsed.ok) refuse(parsed);
    const parent = await loadGrant(access.db, input.project_id, parsed.envelope.parent_id, "parent_not_found");
    const parentDepth = parent.row.depth ?? 0;
    signed(checkSubdelegation(parsed, parent.grant, { parentStatus: parent.status, parentDepth, now: Date.now() }));
    signed(verifyEnvelopeSignatures(parsed));
    const row = await register(
      access.db,
      grantRow(input.project_id, raw, parsed, parentDepth + 1),
      "subdelegation.registered",
    );
    return c.json({ ok: true as const, subdelegation: envelopeView(row) }, 201);
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
      201: json(z.object({ ok: z.literal(true), action: EnvelopeRecord }), "Registered"),
      ...errorResponses(...COMMON, "delegation_not_found", "delegation_inactive", "agent_must_match_delegation"),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const flat = !("envelope" in input);
    const { access, raw: received } = await intake(c, input.project_id, !flat);
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
    const { grant, status } = await loadGrant(
      access.db,
      input.project_id,
      parsed.envelope.delegation_id,
      "delegation_not_found",
    );
    signed(checkAction(parsed, grant, { status, now: Date.now() }));
    signed(verifyEnvelopeSignatures(parsed));
    const a = flatFields(parsed);
    // The flat form has no bytes of its own: it is stored as the envelope's canonical JSON.
    const raw = flat ? parsed.canonicalJson : received;
    const row = await register(
      access.db,
      {
        projectId: input.project_id,
        id: parsed.id,
        kind: "action",
        body: raw,
        agentAddress: a.agent_address,
        signerAddress: a.agent_address,
        delegationId: a.delegation_id,
        scopeExercised: a.scope_exercised,
        contentHash: a.content_hash,
        contentLength: a.content_length,
        contentMime: a.content_mime,
        signedAt: a.signed_at,
      },
      "action.registered",
    );
    return c.json({ ok: true as const, action: envelopeView(row) }, 201);
  },
);

agentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/revocations",
    summary: "Register a revocation (kind 30085): the delegation and every sub-delegation below it become revoked",
    middleware: [routeLimit("revocations"), jsonBody],
    request: { body: jsonRequest(RegistrationBody) },
    responses: {
      201: json(z.object({ ok: z.literal(true), revocation: EnvelopeRecord }), "Registered"),
      ...errorResponses(
        ...COMMON,
        "delegation_not_found",
        "already_revoked",
        "signer_must_be_principal",
        "signer_must_match_session",
      ),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { access, raw, sessionAddress } = await intake(c, input.project_id);
    const signer = (input.envelope.signer as { address?: unknown } | undefined)?.address;
    const parsed =
      typeof signer === "string" && signer.startsWith(FEDERATION_PREFIX)
        ? await parseFederationRevocation(input.envelope)
        : await parseAgentEnvelope("revocation", input.envelope);
    if (!parsed.ok) refuse(parsed);
    const { db } = access;
    const target = await loadGrant(db, input.project_id, parsed.envelope.delegation_id, "delegation_not_found");
    signed(checkRevocation(parsed, target.grant, { targetStatus: target.status, sessionAddress }));
    signed(verifyEnvelopeSignatures(parsed));
    const below = await db
      .select({ id: envelopes.id, parent_id: envelopes.parentId })
      .from(envelopes)
      .where(and(eq(envelopes.projectId, input.project_id), eq(envelopes.kind, "subdelegation")));
    const revoked = [
      target.grant.id,
      ...cascade(
        target.grant.id,
        below.map((r) => ({ id: r.id, parent_id: r.parent_id ?? "" })),
      ),
    ];
    const r = flatFields(parsed);
    const row = await register(
      db,
      {
        projectId: input.project_id,
        id: parsed.id,
        kind: "revocation",
        body: raw,
        signerAddress: r.signer_address,
        delegationId: r.delegation_id,
        reason: r.reason,
        signedAt: r.signed_at,
      },
      "revocation.registered",
      [
        db
          .update(envelopes)
          .set({ status: "revoked" })
          .where(
            and(
              eq(envelopes.projectId, input.project_id),
              inArray(envelopes.id, revoked),
              inArray(envelopes.kind, [...GRANT_KINDS]),
            ),
          ),
      ],
    );
    return c.json({ ok: true as const, revocation: envelopeView(row) }, 201);
  },
);
