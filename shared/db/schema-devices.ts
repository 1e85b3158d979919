// The tables of devices and security mail (issue 46, items 1 and 2), apart from schema.ts so the helpers building
// the account's lifecycle at the same time touch different files; schema.ts re-exports them.
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The browsers each account signed in from: sha256 of the browser's `oc_device` cookie. A sign-in from a browser the
 * account has no row for (or none seen in the last 90 days) is a "new device" and every address is told.
 */
export const knownDevices = sqliteTable(
  "known_devices",
  {
    accountId: text("account_id").notNull(),
    deviceHash: text("device_hash").notNull(),
    firstSeenAt: integer("first_seen_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.deviceHash] })],
);

/** The notices an account turned off; no row means every notice is on. Only optional notices have a column. */
export const mailSettings = sqliteTable("mail_settings", {
  accountId: text("account_id").primaryKey(),
  /** Mail when an app is allowed to sign the person in (OpenID consent remembered): 1 on, 0 off. */
  appAllowed: integer("app_allowed", { mode: "boolean" }).notNull(),
  updatedAt: integer("updated_at").notNull(),
});
