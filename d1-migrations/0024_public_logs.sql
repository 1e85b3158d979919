-- Public logs (issue 48, item 3): a project's owner may make its transparency log readable by anyone. `log_public_at`
-- is when it was made public (NULL: private, as every log was before). The discovery list reads public logs in the
-- order they became public, so its partial index holds only them.
ALTER TABLE `projects` ADD `log_public_at` integer;
--> statement-breakpoint
CREATE INDEX `projects_log_public` ON `projects` (`log_public_at`,`id`) WHERE log_public_at IS NOT NULL;
