// Schemas of the account security routes (issue 27): identities, re-authentication, merging, the account log and
// the roster's sessions. Named, so the routes, the OpenAPI description and the tests share them.
import { z } from "@hono/zod-openapi";
import { ACCOUNT_EVENTS } from "../../../shared/db/account-events";
import { BitcoinAddressParam, DidOc } from "./schemas";

export const IdentityKind = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, "an identity kind (btc, email, a provider)");

export const IdentitySchema = z
  .object({
    kind: z.string(),
    value: z.string(),
    created_at: z.string(),
    /** For a Bitcoin address: whether it is the account's primary_btc. */
    primary: z.boolean(),
  })
  .openapi("Identity");

export const IdentitiesResult = z
  .object({ ok: z.literal(true), identities: z.array(IdentitySchema) })
  .openapi("IdentitiesResult");

/**
 * A BIP-322 signature over a challenge of the route's purpose (`link` or `reauth`: GET /api/challenge?addr=…&
 * audience=<this origin>&purpose=link|reauth), with its nonce.
 */
export const ProvenAddressBody = z
  .strictObject({
    address: BitcoinAddressParam,
    message: z.string().min(1).max(2048),
    signature: z.string().min(1).max(2048),
    nonce: z.string().min(1).max(64),
  })
  .openapi("ProvenAddressRequest");

export const IdentityParams = z.object({
  kind: IdentityKind.openapi({ param: { name: "kind", in: "path" } }),
  value: z
    .string()
    .min(1)
    .max(512)
    .openapi({ param: { name: "value", in: "path" } }),
});

export const PrimaryBtcBody = z.strictObject({ address: BitcoinAddressParam.nullable() }).openapi("PrimaryBtcRequest");

export const MergeBody = z.strictObject({ did_oc: DidOc }).openapi("MergeRequest");

export const AccountEventSchema = z
  .object({
    seq: z.number().int(),
    event_type: z.enum(ACCOUNT_EVENTS),
    detail: z.record(z.string(), z.unknown()).nullable(),
    /** The session row that made the change (an opaque id; this browser's own rows are marked `this_session`). */
    session: z.string().nullable(),
    this_session: z.boolean(),
    at: z.string(),
  })
  .openapi("AccountEvent");

export const AccountLogQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  before: z.coerce.number().int().min(1).optional(),
});

export const AccountLogResult = z
  .object({ ok: z.literal(true), events: z.array(AccountEventSchema), next_before: z.number().int().nullable() })
  .openapi("AccountLogResult");

export const FreshnessSchema = z
  .object({
    sudo_at: z.string().nullable(),
    step_up_at: z.string().nullable(),
    /** Until when each is fresh for sensitive operations (null: not fresh now). */
    sudo_fresh_until: z.string().nullable(),
    step_up_fresh_until: z.string().nullable(),
  })
  .openapi("Freshness");

export const FreshnessResult = z.object({ ok: z.literal(true), freshness: FreshnessSchema }).openapi("FreshnessResult");
