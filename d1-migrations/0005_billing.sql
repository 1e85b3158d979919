CREATE TABLE `billing_accounts` (
	`project_id` text PRIMARY KEY NOT NULL,
	`plan` text NOT NULL,
	`period_end` integer,
	`auto_renew` integer NOT NULL,
	`card_customer_id` text,
	`card_subscription_id` text,
	`card_state_at` integer,
	`apply_id` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`processor` text NOT NULL,
	`processor_ref` text NOT NULL,
	`tier` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`paid_at` integer,
	`apply_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_processor_ref` ON `payments` (`processor`,`processor_ref`);--> statement-breakpoint
CREATE INDEX `payments_project` ON `payments` (`project_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `processor_events` (
	`processor` text NOT NULL,
	`event_id` text NOT NULL,
	`type` text NOT NULL,
	`apply_id` text NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`processor`, `event_id`)
);
