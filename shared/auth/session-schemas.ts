// The schemas of the two session routes both workers describe (the auth host serves them; the fleet forwards them
// and lists the same definitions: shared/auth/session-routes.ts), and of the account they answer.
import { z } from "@hono/zod-openapi";
import { DISPLAY_IDENTITY_KINDS } from "./session-token";

export const DidOc = z.string().regex(/^did:oc:[0-9a-f]{32}$/, "must be did:oc: followed by 32 lowercase hex");

export const DisplayIdentitySchema = z
  .object({ kind: z.enum(DISPLAY_IDENTITY_KINDS), value: z.string() })
  .openapi("DisplayIdentity");

export const AccountSchema = z
  .object({
    did_oc: DidOc,
    display_name: z.string().nullable(),
    primary_btc: z.string().nullable(),
    display_identity: DisplayIdentitySchema,
  })
  .openapi("Account");

export const RosterEntrySchema = AccountSchema.extend({ last_seen_at: z.string() }).openapi("RosterEntry");

export const MeResult = z
  .object({ ok: z.literal(true), account: AccountSchema, roster: z.array(RosterEntrySchema) })
  .openapi("MeResult");

export const LogoutQuery = z.strictObject({ scope: z.enum(["current", "all"]).optional() });

export const LogoutResult = z.object({ ok: z.literal(true), switched_to: DidOc.nullable() }).openapi("LogoutResult");
