-- Leaving (issue 46, item 3): an account whose deletion is scheduled carries when it was asked and when the grace
-- period ends (the cron erases it then); an erased account keeps its row as a tombstone, personal columns nulled and
-- `deleted_at` set, so its did_oc (unique) is never issued again.
ALTER TABLE `accounts` ADD `deletion_requested_at` integer;
--> statement-breakpoint
ALTER TABLE `accounts` ADD `deletion_due_at` integer;
--> statement-breakpoint
ALTER TABLE `accounts` ADD `deleted_at` integer;
--> statement-breakpoint
CREATE INDEX `accounts_deletion_due` ON `accounts` (`deletion_due_at`) WHERE deletion_due_at IS NOT NULL;
