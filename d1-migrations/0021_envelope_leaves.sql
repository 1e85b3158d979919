-- Issue 47 (what a registration costs): every row and index entry written is a row D1 bills. The envelopes table is
-- rebuilt in place so that a registration writes one row and the index entries its reads need, nothing else:
-- - `seq` stays the rowid (the registry's replay order, values kept) but without AUTOINCREMENT, whose counter in
--   `sqlite_sequence` was a row written per registration; envelopes are never deleted, so a seq is never reused;
-- - the log leaf lives in its envelope's row: `leaf_idx` (the leaf's index in the project's log) and `leaf_hash`
--   (its hash, already the registration's own column) replace the `log_leaves` row and its two index entries, with
--   one unique index on (project, leaf index) that every log read uses, and a partial one on leaves still unhashed;
-- - `envelopes_delegation` holds actions only (the read of a delegation's actions): a revocation, which also
--   carries a delegation id, no longer enters it.
-- Every envelope keeps its seq, its leaf index and the hash the log committed to, so roots, tiles and exports are
-- unchanged. An envelope with no leaf (none is written so) keeps `leaf_idx` null: it was in no log and still is not.
CREATE TABLE `envelopes_0021` (
	`seq` integer PRIMARY KEY NOT NULL,
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
	`created_at` integer NOT NULL,
	`event_id` text,
	`leaf_hash` text,
	`leaf_idx` integer
);
--> statement-breakpoint
INSERT INTO `envelopes_0021` (`seq`, `project_id`, `id`, `kind`, `body`, `status`, `principal_address`,
  `agent_address`, `signer_address`, `parent_id`, `delegation_id`, `pledge_id`, `depth`, `scopes`, `issued_at`,
  `expires_at`, `signed_at`, `scope_exercised`, `content_hash`, `content_length`, `content_mime`, `reason`, `swearer`,
  `outcome`, `created_at`, `event_id`, `leaf_hash`, `leaf_idx`)
SELECT e.`seq`, e.`project_id`, e.`id`, e.`kind`, e.`body`, e.`status`, e.`principal_address`, e.`agent_address`,
  e.`signer_address`, e.`parent_id`, e.`delegation_id`, e.`pledge_id`, e.`depth`, e.`scopes`, e.`issued_at`,
  e.`expires_at`, e.`signed_at`, e.`scope_exercised`, e.`content_hash`, e.`content_length`, e.`content_mime`,
  e.`reason`, e.`swearer`, e.`outcome`, e.`created_at`, e.`event_id`,
  -- The hash the log holds (null while the cron has yet to hash a leaf from before registrations carried one).
  CASE WHEN l.`idx` IS NULL THEN e.`leaf_hash` ELSE l.`hash` END,
  l.`idx`
FROM `envelopes` e LEFT JOIN `log_leaves` l ON l.`project_id` = e.`project_id` AND l.`envelope_id` = e.`id`
ORDER BY e.`seq`;
--> statement-breakpoint
DROP TABLE `envelopes`;--> statement-breakpoint
DROP TABLE `log_leaves`;--> statement-breakpoint
ALTER TABLE `envelopes_0021` RENAME TO `envelopes`;--> statement-breakpoint
CREATE UNIQUE INDEX `envelopes_project_id` ON `envelopes` (`project_id`,`id`);--> statement-breakpoint
CREATE INDEX `envelopes_project_kind` ON `envelopes` (`project_id`,`kind`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `envelopes_leaf` ON `envelopes` (`project_id`,`leaf_idx`);--> statement-breakpoint
CREATE INDEX `envelopes_unhashed` ON `envelopes` (`project_id`,`leaf_idx`) WHERE leaf_hash IS NULL AND leaf_idx IS NOT NULL;--> statement-breakpoint
CREATE INDEX `envelopes_parent` ON `envelopes` (`project_id`,`parent_id`) WHERE parent_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `envelopes_delegation` ON `envelopes` (`project_id`,`delegation_id`) WHERE kind = 'action';--> statement-breakpoint
CREATE INDEX `envelopes_swearer` ON `envelopes` (`swearer`) WHERE swearer IS NOT NULL;--> statement-breakpoint
CREATE INDEX `envelopes_pledge_id` ON `envelopes` (`id`) WHERE kind = 'pledge';--> statement-breakpoint
CREATE INDEX `envelopes_pledges_pending` ON `envelopes` (`expires_at`) WHERE kind = 'pledge' AND status = 'pending';--> statement-breakpoint
CREATE INDEX `envelopes_resolutions` ON `envelopes` (`pledge_id`) WHERE kind IN ('outcome', 'abandonment');--> statement-breakpoint
CREATE UNIQUE INDEX `envelopes_pledge_resolution` ON `envelopes` (`project_id`,`pledge_id`) WHERE kind IN ('outcome', 'abandonment');--> statement-breakpoint
-- The registration's trigger (0010's) without the leaf: the insert writes its leaf in its own row. The event, only
-- for a project with an active webhook endpoint, is unchanged.
CREATE TRIGGER `envelopes_registered` AFTER INSERT ON `envelopes` WHEN NEW.`event_id` IS NOT NULL
BEGIN
  INSERT INTO `outbox` (`id`, `project_id`, `event_type`, `envelope_id`, `payload`, `created_at`, `fanned_out_at`)
  SELECT
    NEW.`event_id`,
    NEW.`project_id`,
    CASE NEW.`kind`
      WHEN 'outcome' THEN 'pledge.outcome'
      WHEN 'abandonment' THEN 'pledge.abandoned'
      ELSE NEW.`kind` || '.registered'
    END,
    NEW.`id`,
    '',
    NEW.`created_at`,
    NULL
  WHERE EXISTS (SELECT 1 FROM `webhook_endpoints` WHERE `project_id` = NEW.`project_id` AND `active` = 1);
END;
