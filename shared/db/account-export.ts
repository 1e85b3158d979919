// "Download my data" (issue 46, item 4; GDPR articles 15 and 20): each section of the export read from the table
// that holds it, as the document shows it (account-export-schema.ts), never a secret: no token or key hash, no code,
// no public key of a passkey, no client secret. EXPORT_PLAN names, for every table that names an account, the
// section holding its rows or why it has none; test/auth/account-tables.test.ts fails when a table is missing.
import { asc, eq } from "drizzle-orm";
import { isoMs } from "../time";
import type { AccountExport } from "./account-export-schema";
import type { Db } from "./client";
import type { Membership } from "./fleet-holdings";
import {
  accountEvents,
  accountIdentities,
  accounts,
  connectApps,
  connectUsers,
  knownDevices,
  mailSettings,
  oidcClients,
  oidcConsents,
  sessions,
  webauthnCredentials,
} from "./schema";

type Sections = Omit<AccountExport, "format" | "generated_at">;
export type SectionName = keyof Sections;

/** For each table naming an account: the export's section holding its rows, or why the export leaves it out. */
export const EXPORT_PLAN: Record<string, { section: SectionName } | { omitted: string }> = {
  accounts: { section: "account" },
  account_identities: { section: "identities" },
  webauthn_credentials: { section: "passkeys" },
  sessions: { section: "sessions" },
  known_devices: { section: "known_devices" },
  mail_settings: { section: "mail_settings" },
  account_events: { section: "account_log" },
  oidc_clients: { section: "oidc_apps" },
  oidc_consents: { section: "oidc_consents" },
  connect_apps: { section: "connect_apps" },
  connect_users: { section: "connect_links" },
  email_codes: { omitted: "a code in flight: only its keyed hash, gone within the hour" },
  webauthn_challenges: { omitted: "a security-key challenge in flight: single use, gone within minutes" },
  oidc_refresh_rotations: { omitted: "hashes of refresh tokens already replaced, kept only to refuse their reuse" },
};

const maybeIso = (ms: number | null) => (ms === null ? null : isoMs(ms));

