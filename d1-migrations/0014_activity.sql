-- Issue 30: a project's activity as hourly roll-ups (UTC epoch hours), read by the dashboard's charts instead of the
-- rows they count. Each table is read and written by its primary key only (WITHOUT ROWID: one b-tree entry a row).
CREATE TABLE `activity_hours` (
	`project_id` text NOT NULL,
	`hour` integer NOT NULL,
	`kind` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`project_id`, `hour`, `kind`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `delivery_hours` (
	`endpoint_id` text NOT NULL,
	`hour` integer NOT NULL,
	`project_id` text NOT NULL,
	`succeeded` integer DEFAULT 0 NOT NULL,
	`retried` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`latency` text DEFAULT '[]' NOT NULL,
	`last_failure_at` integer,
	`last_failure` text,
	PRIMARY KEY(`endpoint_id`, `hour`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `refusal_hours` (
	`project_id` text NOT NULL,
	`hour` integer NOT NULL,
	`bucket` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`project_id`, `hour`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
-- The leaves integrated before this migration, counted once here; the integrator counts every later one.
INSERT INTO `activity_hours` (`project_id`, `hour`, `kind`, `count`)
SELECT l.`project_id`, e.`created_at` / 3600000, e.`kind`, count(*)
FROM `log_leaves` l
JOIN `log_state` s ON s.`project_id` = l.`project_id` AND l.`idx` < s.`size`
JOIN `envelopes` e ON e.`project_id` = l.`project_id` AND e.`id` = l.`envelope_id`
GROUP BY 1, 2, 3;
