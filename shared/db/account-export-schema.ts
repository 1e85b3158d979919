// The shape of "Download my data" (issue 46, item 4; docs/account-export.md): one JSON document, one key per section.
// The schema is the document's contract: docs/account-export.md holds its JSON Schema (z.toJSONSchema of this), and
// test/auth/account-export.test.ts checks a real export against it and the page against this. Times are ISO 8601.
import { z } from "zod";

const time = z.string().describe("ISO 8601, UTC");
const maybeTime = time.nullable();

export const EXPORT_FORMAT = "oc-account-export/1";

export const AccountExportSchema = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  generated_at: time,
  account: z.strictObject({
    did_oc: z.string(),
    display_name: z.string().nullable(),
    primary_btc: z.string().nullable(),
    display_identity_kind: z.string(),
    recovery_email: z.string().nullable(),
    recovery_set_at: maybeTime,
    merged_from: z.array(z.string()),
    created_at: time,
    updated_at: time,
    deletion_requested_at: maybeTime,
    deletion_due_at: maybeTime,
  }),
  identities: z.array(z.strictObject({ kind: z.string(), value: z.string(), created_at: time })),
  passkeys: z.array(
    z
      .strictObject({
        id: z.string(),
        name: z.string(),
        device_type: z.string(),
        backed_up: z.boolean(),
        transports: z.array(z.string()),
        created_at: time,
        last_used_at: maybeTime,
      })
      .describe("Security keys and passkeys: their metadata, never the public key"),
  ),
  sessions: z.array(
    z
      .strictObject({
        id: z.string(),
        roster_id: z.string().nullable(),
        auth_method: z.string().nullable(),
        created_at: time,
        authenticated_at: time,
        stepped_up_at: maybeTime,
        last_seen_at: time,
        expires_at: time,
        user_agent: z.string().nullable(),
        place: z.string().nullable(),
      })
      .describe("Signed-in sessions: never the token or its hash"),
  ),
  known_devices: z.array(
    z
      .strictObject({ device_hash: z.string(), first_seen_at: time, last_seen_at: time })
      .describe("Browsers the account signed in from: the sha256 of a random cookie, nothing more"),
  ),
  mail_settings: z
    .strictObject({ app_allowed: z.boolean(), updated_at: time })
    .nullable()
    .describe("The notices turned off; null: every notice on"),
  account_log: z.array(
    z.strictObject({
      seq: z.number().int(),
      event_type: z.string(),
      detail: z.record(z.string(), z.unknown()).nullable(),
      session_id: z.string().nullable(),
      created_at: time,
    }),
  ),
  oidc_apps: z.array(
    z
      .strictObject({
        client_id: z.string(),
        name: z.string(),
        logo_uri: z.string().nullable(),
        client_type: z.string(),
        redirect_uris: z.array(z.string()),
        created_at: time,
        revoked_at: maybeTime,
      })
      .describe("OpenID apps the account registered: never a client secret"),
  ),
  oidc_consents: z.array(
    z.strictObject({
      client_id: z.string(),
      app_name: z.string().nullable(),
      scopes: z.array(z.string()),
      created_at: time,
    }),
  ),
  connect_apps: z.array(
    z
      .strictObject({ id: z.string(), name: z.string(), created_at: time, rotated_at: maybeTime })
      .describe("Connect apps the account owns: never the API key or its hash"),
  ),
  connect_links: z.array(
    z
      .strictObject({ app_id: z.string(), user_id: z.string(), email: z.string().nullable(), created_at: time })
      .describe("Connect apps that provisioned this account, as their user"),
  ),
  fleet_memberships: z.array(
    z
      .strictObject({
        project_id: z.string(),
        project_name: z.string(),
        address: z.string(),
        role: z.string(),
        owner_address: z.string(),
        archived: z.boolean(),
        joined_at: time,
      })
      .describe("Fleet projects one of the account's Bitcoin addresses is a member of, on every registry shard"),
  ),
});

export type AccountExport = z.infer<typeof AccountExportSchema>;

/** The JSON Schema docs/account-export.md holds (a test checks the page says exactly this). */
export const accountExportJsonSchema = () => z.toJSONSchema(AccountExportSchema);
