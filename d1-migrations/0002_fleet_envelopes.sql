CREATE TABLE `audit_bundles` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`format` text NOT NULL,
	`counts` text NOT NULL,
	`sha256` text NOT NULL,
	`kid` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_bundles_project` ON `audit_bundles` (`project_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `envelopes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`id` text NOT NULL,
	`kind` text NOT NULL,
	`body` text NOT NULL,
	`status` text,
	`principal_address` text,
	`agent_address` text,
	`signer_address` text,
	`parent_id` text,
	`delegation_id` text,
	`pledge_id` text,
	`depth` integer,
	`scopes` text,
	`issued_at` text,
	`expires_at` text,
	`signed_at` text,
	`scope_exercised` text,
	`content_hash` text,
	`content_length` integer,
	`content_mime` text,
	`reason` text,
	`swearer` text,
	`outcome` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `envelopes_project_id` ON `envelopes` (`project_id`,`id`);--> statement-breakpoint
CREATE INDEX `envelopes_project_kind` ON `envelopes` (`project_id`,`kind`,`seq`);--> statement-breakpoint
CREATE INDEX `envelopes_parent` ON `envelopes` (`project_id`,`parent_id`);--> statement-breakpoint
CREATE INDEX `envelopes_delegation` ON `envelopes` (`project_id`,`delegation_id`);--> statement-breakpoint
CREATE INDEX `envelopes_swearer` ON `envelopes` (`swearer`);--> statement-breakpoint
CREATE INDEX `envelopes_kind_id` ON `envelopes` (`kind`,`id`);--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`event_type` text NOT NULL,
	`envelope_id` text,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	`fanned_out_at` integer
);
--> statement-breakpoint
CREATE INDEX `outbox_pending` ON `outbox` (`fanned_out_at`,`created_at`);