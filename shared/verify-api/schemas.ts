// Named request and response schemas of the verification API: the verify worker validates with them and both the
// verify worker and the auth host (which forwards these routes) describe them in their OpenAPI documents.
import { z } from "@hono/zod-openapi";

const ATTESTATION_ID = /^[0-9a-f]{64}$/;
const Address = z
  .string()
  .min(14)
  .max(90)
  .regex(/^[A-Za-z0-9]+$/, "must be a Bitcoin address");
const AttestationId = z.string().regex(ATTESTATION_ID, "must be 64 lowercase hex");
const IdentityParam = z
  .string()
  .max(300)
  .regex(/^[a-z][a-z0-9_-]*:[\x21-\x7e]+$/, "must be protocol:identifier");
/** Thresholds are non-negative integers written in plain digits; anything else is a 400. */
const Threshold = z
  .string()
  .regex(/^\d{1,16}$/, "must be a non-negative integer")
  .transform(Number);

export const CODES = [
  "sig_ok_bip322",
  "sig_ok_legacy",
  "sig_invalid",
  "sig_unsupported_script",
  "invalid_scheme",
  "decode_error",
  "invalid_attestation_id",
  "bond_confirmed",
  "bond_zero",
  "bond_pending",
  "bond_insufficient",
  "below_min_sats",
  "below_min_days",
  "aud_mismatch",
  "expired",
  "network_testmode",
  "bad_request",
  "not_found",
] as const;
const Code = z.enum(CODES);

export const VerifyBody = z
  .strictObject({
    addr: z.string().min(1).max(90),
    msg: z.string().min(1).max(8192),
    sig: z.string().min(1).max(8192),
    scheme: z.string().max(16).optional(),
    attestation_id: z.string().max(64).optional(),
    audience: z.string().max(256).optional(),
  })
  .openapi("VerifyRequest");

const Identity = z.object({ protocol: z.string(), identifier: z.string() }).openapi("Identity");
const Metrics = z.object({ sats_bonded: z.number(), days_unspent: z.number(), score: z.number() });

export const VerifyResult = z
  .object({
    ok: z.boolean(),
    codes: z.array(Code),
    network: z.string(),
    attestation_id: z.string().nullable(),
    identities: z.array(Identity),
    metrics: Metrics,
    block_height: z.number().int().optional(),
    block_hash: z.string().optional(),
    confirmations_required: z.number().int(),
  })
  .openapi("VerifyResult");

const subjectFields = { addr: Address.optional(), id: AttestationId.optional(), identity: IdentityParam.optional() };

export const CheckQuery = z
  .strictObject({ ...subjectFields, min_sats: Threshold.optional(), min_days: Threshold.optional() })
  .refine((q) => q.addr !== undefined || q.id !== undefined || q.identity !== undefined, {
    message: "give at least one of addr, id, identity",
  });

export const CheckResult = z
  .object({
    ok: z.boolean(),
    sats: z.number().int(),
    days: z.number().int(),
    score: z.number(),
    attestation_id: z.string(),
    address: z.string(),
    identities: z.array(Identity),
    network: z.string(),
    reasons: z.array(Code).optional(),
    block_height: z.number().int().optional(),
    block_hash: z.string().optional(),
  })
  .openapi("CheckResult");

export const NotFoundResult = z.object({ ok: z.literal(false), reasons: z.array(z.literal("not_found")) });

/** `?limit=` of discover: at most this many attestations, and the default (docs/decisions.md, issue 16). */
export const DISCOVER_MAX_LIMIT = 100;
/** Plain digits 1-100, as the fleet's `?limit=`; anything else (0, 101, -1, 1.5, 1e2) is a 400, never clamped. */
const DiscoverLimit = z
  .string()
  .regex(/^\d{1,3}$/, "must be an integer")
  .transform(Number)
  .refine((n) => n >= 1 && n <= DISCOVER_MAX_LIMIT, `must be 1-${DISCOVER_MAX_LIMIT}`);

export const DiscoverQuery = z
  .strictObject({ ...subjectFields, limit: DiscoverLimit.optional() })
  .refine((q) => [q.addr, q.id, q.identity].filter((v) => v !== undefined).length === 1, {
    message: "give exactly one of addr, id, identity",
  });

export const DiscoverResult = z
  .object({
    count: z.number().int(),
    total: z.number().int(),
    attestations: z.array(z.record(z.string(), z.unknown()).openapi("AttestationEnvelope")),
  })
  .openapi("DiscoverResult");

export function identityParam(value: string | undefined) {
  if (value === undefined) return undefined;
  const colon = value.indexOf(":");
  return { protocol: value.slice(0, colon), identifier: value.slice(colon + 1) };
}
