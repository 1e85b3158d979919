-- Issue 29: each project's log as C2SP tlog-tiles. Tiles are keyed by (project, level, index) and read by that key
-- only, so the table is its own primary-key b-tree (WITHOUT ROWID: one b-tree entry per tile write, not two).
CREATE TABLE `log_state` (
	`project_id` text PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`root` text NOT NULL,
	`checkpoint` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `log_tiles` (
	`project_id` text NOT NULL,
	`level` integer NOT NULL,
	`idx` integer NOT NULL,
	`hashes` text NOT NULL,
	PRIMARY KEY(`project_id`, `level`, `idx`)
) WITHOUT ROWID;
