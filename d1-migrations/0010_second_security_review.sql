CREATE TABLE `email_code_failures` (
	`email` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`since` integer NOT NULL
);
--> statement-breakpoint
-- Issue 26: email codes are per attempt (the browser that asked holds its id), no longer one per address. Codes in
-- flight when this runs are dropped: they live 10 minutes, and the person asks for another.
DROP TABLE `email_codes`;--> statement-breakpoint
CREATE TABLE `email_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`code_mac` text NOT NULL,
	`expires_at` integer NOT NULL,
	`failures` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `email_codes_email` ON `email_codes` (`email`,`created_at`);--> statement-breakpoint
ALTER TABLE `envelopes` ADD `leaf_hash` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `paused_at` integer;--> statement-breakpoint
CREATE INDEX `log_leaves_unhashed` ON `log_leaves` (`project_id`,`idx`) WHERE hash is null;--> statement-breakpoint
-- Issue 26: a registration carries its leaf hash, computed in the worker from the bytes it stores (SQLite has no
-- SHA-256), and this trigger writes it into the envelope's log leaf in the same statement, so no read of the log
-- ever writes. The rest is 0009's trigger unchanged. Leaves written without a hash before this (0007's backfill,
-- registrations under 0009) are hashed by the cron in bounded slices (workers/fleet/src/registry/leaf-hashes.ts).
DROP TRIGGER `envelopes_registered`;--> statement-breakpoint
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
  INSERT INTO `log_leaves` (`project_id`, `idx`, `envelope_id`, `hash`)
  VALUES (
    NEW.`project_id`,
    COALESCE((SELECT MAX(`idx`) + 1 FROM `log_leaves` WHERE `project_id` = NEW.`project_id`), 0),
    NEW.`id`,
    NEW.`leaf_hash`
  );
END;--> statement-breakpoint
-- Issue 26: a token acts as the owner who created it. When that address stops being an owner of the project
-- (demoted, removed, or a transfer made it an admin), its tokens are revoked then, in the change's own statement,
-- so a later re-promotion cannot bring them back. Tokens whose creator is already no owner are revoked now.
UPDATE `api_tokens` SET `revoked_at` = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE `revoked_at` IS NULL AND NOT EXISTS (
  SELECT 1 FROM `members` WHERE `members`.`project_id` = `api_tokens`.`project_id`
    AND `members`.`address` = `api_tokens`.`created_by` AND `members`.`role` = 'owner'
);--> statement-breakpoint
CREATE TRIGGER `members_owner_demoted` AFTER UPDATE OF `role` ON `members`
WHEN OLD.`role` = 'owner' AND NEW.`role` != 'owner'
BEGIN
  UPDATE `api_tokens` SET `revoked_at` = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
  WHERE `project_id` = OLD.`project_id` AND `created_by` = OLD.`address` AND `revoked_at` IS NULL;
END;--> statement-breakpoint
CREATE TRIGGER `members_owner_removed` AFTER DELETE ON `members` WHEN OLD.`role` = 'owner'
BEGIN
  UPDATE `api_tokens` SET `revoked_at` = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
  WHERE `project_id` = OLD.`project_id` AND `created_by` = OLD.`address` AND `revoked_at` IS NULL;
END;
