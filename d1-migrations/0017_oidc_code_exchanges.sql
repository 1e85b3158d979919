-- An authorization code's single use across locations (docs/decisions.md, the OpenID provider): the library keeps
-- codes in KV, which another location may read a minute stale; a code's exchange is claimed here by its grant.
CREATE TABLE `oidc_code_exchanges` (
	`grant_id` text PRIMARY KEY NOT NULL,
	`exchanged_at` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `oidc_code_exchanges_at` ON `oidc_code_exchanges` (`exchanged_at`);
