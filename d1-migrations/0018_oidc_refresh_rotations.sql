-- Refresh-token reuse detection (issue 44, item 3; RFC 9700 4.14.2): the sha256 of each refresh token a grant has
-- rotated away from, claimed once. The library keeps a used refresh token valid until its successor is used; a
-- retired token presented again, whatever the library answers, revokes its whole grant.
CREATE TABLE `oidc_refresh_rotations` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`account_id` text NOT NULL,
	`rotated_at` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `oidc_refresh_rotations_at` ON `oidc_refresh_rotations` (`rotated_at`);
