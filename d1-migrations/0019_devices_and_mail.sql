-- Devices and security mail (issue 46, items 1 and 2). Each session row keeps the browser it was signed in from (the
-- raw User-Agent, cut to 512 characters, parsed when listed) and the approximate place of that sign-in (Cloudflare's
-- city, region and country; null locally). `known_devices`: the browsers (sha256 of the long-lived `oc_device`
-- cookie) each account signed in from, so a sign-in from one not seen in 90 days is mailed. `mail_settings`: the
-- notices a person turned off (only those that are not about the account's safety can be).
ALTER TABLE `sessions` ADD `user_agent` text;
--> statement-breakpoint
ALTER TABLE `sessions` ADD `place` text;
--> statement-breakpoint
CREATE TABLE `known_devices` (
	`account_id` text NOT NULL,
	`device_hash` text NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `device_hash`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `mail_settings` (
	`account_id` text PRIMARY KEY NOT NULL,
	`app_allowed` integer NOT NULL,
	`updated_at` integer NOT NULL
) WITHOUT ROWID;
