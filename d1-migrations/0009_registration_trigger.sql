ALTER TABLE `envelopes` ADD `event_id` text;--> statement-breakpoint
-- Issue 19: a registration is one guarded INSERT into envelopes, carrying its event's id; this trigger writes, in
-- that same statement, the envelope's leaf in its project's log and, when the project has an active webhook
-- endpoint, the event (the webhook outbox row) that will be delivered to it. A project without one has nothing to
-- deliver and no event is kept (an endpoint made later receives the events from its creation on). The leaf's hash
-- is derived from the stored bytes on the log's first read (registry/log.ts), as for rows from before the log.
-- The event types are the registry's (workers/fleet/src/registry/events.ts, held to this by a test).
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
    NULL
  );
END;
