// The D1 schema, in one place. Migrations in d1-migrations/ are generated from it by drizzle-kit.
// Times are epoch milliseconds (integers); secrets are stored only as hashes (DECISIONS 8).
// Over 250 lines on purpose: it is one idea, the database's shape, which drizzle-kit reads whole to generate each
// migration, and one file is where a reviewer sees every table, key and index of D1 at once.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const accounts = sqliteTable(
  "accounts",
  {
    id: text("id").primaryKey(), // 32 lowercase hex; did_oc = "did:oc:" + id
    didOc: text("did_oc").notNull().unique(),
    displayName: text("display_name"),
    primaryBtc: text("primary_btc"),
    displayIdentityKind: text("display_identity_kind").notNull().default("did"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /**
     * The recovery address (issue 27): an email proven by a code, through which a person who lost every sign-in
     * identity gets back in (docs/decisions.md, "Account security"). One account per address.
     */
    recoveryEmail: text("recovery_email"),
    recoverySetAt: integer("recovery_set_at"),
    /** Set on an account merged into another (issue 27): its identities moved there; it signs nobody in again. */
    mergedInto: text("merged_into"),
    /** The did_oc of the accounts merged into this one, JSON array (auth-core's `merged_from` claim). */
    mergedFrom: text("merged_from"),
    /** Leaving (issue 46): when deletion was asked, and when its grace period ends (the cron erases it then). */
    deletionRequestedAt: integer("deletion_requested_at"),
    deletionDueAt: integer("deletion_due_at"),
    /** Set when the account was erased: the row stays, personal columns nulled, a tombstone of its did_oc. */
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    index("accounts_deletion_due").on(t.deletionDueAt).where(sql`deletion_due_at IS NOT NULL`),
    // Only the accounts that set one (0022): no NULL entry written per account.
    uniqueIndex("accounts_recovery_email_unique").on(t.recoveryEmail).where(sql`recovery_email IS NOT NULL`),
  ],
);

/**
 * Sign-in identities (a Bitcoin address, an email, a provider subject); one account each, enforced here. WITHOUT
 * ROWID (0022): the key is the table, so a new identity writes its row and `account_identities_account` only.
 */
export const accountIdentities = sqliteTable(
  "account_identities",
  {
    kind: text("kind").notNull(),
    value: text("value").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.value] }), index("account_identities_account").on(t.accountId)],
);

/**
 * One row per signed-in account per browser. The cookie's JWT names the row by `jti`; only sha256(jti) is stored.
 * Rows sharing a roster_id are one browser's roster; roster_id NULL marks a legacy single session. WITHOUT ROWID,
 * keyed by (account, token hash) (0022): the cookie's check is one key lookup, a new row two rows written.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    /** The row's public name (the devices list); a row is addressed by its account and id. */
    id: text("id").notNull(),
    tokenHash: text("token_hash").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    rosterId: text("roster_id"),
    /** The last proof of an identity of this account in this browser: a sign-in or a re-authentication (`sudo_at`). */
    authenticatedAt: integer("authenticated_at").notNull(),
    /** How that proof was made: bip322 | email | provider | passkey | recovery (the account log, later `amr`). */
    authMethod: text("auth_method"),
    /** The last hardware-key (WebAuthn) assertion of this account in this browser (`step_up_at`), or null. */
    steppedUpAt: integer("stepped_up_at"),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    /** The browser's User-Agent at sign-in, cut to 512 characters (parsed when the devices are listed; issue 46). */
    userAgent: text("user_agent"),
    /** The approximate place of the sign-in (Cloudflare's city, region, country), or null when unknown. */
    place: text("place"),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.tokenHash] }),
    uniqueIndex("sessions_roster_account").on(t.rosterId, t.accountId),
  ],
);

/**
 * Issued orangecheck-auth challenges; a row is deleted when its nonce is used (single use, atomic). WITHOUT ROWID,
 * keyed by (expires_at, nonce) (0022): one row written, the sweep reads the key's expired range.
 */
export const challenges = sqliteTable(
  "challenges",
  {
    nonce: text("nonce").notNull(),
    messageHash: text("message_hash").notNull(),
    address: text("address").notNull(),
    audience: text("audience"),
    purpose: text("purpose"),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.expiresAt, t.nonce] })],
);

// ---- fleet registry ----

