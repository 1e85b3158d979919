CREATE TABLE `connect_apps` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_account_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`rotated_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connect_apps_key_hash_unique` ON `connect_apps` (`key_hash`);--> statement-breakpoint
CREATE TABLE `connect_users` (
	`app_id` text NOT NULL,
	`user_id` text NOT NULL,
	`account_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`app_id`, `user_id`)
);
--> statement-breakpoint
CREATE TABLE `email_codes` (
	`email` text PRIMARY KEY NOT NULL,
	`code_mac` text NOT NULL,
	`expires_at` integer NOT NULL,
	`failures` integer NOT NULL,
	`failures_since` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `oauth_states` (
	`state` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`code_verifier` text NOT NULL,
	`nonce` text,
	`return_to` text NOT NULL,
	`add` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oauth_states_expires` ON `oauth_states` (`expires_at`);