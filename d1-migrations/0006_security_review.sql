ALTER TABLE `api_tokens` ADD `scope` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE `connect_users` ADD `email` text;--> statement-breakpoint
CREATE UNIQUE INDEX `envelopes_pledge_resolution` ON `envelopes` (`project_id`,`pledge_id`) WHERE kind IN ('outcome', 'abandonment');