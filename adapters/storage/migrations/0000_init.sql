CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`label` text NOT NULL,
	`scopes` text NOT NULL,
	`connect_client` text,
	`device_hint` text,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_user_idx` ON `api_keys` (`user_id`);--> statement-breakpoint
CREATE TABLE `folders` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `folders_user_name_uq` ON `folders` (`user_id`,`name_key`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`state` text NOT NULL,
	`locked_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`status` integer,
	`headers` text,
	`body` text,
	PRIMARY KEY(`user_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_expires_idx` ON `idempotency_keys` (`expires_at_ms`);--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`bucket` text PRIMARY KEY NOT NULL,
	`window_start_ms` integer NOT NULL,
	`count` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `saved_items` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`original_url` text NOT NULL,
	`normalized_url` text NOT NULL,
	`host` text NOT NULL,
	`title` text,
	`description` text,
	`site_name` text,
	`favicon_url` text,
	`favicon_light_url` text,
	`favicon_dark_url` text,
	`image_url` text,
	`canonical_url` text,
	`preview_summary` text,
	`type` text NOT NULL,
	`tags` text NOT NULL,
	`enrichment_status` text NOT NULL,
	`source_name` text,
	`capture_channel` text,
	`folder_id` text,
	`is_read` integer NOT NULL,
	`opened_at` text,
	`last_saved_at` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`folder_id`) REFERENCES `folders`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `saved_items_user_url_uq` ON `saved_items` (`user_id`,`normalized_url`);--> statement-breakpoint
CREATE INDEX `saved_items_user_saved_idx` ON `saved_items` (`user_id`,`last_saved_at`,`id`);--> statement-breakpoint
CREATE INDEX `saved_items_user_folder_saved_idx` ON `saved_items` (`user_id`,`folder_id`,`last_saved_at`,`id`);--> statement-breakpoint
CREATE INDEX `saved_items_user_title_idx` ON `saved_items` (`user_id`,lower("title"),`id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_uq` ON `users` (`email`);