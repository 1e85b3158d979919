// OC Pledge registration (V1) with public reads by id and by swearer, and its V2 outcomes and abandonments, which
// move a pending pledge to its final state (service-spec "States and transitions → Pledge"; DECISIONS 17, 28).
import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Context } from "hono";
import { type Db, orm } from "../../../../shared/db/client";
import { envelopes } from "../../../../shared/db/schema";
import {
  checkAbandonment,
  checkOutcome,
  checkPledgeDelegation,
  flatFields,
  type ParsedAbandonment,
  type ParsedOutcome,
  type PledgeEnvelope,
  type PledgeStatus,
  parseAbandonmentEnvelope,
  parseOutcomeEnvelope,
  parsePledgeEnvelope,
  type RuleCheck,
  verifyPledgeSignature,
} from "../../../../shared/envelopes/pledge";
import { AppError, type Reason } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { intake, REGISTRATION_ERRORS, RegistrationBody, refuse } from "../registry/intake";
import { type EnvelopeRow, findEnvelope, type NewEnvelope, register } from "../registry/store";
import { EnvelopeRecord, envelopeView } from "../registry/views";
import { Address } from "../schemas";

export const pledgeRoutes = routeGroup<FleetEnv>();
const PledgeId = z.object({ id: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex") });

function checked(result: { ok: true } | { ok: false; reason: Reason; detail: string }) {
  if (!result.ok) refuse(result);
}

pledgeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/pledges",
    summary: "Register a pledge (OC Pledge V1); it starts pending",
    middleware: [routeLimit("pledges"), jsonBody],
    request: { body: jsonRequest(RegistrationBody) },
    responses: {
      201: json(z.object({ ok: z.literal(true), pledge: EnvelopeRecord }), "Registered"),
      ...errorResponses(
        ...REGISTRATION_ERRORS,
        "delegation_not_found",
        "delegation_inactive",
        "agent_must_match_delegation",
        "delegation_scope_violated",
      ),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { access, raw } = await intake(c, input.project_id);
    const parsed = await parsePledgeEnvelope(input.envelope);
    if (!parsed.ok) refuse(parsed);
    checked(verifyPledgeSignature(parsed));
    const via = parsed.envelope.via_delegation;
    if (via) {
      const grant = await findEnvelope(access.db, input.project_id, via, ["delegation", "subdelegation"]);
      if (!grant) throw new AppError("delegation_not_found");
      checked(
        checkPledgeDelegation(parsed.envelope, {
          principal_address: grant.principalAddress ?? "",
          agent_address: grant.agentAddress ?? "",
          scopes: JSON.parse(grant.scopes ?? "[]") as string[],
          expires_at: grant.expiresAt ?? "",
          status: grant.status ?? undefined,
        }),
      );
    }
    const p = flatFields(parsed);
    const row = await register(
      access.db,
      {
        projectId: input.project_id,
        id: parsed.id,
        kind: "pledge",
        body: raw,
        status: "pending",
        swearer: p.swearer,
        agentAddress: p.agent_address,
        delegationId: p.via_delegation,
        issuedAt: p.sworn_at,
        expiresAt: p.expires_at,
      },
      "pledge.registered",
    );
    return c.json({ ok: true as const, pledge: envelopeView(row) }, 201);
  },
);

pledgeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/pledges",
    summary: "Public: the pledges a swearer registered",
    middleware: [routeLimit("pledges-by-swearer")],
    request: { query: z.strictObject({ swearer: Address }) },
    responses: { 200: json(z.object({ ok: z.literal(true), pledges: z.array(EnvelopeRecord) }), "Pledges") },
  }),
  async (c) => {
    const { swearer } = c.req.valid("query");
    const db = orm(c.env.DB);
    const rows = await db
      .select()
      .from(envelopes)
      .where(and(eq(envelopes.kind, "pledge"), eq(envelopes.swearer, swearer)))
      .orderBy(asc(envelopes.seq))
      .limit(200);
    const ids = [...new Set(rows.map((r) => r.id))];
    const pledges = await Promise.all(ids.map((id) => publicPledge(db, id)));
    return c.json({ ok: true as const, pledges: pledges.filter((p) => p !== undefined).map(envelopeView) }, 200);
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
      200: json(z.object({ ok: z.literal(true), pledge: EnvelopeRecord }), "The pledge"),
      ...errorResponses("invalid_id", "not_found"),
    },
  }),
  async (c) => {
    const row = await publicPledge(orm(c.env.DB), c.req.valid("param").id);
    if (!row) throw new AppError("not_found");
    return c.json({ ok: true as const, pledge: envelopeView(row) }, 200);
  },
);