export const projects = sqliteTable(
  "projects",
  {
    id: text("id").primaryKey(), // proj_<24 hex>
    name: text("name").notNull(),
    ownerAddress: text("owner_address").notNull(),
    archivedAt: integer("archived_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    logPublicAt: integer("log_public_at"), // when its owner made its log public; NULL: private (0024)
  },
  (t) => [index("projects_log_public").on(t.logPublicAt, t.id).where(sql`log_public_at IS NOT NULL`)],
);

/** (project, address) is unique: the database refuses a second invite, not a read-then-write. */
export const members = sqliteTable(
  "members",
  {
    id: text("id").primaryKey(), // mem_<24 hex>
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    address: text("address").notNull(),
    role: text("role").notNull(), // owner | admin | member | viewer
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("members_project_address").on(t.projectId, t.address), index("members_address").on(t.address)],
);

/** API tokens: only sha256 of the secret is stored (DECISIONS 8, 13). */
export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: text("id").primaryKey(), // tok_<24 hex>
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    hint: text("hint").notNull(), // last 4 characters, to tell tokens apart
    /** The owner's address that minted it: the token works only while that address is an owner of the project. */
    createdBy: text("created_by").notNull(),
    /** What the token may do: owner (the spec's default), register (envelopes and reads) or read. */
    scope: text("scope").notNull().default("owner"),
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
    lastUsedAt: integer("last_used_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("api_tokens_project").on(t.projectId)],
);

/** Append-only record of privilege-changing operations. */
export const adminLog = sqliteTable(
  "admin_log",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    projectId: text("project_id").notNull(),
    actor: text("actor").notNull(),
    eventType: text("event_type").notNull(),
    targetId: text("target_id"),
    detail: text("detail"), // JSON
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("admin_log_project").on(t.projectId, t.seq)],
);

/**
 * Registered envelopes of every kind, content-addressed: (project, id) is unique, so a re-post is refused by the
 * database. `body` holds the envelope bytes exactly as received; the audit export and webhooks return them.
 * `seq` orders registrations (replay order within a kind): the rowid, without AUTOINCREMENT since 0021 (its counter
 * was a row written per registration; envelopes are never deleted, so no seq is reused). Each row is also its
 * project's transparency-log leaf (`leafIdx`, `leafHash`; issue 47: no row of its own).
 */
export const envelopes = sqliteTable(
  "envelopes",
  {
    seq: integer("seq").primaryKey(),
    projectId: text("project_id").notNull(),
    id: text("id").notNull(),
    kind: text("kind").notNull(), // delegation | subdelegation | action | revocation | pledge | outcome | abandonment
    body: text("body").notNull(),
    status: text("status"), // delegations: active | revoked; pledges: pending | kept | broken | … | abandoned
    principalAddress: text("principal_address"),
    agentAddress: text("agent_address"),
    signerAddress: text("signer_address"),
    parentId: text("parent_id"),
    delegationId: text("delegation_id"),
    pledgeId: text("pledge_id"),
    depth: integer("depth"),
    scopes: text("scopes"), // JSON array
    issuedAt: text("issued_at"),
    expiresAt: text("expires_at"),
    signedAt: text("signed_at"),
    scopeExercised: text("scope_exercised"),
    contentHash: text("content_hash"),
    contentLength: integer("content_length"),
    contentMime: text("content_mime"),
    reason: text("reason"),
    swearer: text("swearer"),
    outcome: text("outcome"),
    createdAt: integer("created_at").notNull(),
    /**
     * The registration's event (outbox.id). Set by a registration's insert: the `envelopes_registered` trigger
     * (d1-migrations/0021) then writes that event in the same statement. Null for rows from before.
     */
    eventId: text("event_id"),
    /**
     * The RFC 9162 leaf hash of `body`, hex, computed by the registration (the worker has the bytes; SQLite has no
     * SHA-256). Null for leaves from before registrations carried it, until the cron hashes them
     * (registry/leaf-hashes.ts); the log extends only over hashed leaves.
     */
    leafHash: text("leaf_hash"),
    /**
     * The envelope's leaf index in its project's log (from 0, in registration order), given by the registration's
     * own insert (`max + 1` in the same statement). Null only for a row written around a registration (none is).
     */
    leafIdx: integer("leaf_idx"),
  },
  (t) => [
    uniqueIndex("envelopes_project_id").on(t.projectId, t.id),
    index("envelopes_project_kind").on(t.projectId, t.kind, t.seq),
    // The log's leaves in order (integration, proofs' entries, recovery) and an envelope's leaf by its row.
    uniqueIndex("envelopes_leaf").on(t.projectId, t.leafIdx),
    // The leaves still to hash (from before registrations carried their hash): the cron's bounded slices find them
    // without scanning the hashed ones; a registration, which carries its hash, never enters it.
    index("envelopes_unhashed").on(t.projectId, t.leafIdx).where(sql`leaf_hash IS NULL AND leaf_idx IS NOT NULL`),
    // Partial where a column is set only for some kinds, so a registration enters only the indexes its kind needs
    // (a row written per index entry is what D1 bills; docs/scale.md, "What it costs"). A query's `col = ?`
    // implies `col IS NOT NULL`, so SQLite uses these without the query saying so; the two on pledges need the
    // query to say `kind = 'pledge'` as a literal (registry/pledge-rows.ts).
    index("envelopes_parent").on(t.projectId, t.parentId).where(sql`parent_id IS NOT NULL`),
    // A delegation's actions (a revocation carries a delegation id too, but no read lists by it through here).
    index("envelopes_delegation").on(t.projectId, t.delegationId).where(sql`kind = 'action'`),
    index("envelopes_swearer").on(t.swearer).where(sql`swearer IS NOT NULL`),
    index("envelopes_pledge_id").on(t.id).where(sql`kind = 'pledge'`),
    index("envelopes_pledges_pending").on(t.expiresAt).where(sql`kind = 'pledge' AND status = 'pending'`),
    index("envelopes_resolutions").on(t.pledgeId).where(sql`kind IN ('outcome', 'abandonment')`),
    // One resolution (outcome or abandonment) per pledge per project, even under concurrent registration.
    uniqueIndex("envelopes_pledge_resolution")
      .on(t.projectId, t.pledgeId)
      .where(sql`kind IN ('outcome', 'abandonment')`),
  ],
);

