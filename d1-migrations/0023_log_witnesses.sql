-- Issue 48: what each project's log knows of each configured witness (C2SP tlog-witness): the size the witness holds
-- for the log (the next submission's `old`), the latest checkpoint it cosigned with its cosignature line(s) (served
-- appended to that checkpoint), the last problem and when to try again. Written by the project's log integrator,
-- read by the checkpoint routes and the log screen by its key only: WITHOUT ROWID.
CREATE TABLE `log_witnesses` (
	`project_id` text NOT NULL,
	`witness` text NOT NULL,
	`size` integer DEFAULT 0 NOT NULL,
	`cosigned_size` integer,
	`checkpoint` text,
	`cosignature` text,
	`cosigned_at` integer,
	`problem` text,
	`problem_size` integer,
	`witness_size` integer,
	`problem_at` integer,
	`failures` integer DEFAULT 0 NOT NULL,
	`retry_at` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `witness`)
) WITHOUT ROWID;
