CREATE TABLE `import_files` (
	`import_id` text PRIMARY KEY NOT NULL,
	`file` blob NOT NULL,
	FOREIGN KEY (`import_id`) REFERENCES `imports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `imports` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`format` text NOT NULL,
	`status` text NOT NULL,
	`total` integer NOT NULL,
	`processed` integer NOT NULL,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	`skipped` integer NOT NULL,
	`folder_names` text NOT NULL,
	`dropped_tags` text NOT NULL,
	`errors` text NOT NULL,
	`failure` text,
	`lease_until_ms` integer,
	`created_at` text NOT NULL,
	`finished_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `imports_user_created_idx` ON `imports` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `imports_status_idx` ON `imports` (`status`);--> statement-breakpoint
ALTER TABLE `enrichment_jobs` ADD `host` text;--> statement-breakpoint
CREATE INDEX `enrichment_jobs_host_idx` ON `enrichment_jobs` (`host`,`lease_until_ms`);