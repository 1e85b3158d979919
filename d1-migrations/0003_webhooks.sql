CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`state` text NOT NULL,
	`attempt_count` integer NOT NULL,
	`status_code` integer,
	`error_message` text,
	`next_retry_at` integer,
	`succeeded_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_endpoint` ON `webhook_deliveries` (`event_id`,`endpoint_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`endpoint_id`,`state`,`next_retry_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_project` ON `webhook_deliveries` (`project_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`url` text NOT NULL,
	`event_types` text NOT NULL,
	`active` integer NOT NULL,
	`secret_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_project` ON `webhook_endpoints` (`project_id`);--> statement-breakpoint
ALTER TABLE `outbox` ADD `endpoint_id` text;