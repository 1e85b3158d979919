-- What a sign-in writes (issue 47, item 1): at most 5 rows for a returning account's challenge and sign-in.
-- `challenges` keyed by (expires_at, nonce), without a rowid: a challenge is one row written, not three (the row, its
-- primary-key index and `challenges_expires`). The sweep reads the key's range of expired rows; a use names the
-- expiry from the signed text with the nonce, one key lookup.
-- `sessions` keyed by (account_id, token_hash), without a rowid: a session is two rows written, not five (the row, the
-- id's, the token's and `sessions_expires` entries are gone; `sessions_roster_account` stays). A cookie's check names
-- its subject (the JWT's `sub`, which the row had to match anyway) and the token: one key lookup. The account's rows
-- (devices, sign-out everywhere, erasure, export) are the key's prefix; a row is named by its account and id.
-- No read used `sessions_expires`. Rows are copied as they are; a legacy single session keeps roster_id NULL.
-- A new account (issue 47 asks for its figure, no goal): `account_identities` keyed by (kind, value) without a
-- rowid (the row and `account_identities_account`, not also a separate key index), and the recovery address's
-- unique index holds only the accounts that set one (an equality on it still uses it), not a NULL per account.
CREATE TABLE `challenges_keyed` (
	`nonce` text NOT NULL,
	`message_hash` text NOT NULL,
	`address` text NOT NULL,
	`audience` text,
	`purpose` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`expires_at`, `nonce`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `challenges_keyed` SELECT `nonce`, `message_hash`, `address`, `audience`, `purpose`, `expires_at`, `created_at` FROM `challenges`;
--> statement-breakpoint
DROP TABLE `challenges`;
--> statement-breakpoint
ALTER TABLE `challenges_keyed` RENAME TO `challenges`;
--> statement-breakpoint
CREATE TABLE `sessions_keyed` (
	`id` text NOT NULL,
	`token_hash` text NOT NULL,
	`account_id` text NOT NULL,
	`roster_id` text,
	`authenticated_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`auth_method` text,
	`stepped_up_at` integer,
	`user_agent` text,
	`place` text,
	PRIMARY KEY(`account_id`, `token_hash`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `sessions_keyed` SELECT `id`, `token_hash`, `account_id`, `roster_id`, `authenticated_at`, `created_at`, `expires_at`, `last_seen_at`, `auth_method`, `stepped_up_at`, `user_agent`, `place` FROM `sessions`;
--> statement-breakpoint
DROP TABLE `sessions`;
--> statement-breakpoint
ALTER TABLE `sessions_keyed` RENAME TO `sessions`;
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_roster_account` ON `sessions` (`roster_id`,`account_id`);
--> statement-breakpoint
CREATE TABLE `account_identities_keyed` (
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`account_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `value`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `account_identities_keyed` SELECT `kind`, `value`, `account_id`, `created_at` FROM `account_identities`;
--> statement-breakpoint
DROP TABLE `account_identities`;
--> statement-breakpoint
ALTER TABLE `account_identities_keyed` RENAME TO `account_identities`;
--> statement-breakpoint
CREATE INDEX `account_identities_account` ON `account_identities` (`account_id`);
--> statement-breakpoint
DROP INDEX `accounts_recovery_email_unique`;
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_recovery_email_unique` ON `accounts` (`recovery_email`) WHERE recovery_email IS NOT NULL;
