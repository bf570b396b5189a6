CREATE TABLE `captured_pages` (
	`item_id` text PRIMARY KEY NOT NULL,
	`html` text NOT NULL,
	`captured_at` text NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `item_contents` (
	`item_id` text PRIMARY KEY NOT NULL,
	`title` text,
	`byline` text,
	`site_name` text,
	`lang` text,
	`word_count` integer NOT NULL,
	`html` text NOT NULL,
	`text` text NOT NULL,
	`extracted_at` text NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `reading_progress` (
	`item_id` text PRIMARY KEY NOT NULL,
	`progress` real NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP INDEX `enrichment_jobs_due_idx`;--> statement-breakpoint
ALTER TABLE `enrichment_jobs` ADD `priority` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `enrichment_jobs_due_idx` ON `enrichment_jobs` (`priority`,`run_after_ms`);--> statement-breakpoint
-- A failed item saved again is live work again, whatever queued it before.
DROP TRIGGER `saved_items_enqueue_retry`;--> statement-breakpoint
CREATE TRIGGER `saved_items_enqueue_retry` AFTER UPDATE OF `enrichment_status` ON `saved_items`
WHEN NEW.`enrichment_status` = 'pending' AND OLD.`enrichment_status` = 'failed'
BEGIN
	INSERT INTO `enrichment_jobs` (`item_id`, `attempts`, `run_after_ms`, `created_at`, `priority`)
	VALUES (NEW.`id`, 0, 0, NEW.`updated_at`, 0)
	ON CONFLICT (`item_id`) DO UPDATE SET `attempts` = 0, `run_after_ms` = 0, `lease_until_ms` = NULL, `last_error` = NULL, `priority` = 0;
END;
--> statement-breakpoint
-- Items enriched before articles were kept get theirs from a low-priority re-enrichment (docs/reading.md#backfill).
INSERT INTO `enrichment_jobs` (`item_id`, `attempts`, `run_after_ms`, `created_at`, `priority`)
SELECT `id`, 0, 0, `updated_at`, 1 FROM `saved_items` WHERE `enrichment_status` = 'enriched'
ON CONFLICT (`item_id`) DO NOTHING;
