CREATE TABLE `log_leaves` (
	`project_id` text NOT NULL,
	`idx` integer NOT NULL,
	`envelope_id` text NOT NULL,
	`hash` text,
	PRIMARY KEY(`project_id`, `idx`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `log_leaves_envelope` ON `log_leaves` (`project_id`,`envelope_id`);--> statement-breakpoint
-- Registrations from before the log: leaves in the registry's replay order (seq), hashes filled on first read.
INSERT INTO `log_leaves` (`project_id`, `idx`, `envelope_id`, `hash`)
SELECT `project_id`, ROW_NUMBER() OVER (PARTITION BY `project_id` ORDER BY `seq`) - 1, `id`, NULL FROM `envelopes`;
