PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_idempotency_keys` (
	`credential_id` text NOT NULL,
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`state` text NOT NULL,
	`locked_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`status` integer,
	`headers` text,
	`body` text,
	PRIMARY KEY(`credential_id`, `key`)
);
--> statement-breakpoint
-- Records were kept per person; they are now per credential, and the old ones (24 h at most) cannot be
-- mapped to one: they are dropped, so a retry of an older request runs once more.
DROP TABLE `idempotency_keys`;--> statement-breakpoint
ALTER TABLE `__new_idempotency_keys` RENAME TO `idempotency_keys`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `idempotency_expires_idx` ON `idempotency_keys` (`expires_at_ms`);--> statement-breakpoint
CREATE INDEX `idempotency_user_idx` ON `idempotency_keys` (`user_id`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `issued_by_key_id` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `issued_by_grant_id` text;--> statement-breakpoint
CREATE INDEX `api_keys_issued_by_key_idx` ON `api_keys` (`issued_by_key_id`);--> statement-breakpoint
CREATE INDEX `api_keys_issued_by_grant_idx` ON `api_keys` (`issued_by_grant_id`);--> statement-breakpoint
ALTER TABLE `connect_codes` ADD `issued_by_key_id` text;--> statement-breakpoint
ALTER TABLE `connect_codes` ADD `issued_by_grant_id` text;--> statement-breakpoint
ALTER TABLE `signing_keys` ADD `retired_at` text;--> statement-breakpoint
ALTER TABLE `users` ADD `signup_attempted_at` text;--> statement-breakpoint
ALTER TABLE `web_sessions` ADD `last_seen_at` text;