-- Issue 31 (what a registration costs): an index entry is a row written, and D1 bills rows written. The indexes on
-- columns only some kinds set become partial, so an action enters only the indexes its reads use (docs/scale.md);
-- `(kind, id)` gives way to one on pledge ids alone (the public read by id), and the cron's sweep of pending pledges
-- and the public read's resolutions by pledge get their own small partial indexes instead of scanning.
DROP INDEX `envelopes_kind_id`;--> statement-breakpoint
DROP INDEX `envelopes_parent`;--> statement-breakpoint
DROP INDEX `envelopes_delegation`;--> statement-breakpoint
DROP INDEX `envelopes_swearer`;--> statement-breakpoint
CREATE INDEX `envelopes_pledge_id` ON `envelopes` (`id`) WHERE kind = 'pledge';--> statement-breakpoint
CREATE INDEX `envelopes_pledges_pending` ON `envelopes` (`expires_at`) WHERE kind = 'pledge' AND status = 'pending';--> statement-breakpoint
CREATE INDEX `envelopes_resolutions` ON `envelopes` (`pledge_id`) WHERE kind IN ('outcome', 'abandonment');--> statement-breakpoint
CREATE INDEX `envelopes_parent` ON `envelopes` (`project_id`,`parent_id`) WHERE parent_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `envelopes_delegation` ON `envelopes` (`project_id`,`delegation_id`) WHERE delegation_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `envelopes_swearer` ON `envelopes` (`swearer`) WHERE swearer IS NOT NULL;