/**
 * The public record of a pledge registered in any number of projects (docs/decisions.md, "Public pledge state"):
 * outcomes and abandonments are signed by the swearer or an authorised resolver and verified on registration, so
 * any valid one counts wherever it was registered. The answer is the pledge as stored in the project whose
 * resolution was registered first (so its status is that resolution's), or, with none, as first registered.
 */
async function publicPledge(db: Db, id: string): Promise<EnvelopeRow | undefined> {
  const firstResolution = db
    .select({ projectId: envelopes.projectId })
    .from(envelopes)
    .where(and(eq(envelopes.pledgeId, id), inArray(envelopes.kind, ["outcome", "abandonment"])))
    .orderBy(asc(envelopes.seq))
    .limit(1);
  const resolved = await db
    .select()
    .from(envelopes)
    .where(and(eq(envelopes.kind, "pledge"), eq(envelopes.id, id), eq(envelopes.projectId, firstResolution)))
    .get();
  if (resolved) return resolved;
  return db
    .select()
    .from(envelopes)
    .where(and(eq(envelopes.kind, "pledge"), eq(envelopes.id, id)))
    .orderBy(asc(envelopes.seq))
    .get();
}

/** The stored pledge an outcome or abandonment cites, in the same project. */
async function citedPledge(c: Context<FleetEnv>, projectId: string, pledgeId: string, pathId: string | undefined) {
  if (pathId !== undefined && pathId !== pledgeId)
    throw new AppError("invalid_body", { detail: "pledge_id must be the pledge in the path" });
  const row = await findEnvelope(orm(c.env.DB), projectId, pledgeId, ["pledge"]);
  if (!row) throw new AppError("not_found", { detail: `pledge ${pledgeId} is not registered in this project` });
  return { row, pledge: JSON.parse(row.body) as PledgeEnvelope, status: (row.status ?? "pending") as PledgeStatus };
}

const statusUpdate = (c: Context<FleetEnv>, projectId: string, pledgeId: string, status: string) =>
  orm(c.env.DB)
    .update(envelopes)
    .set({ status })
    .where(
      and(
        eq(envelopes.projectId, projectId),
        eq(envelopes.id, pledgeId),
        eq(envelopes.kind, "pledge"),
        eq(envelopes.status, "pending"),
      ),
    );

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
    row: (parsed: P) => Omit<NewEnvelope, "projectId" | "body" | "id">;
    event: string;
  },
) {
  const input = (c.req.valid as (t: "json") => { project_id: string; envelope: Record<string, unknown> })("json");
  const { access, raw } = await intake(c, input.project_id);
  const parsed = await steps.parse(input.envelope);
  if (!parsed.ok) refuse(parsed);
  const pledgeId = parsed.envelope.pledge_id;
  const cited = await citedPledge(c, input.project_id, pledgeId, inPath ? c.req.param("id") : undefined);
  checked(verifyPledgeSignature(parsed));
  const next = steps.check(parsed, cited.pledge, cited.status, Date.now());
  if (!next.ok) refuse(next);
  return register(
    access.db,
    { ...steps.row(parsed), projectId: input.project_id, id: parsed.id, body: raw, pledgeId },
    steps.event,
    [statusUpdate(c, input.project_id, pledgeId, next.status)],
  );
}

for (const path of ["/api/pledges/{id}/outcome", "/api/pledge-outcomes"] as const) {
  const inPath = path.includes("{id}");
  pledgeRoutes.openapi(
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
          z.object({ ok: z.literal(true), outcome: EnvelopeRecord }),
          "Registered; the pledge took this outcome",
        ),
        ...errorResponses(
          ...REGISTRATION_ERRORS,
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
        row: (parsed) => {
          const o = flatFields(parsed);
          return { kind: "outcome", outcome: o.outcome, signerAddress: o.resolved_by, signedAt: o.resolved_at };
        },
        event: "pledge.outcome",
      });
      return c.json({ ok: true as const, outcome: envelopeView(row) }, 201);
    },
  );
}

for (const path of ["/api/pledges/{id}/abandon", "/api/pledge-abandonments"] as const) {
  const inPath = path.includes("{id}");
  pledgeRoutes.openapi(
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
          z.object({ ok: z.literal(true), abandonment: EnvelopeRecord }),
          "Registered; the pledge is abandoned",
        ),
        ...errorResponses(...REGISTRATION_ERRORS, "pledge_not_pending", "pledge_expired", "signer_must_be_swearer"),
      },
    }),
    async (c) => {
      const row = await resolvePledge(c, inPath, {
        parse: parseAbandonmentEnvelope,
        check: checkAbandonment,
        row: (parsed) => {
          const a = flatFields(parsed);
          return { kind: "abandonment", signerAddress: a.signer_address, reason: a.reason, signedAt: a.abandoned_at };
        },
        event: "pledge.abandoned",
      });
      return c.json({ ok: true as const, abandonment: envelopeView(row) }, 201);
    },
  );
}