/** Events waiting for webhook fan-out (the webhook issue delivers from here); written with their envelope. */
export const outbox = sqliteTable(
  "outbox",
  {
    id: text("id").primaryKey(), // evt_<24 hex>
    projectId: text("project_id").notNull(),
    eventType: text("event_type").notNull(),
    envelopeId: text("envelope_id"),
    payload: text("payload").notNull(), // the delivery body, JSON
    /** Set for an event meant for one endpoint only (test.ping). */
    endpointId: text("endpoint_id"),
    createdAt: integer("created_at").notNull(),
    fannedOutAt: integer("fanned_out_at"),
  },
  (t) => [index("outbox_pending").on(t.fannedOutAt, t.createdAt)],
);

/**
 * Each project's log as C2SP tlog-tiles (issue 29; docs/log.md): one row per tile, holding its current content
 * (base64 of `width` × 32 bytes; a narrower width of the same tile is a prefix of it, so one row serves every
 * partial form, and a full tile's row never changes again). Written only by the project's log integrator
 * (durable-objects/log-integrator.ts), never by a registration.
 */
export const logTiles = sqliteTable(
  "log_tiles",
  {
    projectId: text("project_id").notNull(),
    level: integer("level").notNull(),
    idx: integer("idx").notNull(),
    hashes: text("hashes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.level, t.idx] })],
);

/**
 * Each project's integrated log: the size the tiles cover, its root (base64) and the checkpoint the integrator
 * signed for it (C2SP signed note, served as is). No row: the empty log.
 */
export const logState = sqliteTable("log_state", {
  projectId: text("project_id").primaryKey(),
  size: integer("size").notNull(),
  root: text("root").notNull(),
  checkpoint: text("checkpoint").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Registrations per project, hour (UTC, epoch hours of the envelope's `created_at`) and kind (issue 30): written by
 * the log integrator in the same batch that moves the log's state over those leaves, so every integrated leaf is
 * counted once, and never by a registration (no row written on its path). The activity route reads hours, not
 * envelopes (workers/fleet/src/activity/).
 */
export const activityHours = sqliteTable(
  "activity_hours",
  {
    projectId: text("project_id").notNull(),
    hour: integer("hour").notNull(),
    kind: text("kind").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.hour, t.kind] })],
);

/**
 * Webhook delivery attempts per endpoint and hour (UTC) by outcome, with a histogram of the attempts' latency (one
 * column per bound in workers/fleet/src/activity/latency.ts) and the hour's last failure: written in the same batch
 * as the attempt's result.
 */
export const deliveryHours = sqliteTable(
  "delivery_hours",
  {
    endpointId: text("endpoint_id").notNull(),
    hour: integer("hour").notNull(),
    projectId: text("project_id").notNull(),
    succeeded: integer("succeeded").notNull().default(0),
    retried: integer("retried").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    latency: text("latency").notNull().default("[]"),
    lastFailureAt: integer("last_failure_at"),
    lastFailure: text("last_failure"),
  },
  (t) => [primaryKey({ columns: [t.endpointId, t.hour] })],
);

/** Requests refused by a project's rate limits per hour (UTC) and bucket ("project" or "caller"). */
export const refusalHours = sqliteTable(
  "refusal_hours",
  {
    projectId: text("project_id").notNull(),
    hour: integer("hour").notNull(),
    bucket: text("bucket").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.hour, t.bucket] })],
);

