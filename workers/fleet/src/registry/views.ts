// A stored envelope as the registry answers with it: its flat fields (service-spec "Fleet envelopes"), its status,
// and the envelope itself.
import { z } from "@hono/zod-openapi";
import { isoMs } from "../../../../shared/time";
import type { EnvelopeRow } from "./store";

/** A registration's leaf index in its project's log: its proof is served once a checkpoint covers it (docs/log.md). */
export const LogIndex = z
  .number()
  .int()
  .openapi({ description: "The envelope's leaf index in its project's transparency log (docs/log.md)" });

export const EnvelopeRecord = z
  .object({
    id: z.string(),
    project_id: z.string(),
    kind: z.string(),
    status: z.string().nullable().optional(),
    envelope: z.record(z.string(), z.unknown()),
    registered_at: z.string(),
  })
  .catchall(z.unknown())
  .openapi("EnvelopeRecord");

/**
 * A pledge as the public reads show it: the record without the project that registered it (issue 26). Which
 * project holds a pledge is the project's business; the pledge, its swearer and its state are public.
 */
export const PublicPledgeRecord = EnvelopeRecord.omit({ project_id: true }).openapi("PublicPledgeRecord");

export function publicPledgeView(row: EnvelopeRow) {
  const { project_id: _project, ...view } = envelopeView(row);
  return view;
}

const present = (entries: [string, unknown][]) =>
  Object.fromEntries(entries.filter(([, v]) => v !== null && v !== undefined));

export function envelopeView(row: EnvelopeRow) {
  return {
    id: row.id,
    project_id: row.projectId,
    kind: row.kind,
    ...present([
      ["status", row.status],
      ["principal_address", row.principalAddress],
      ["agent_address", row.agentAddress],
      ["signer_address", row.signerAddress],
      ["parent_id", row.parentId],
      ["delegation_id", row.delegationId],
      ["pledge_id", row.pledgeId],
      ["scopes", row.scopes ? (JSON.parse(row.scopes) as string[]) : null],
      ["issued_at", row.issuedAt],
      ["expires_at", row.expiresAt],
      ["signed_at", row.signedAt],
      ["scope_exercised", row.scopeExercised],
      ["content_hash", row.contentHash],
      ["content_length", row.contentLength],
      ["content_mime", row.contentMime],
      ["reason", row.reason],
      ["swearer", row.swearer],
      ["outcome", row.outcome],
    ]),
    // DECISIONS 18: a delegation past expires_at reads as expired, whatever the row says.
    ...(row.status === "active" && row.expiresAt && Date.parse(row.expiresAt) <= Date.now() && { status: "expired" }),
    envelope: JSON.parse(row.body) as Record<string, unknown>,
    registered_at: isoMs(row.createdAt),
  };
}
