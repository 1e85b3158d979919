CREATE TABLE `account_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`event_type` text NOT NULL,
	`detail` text,
	`session_id` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `account_events_account` ON `account_events` (`account_id`,`seq`);--> statement-breakpoint
CREATE TABLE `webauthn_challenges` (
	`challenge` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`account_id` text,
	`session_id` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `webauthn_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`public_key` text NOT NULL,
	`counter` integer NOT NULL,
	`transports` text,
	`device_type` text NOT NULL,
	`backed_up` integer NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE INDEX `webauthn_credentials_account` ON `webauthn_credentials` (`account_id`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `recovery_email` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `recovery_set_at` integer;--> statement-breakpoint
ALTER TABLE `accounts` ADD `merged_into` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `merged_from` text;--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_recovery_email_unique` ON `accounts` (`recovery_email`);--> statement-breakpoint
ALTER TABLE `email_codes` ADD `purpose` text DEFAULT 'signin' NOT NULL;--> statement-breakpoint
ALTER TABLE `email_codes` ADD `account_id` text;--> statement-breakpoint
ALTER TABLE `oauth_states` ADD `intent` text DEFAULT 'signin' NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_states` ADD `session_id` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `auth_method` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `stepped_up_at` integer;