/**
 * Apps that sign people in with this host as their OpenID Connect provider (issue 33): registered by a signed-in
 * account for its own app. The protocol record (redirect URIs, the secret's hash, its auth method) is the OAuth
 * library's, in KV (workers/auth/src/oidc/); this row is who owns the client, what the account page lists, and
 * whether it was revoked.
 */
export const oidcClients = sqliteTable(
  "oidc_clients",
  {
    clientId: text("client_id").primaryKey(),
    accountId: text("account_id").notNull(),
    name: text("name").notNull(),
    logoUri: text("logo_uri"),
    /** `public` (PKCE only) or `confidential` (a client secret too). */
    clientType: text("client_type").notNull(),
    redirectUris: text("redirect_uris").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("oidc_clients_account").on(t.accountId, t.createdAt)],
);

/** What an account allowed an app to read (its scopes), remembered so the consent page is not shown again. */
export const oidcConsents = sqliteTable(
  "oidc_consents",
  {
    accountId: text("account_id").notNull(),
    clientId: text("client_id").notNull(),
    scopes: text("scopes").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.clientId] }), index("oidc_consents_client").on(t.clientId)],
);

/** Each nonce an app sent with an authorization that issued a code, so the same nonce is refused again. */
export const oidcNonces = sqliteTable(
  "oidc_nonces",
  {
    clientId: text("client_id").notNull(),
    nonce: text("nonce").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.nonce] })],
);

/**
 * One row per authorization code exchanged, by its grant (a grant holds one code): the claim that makes a code's
 * single use hold across locations, where the library's KV record of it may be a minute stale. Each claim deletes
 * the rows past CODE_CLAIM_MEMORY_MS first; `oidc_code_exchanges_at` makes that delete read only those.
 */
export const oidcCodeExchanges = sqliteTable(
  "oidc_code_exchanges",
  {
    grantId: text("grant_id").primaryKey(),
    exchangedAt: integer("exchanged_at").notNull(),
  },
  (t) => [index("oidc_code_exchanges_at").on(t.exchangedAt)],
);

/**
 * One row per refresh token a grant rotated away from, by the token's sha256 (never the token): the claim that
 * makes a refresh token single use. A token found here is retired; presenting it again revokes its grant (RFC 9700
 * 4.14.2). Each claim deletes the rows past REFRESH_ROTATION_MEMORY_MS first, on `oidc_refresh_rotations_at`.
 */
export const oidcRefreshRotations = sqliteTable(
  "oidc_refresh_rotations",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantId: text("grant_id").notNull(),
    accountId: text("account_id").notNull(),
    rotatedAt: integer("rotated_at").notNull(),
  },
  (t) => [index("oidc_refresh_rotations_at").on(t.rotatedAt)],
);

/** One row per completed audit export: its counts and digest (GET /api/audit/bundles). */
export const auditBundles = sqliteTable(
  "audit_bundles",
  {
    id: text("id").primaryKey(), // bnd_<24 hex>
    projectId: text("project_id").notNull(),
    format: text("format").notNull(),
    counts: text("counts").notNull(), // JSON {delegation: n, …}
    sha256: text("sha256").notNull(),
    kid: text("kid").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("audit_bundles_project").on(t.projectId, t.createdAt)],
);

