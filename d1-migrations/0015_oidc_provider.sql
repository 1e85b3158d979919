-- Issue 33: the auth host as an OpenID Connect provider. Its clients' owners, the consents accounts gave them, and
-- the nonces that already issued a code (refused again). The OAuth library keeps grants and tokens in KV.
CREATE TABLE `oidc_clients` (
	`client_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`logo_uri` text,
	`client_type` text NOT NULL,
	`redirect_uris` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `oidc_clients_account` ON `oidc_clients` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `oidc_consents` (
	`account_id` text NOT NULL,
	`client_id` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `client_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `oidc_consents_client` ON `oidc_consents` (`client_id`);--> statement-breakpoint
CREATE TABLE `oidc_nonces` (
	`client_id` text NOT NULL,
	`nonce` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`client_id`, `nonce`)
) WITHOUT ROWID;