function parsedArray(json: string | null): string[] {
  if (!json) return [];
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function parsedObject(json: string | null): Record<string, unknown> | null {
  if (!json) return null;
  const value: unknown = JSON.parse(json);
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** The readers of the sections held in the auth database, in the document's order. */
export const SECTION_READERS: {
  [K in Exclude<SectionName, "fleet_memberships">]: (db: Db, id: string) => Promise<Sections[K]>;
} = {
  account: async (db, id) => {
    const a = await db.select().from(accounts).where(eq(accounts.id, id)).get();
    if (!a) throw new Error("no such account");
    return {
      did_oc: a.didOc,
      display_name: a.displayName,
      primary_btc: a.primaryBtc,
      display_identity_kind: a.displayIdentityKind,
      recovery_email: a.recoveryEmail,
      recovery_set_at: maybeIso(a.recoverySetAt),
      merged_from: parsedArray(a.mergedFrom),
      created_at: isoMs(a.createdAt),
      updated_at: isoMs(a.updatedAt),
      deletion_requested_at: maybeIso(a.deletionRequestedAt),
      deletion_due_at: maybeIso(a.deletionDueAt),
    };
  },
  identities: async (db, id) =>
    (
      await db
        .select()
        .from(accountIdentities)
        .where(eq(accountIdentities.accountId, id))
        .orderBy(asc(accountIdentities.createdAt))
    ).map((r) => ({ kind: r.kind, value: r.value, created_at: isoMs(r.createdAt) })),
  passkeys: async (db, id) =>
    (
      await db
        .select()
        .from(webauthnCredentials)
        .where(eq(webauthnCredentials.accountId, id))
        .orderBy(asc(webauthnCredentials.createdAt))
    ).map((r) => ({
      id: r.id,
      name: r.name,
      device_type: r.deviceType,
      backed_up: r.backedUp,
      transports: parsedArray(r.transports),
      created_at: isoMs(r.createdAt),
      last_used_at: maybeIso(r.lastUsedAt),
    })),
  sessions: async (db, id) =>
    (await db.select().from(sessions).where(eq(sessions.accountId, id)).orderBy(asc(sessions.createdAt))).map((r) => ({
      id: r.id,
      roster_id: r.rosterId,
      auth_method: r.authMethod,
      created_at: isoMs(r.createdAt),
      authenticated_at: isoMs(r.authenticatedAt),
      stepped_up_at: maybeIso(r.steppedUpAt),
      last_seen_at: isoMs(r.lastSeenAt),
      expires_at: isoMs(r.expiresAt),
      user_agent: r.userAgent,
      place: r.place,
    })),
  known_devices: async (db, id) =>
    (
      await db.select().from(knownDevices).where(eq(knownDevices.accountId, id)).orderBy(asc(knownDevices.firstSeenAt))
    ).map((r) => ({
      device_hash: r.deviceHash,
      first_seen_at: isoMs(r.firstSeenAt),
      last_seen_at: isoMs(r.lastSeenAt),
    })),
  mail_settings: async (db, id) => {
    const r = await db.select().from(mailSettings).where(eq(mailSettings.accountId, id)).get();
    return r ? { app_allowed: r.appAllowed, updated_at: isoMs(r.updatedAt) } : null;
  },
  account_log: async (db, id) =>
    (await db.select().from(accountEvents).where(eq(accountEvents.accountId, id)).orderBy(asc(accountEvents.seq))).map(
      (r) => ({
        seq: r.seq,
        event_type: r.eventType,
        detail: parsedObject(r.detail),
        session_id: r.sessionId,
        created_at: isoMs(r.createdAt),
      }),
    ),
  oidc_apps: async (db, id) =>
    (await db.select().from(oidcClients).where(eq(oidcClients.accountId, id)).orderBy(asc(oidcClients.createdAt))).map(
      (r) => ({
        client_id: r.clientId,
        name: r.name,
        logo_uri: r.logoUri,
        client_type: r.clientType,
        redirect_uris: parsedArray(r.redirectUris),
        created_at: isoMs(r.createdAt),
        revoked_at: maybeIso(r.revokedAt),
      }),
    ),
  oidc_consents: async (db, id) =>
    (
      await db
        .select({ consent: oidcConsents, name: oidcClients.name })
        .from(oidcConsents)
        .leftJoin(oidcClients, eq(oidcClients.clientId, oidcConsents.clientId))
        .where(eq(oidcConsents.accountId, id))
        .orderBy(asc(oidcConsents.createdAt))
    ).map(({ consent, name }) => ({
      client_id: consent.clientId,
      app_name: name,
      scopes: consent.scopes.split(" ").filter(Boolean),
      created_at: isoMs(consent.createdAt),
    })),
  connect_apps: async (db, id) =>
    (
      await db.select().from(connectApps).where(eq(connectApps.ownerAccountId, id)).orderBy(asc(connectApps.createdAt))
    ).map((r) => ({ id: r.id, name: r.name, created_at: isoMs(r.createdAt), rotated_at: maybeIso(r.rotatedAt) })),
  connect_links: async (db, id) =>
    (
      await db.select().from(connectUsers).where(eq(connectUsers.accountId, id)).orderBy(asc(connectUsers.createdAt))
    ).map((r) => ({ app_id: r.appId, user_id: r.userId, email: r.email, created_at: isoMs(r.createdAt) })),
};

/** The fleet section from the registry's memberships (fleet-holdings.ts). */
export const membershipSection = (memberships: Membership[]): Sections["fleet_memberships"] =>
  memberships.map((m) => ({ ...m, joined_at: isoMs(m.joined_at) }));

/**
 * The document as a stream: the opening, then each section written as soon as it is read (one section in memory at a
 * time), then the closing brace. `read` gives a section's value by name, in the order `names` lists them.
 */
export function exportStream(
  head: { format: string; generated_at: string },
  names: readonly SectionName[],
  read: (name: SectionName) => Promise<unknown>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(JSON.stringify(head).slice(0, -1)));
    },
    async pull(controller) {
      const name = names[next++];
      if (name === undefined) {
        controller.enqueue(encoder.encode("}\n"));
        controller.close();
        return;
      }
      const value = await read(name);
      controller.enqueue(encoder.encode(`,\n${JSON.stringify(name)}:${JSON.stringify(value)}`));
    },
  });
}