/** Webhook endpoints; the signing secret is stored sealed with WEBHOOK_MASTER_KEY (DECISIONS 14). */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(), // whe_<24 hex>
    projectId: text("project_id").notNull(),
    url: text("url").notNull(),
    eventTypes: text("event_types").notNull(), // JSON array of open strings
    active: integer("active", { mode: "boolean" }).notNull(),
    secretSealed: text("secret_sealed").notNull(),
    // A rolled secret's predecessor, sealed the same way, and until when deliveries also carry its signature.
    previousSecretSealed: text("previous_secret_sealed"),
    previousSecretUntil: integer("previous_secret_until"),
    /** When the endpoint was last paused (kept after it resumes: recovering the pause's events starts there). */
    pausedAt: integer("paused_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_project").on(t.projectId)],
);

/**
 * One row per event fan-out to one endpoint (unique on the pair, so a fan-out is never doubled); each attempt
 * updates it. The idempotency key is stable across attempts and differs across endpoints.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(), // whd_<24 hex>
    projectId: text("project_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    state: text("state").notNull(), // pending | in_flight | succeeded | failed
    attemptCount: integer("attempt_count").notNull(),
    statusCode: integer("status_code"),
    errorMessage: text("error_message"),
    nextRetryAt: integer("next_retry_at"),
    succeededAt: integer("succeeded_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_endpoint").on(t.eventId, t.endpointId),
    index("webhook_deliveries_due").on(t.endpointId, t.state, t.nextRetryAt),
    index("webhook_deliveries_project").on(t.projectId, t.createdAt),
  ],
);

// ---- auth host: email codes, OAuth, Connect ----

/**
 * Email codes (issues 26, 27): `id` names the attempt. A sign-in (`signin`) or recovery sign-in (`recovery`) attempt
 * is held by the browser that asked, in a cookie; a `link`, `reauth` or `recovery_set` attempt by the signed-in
 * account (`account_id`, id `<purpose>:<account id>`). The code is stored as an HMAC keyed by EMAIL_CODE_KEY over
 * purpose, account, email, attempt and code (shared/auth/email-code.ts). Wrong tries count per attempt and survive
 * a resend (better-auth #11162); an attempt lives an hour from its start (`created_at`), its code 10 minutes.
 */
export const emailCodes = sqliteTable(
  "email_codes",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    /**
     * What the code proves (issue 27): `signin` (the browser's cookie names the attempt), `recovery` (a recovery
     * sign-in, likewise), `link` and `recovery_set` (for the signed-in `account_id`, by that account's session).
     */
    purpose: text("purpose").notNull().default("signin"),
    accountId: text("account_id"),
    codeMac: text("code_mac").notNull(),
    expiresAt: integer("expires_at").notNull(),
    failures: integer("failures").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("email_codes_email").on(t.email, t.createdAt)],
);

/**
 * The per-address backstop over every attempt: wrong codes for an address in the window that opened with the first
 * of them (`since`); past the limit, the address is locked until `since` plus the window, a time the answer states.
 */
export const emailCodeFailures = sqliteTable("email_code_failures", {
  email: text("email").primaryKey(),
  failures: integer("failures").notNull(),
  since: integer("since").notNull(),
});

/** OAuth authorization requests in flight: single use (deleted when the callback consumes them), 10 minutes. */
export const oauthStates = sqliteTable(
  "oauth_states",
  {
    state: text("state").primaryKey(),
    provider: text("provider").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    nonce: text("nonce"),
    returnTo: text("return_to").notNull(),
    add: integer("add", { mode: "boolean" }).notNull(),
    /**
     * What the round trip is for (issue 27): `signin`; `link` (add the provider subject to the signed-in account);
     * `reauth` (prove the account's own provider identity again). For the last two, the session row that started it.
     */
    intent: text("intent").notNull().default("signin"),
    sessionId: text("session_id"),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("oauth_states_expires").on(t.expiresAt)],
);

/** Connect apps: an integrator's app and the sha256 of its API key (shown once; rotation replaces it). */
export const connectApps = sqliteTable("connect_apps", {
  id: text("id").primaryKey(), // app_<24 hex>
  ownerAccountId: text("owner_account_id").notNull(),
  name: text("name").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  createdAt: integer("created_at").notNull(),
  rotatedAt: integer("rotated_at"),
});

/** Users an app provisioned: one did:oc per (app, user_id), so provisioning is idempotent. */
export const connectUsers = sqliteTable(
  "connect_users",
  {
    appId: text("app_id").notNull(),
    userId: text("user_id").notNull(),
    accountId: text("account_id").notNull(),
    /** The email the integrator supplied: unverified contact data, never a sign-in identity (only a code proves one). */
    email: text("email"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.appId, t.userId] })],
);

// ---- billing (service-spec Billing; rule 12; docs/decisions.md "Billing") ----

/** A project's plan; no row means community. Processor webhooks stamp `apply_id` on the rows their batch changed. */
export const billingAccounts = sqliteTable("billing_accounts", {
  projectId: text("project_id").primaryKey(),
  plan: text("plan").notNull(), // community | pro | enterprise
  /** End of the paid period (ms); past it a plan that does not renew lapses to community. */
  periodEnd: integer("period_end"),
  /** A card subscription renews the plan at period_end (Stripe drives it); lightning periods do not renew. */
  autoRenew: integer("auto_renew", { mode: "boolean" }).notNull(),
  cardCustomerId: text("card_customer_id"),
  cardSubscriptionId: text("card_subscription_id"),
  /** `created` (ms) of the newest card-processor event applied to the subscription state: older ones never undo it. */
  cardStateAt: integer("card_state_at"),
  applyId: text("apply_id"),
  updatedAt: integer("updated_at").notNull(),
});

/** Checkouts and what became of them: pending until the processor's signed webhook says paid (or expired). */
export const payments = sqliteTable(
  "payments",
  {
    id: text("id").primaryKey(), // pay_<24 hex>
    projectId: text("project_id").notNull(),
    processor: text("processor").notNull(), // card | lightning
    /** The processor's object: Stripe checkout session or invoice id, BTCPay invoice id. */
    processorRef: text("processor_ref").notNull(),
    tier: text("tier").notNull(),
    amount: integer("amount").notNull(), // in the currency's smallest unit: cents, sats
    currency: text("currency").notNull(), // usd | sats
    status: text("status").notNull(), // pending | paid | expired
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    paidAt: integer("paid_at"),
    applyId: text("apply_id"),
  },
  (t) => [
    uniqueIndex("payments_processor_ref").on(t.processor, t.processorRef),
    index("payments_project").on(t.projectId, t.createdAt),
  ],
);

/** Processor events seen, by the processor's own event id: a redelivered event is acknowledged and changes nothing. */
export const processorEvents = sqliteTable(
  "processor_events",
  {
    processor: text("processor").notNull(), // card | lightning
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    applyId: text("apply_id").notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.processor, t.eventId] })],
);

// ---- account security (issue 27) ----

/**
 * Hardware keys and passkeys (WebAuthn credentials): the public key only (COSE, base64url), the signature counter
 * last seen, and what the authenticator said of itself. `id` is the credential id (base64url).
 */
export const webauthnCredentials = sqliteTable(
  "webauthn_credentials",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull(),
    /** JSON array of transports the authenticator named (usb, nfc, ble, internal, hybrid). */
    transports: text("transports"),
    /** singleDevice | multiDevice (a synced passkey), as the registration said. */
    deviceType: text("device_type").notNull(),
    backedUp: integer("backed_up", { mode: "boolean" }).notNull(),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [index("webauthn_credentials_account").on(t.accountId)],
);

/**
 * WebAuthn challenges in flight: single use (deleted when a response consumes them), short-lived. Each new challenge
 * deletes the expired ones first; `webauthn_challenges_expires` makes that delete read only the expired rows, not
 * every live challenge (anyone may ask for a passkey sign-in challenge, so the live rows are a stranger's to grow).
 */
export const webauthnChallenges = sqliteTable(
  "webauthn_challenges",
  {
    challenge: text("challenge").primaryKey(),
    /** register | signin | stepup */
    purpose: text("purpose").notNull(),
    /** The account a registration or step-up is for (null for a passkey sign-in, which names its account itself). */
    accountId: text("account_id"),
    /** The session row that asked (registration and step-up): the answer must come from the same one. */
    sessionId: text("session_id"),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("webauthn_challenges_expires").on(t.expiresAt)],
);

/**
 * The account log (issue 27): every change to how an account is reached (identities, hardware keys, recovery
 * address, re-authentications, merges), readable by the account's owner. Never a secret: ids, kinds, addresses.
 */
export const accountEvents = sqliteTable(
  "account_events",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    eventType: text("event_type").notNull(),
    /** JSON */
    detail: text("detail"),
    /** The session row that made the change (null for the system's own, e.g. a recovery sign-in's notice). */
    sessionId: text("session_id"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("account_events_account").on(t.accountId, t.seq)],
);
export * from "./schema-devices";
export * from "./schema-log-witnesses";
