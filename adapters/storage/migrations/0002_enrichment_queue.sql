CREATE TABLE `enrichment_jobs` (
	`item_id` text PRIMARY KEY NOT NULL,
	`attempts` integer NOT NULL,
	`run_after_ms` integer NOT NULL,
	`lease_until_ms` integer,
	`last_error` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `enrichment_jobs_due_idx` ON `enrichment_jobs` (`run_after_ms`);--> statement-breakpoint
-- Hand-written below (drizzle-kit does not model triggers). A new pending item, and an item whose
-- enrichment goes from failed back to pending (a recapture), get a job in the same statement, so the
-- capture and its job commit together (docs/enrichment.md). run_after_ms 0: due at once.
CREATE TRIGGER `saved_items_enqueue_new` AFTER INSERT ON `saved_items`
WHEN NEW.`enrichment_status` = 'pending'
BEGIN
	INSERT INTO `enrichment_jobs` (`item_id`, `attempts`, `run_after_ms`, `created_at`)
	VALUES (NEW.`id`, 0, 0, NEW.`created_at`)
	ON CONFLICT (`item_id`) DO NOTHING;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_items_enqueue_retry` AFTER UPDATE OF `enrichment_status` ON `saved_items`
WHEN NEW.`enrichment_status` = 'pending' AND OLD.`enrichment_status` = 'failed'
BEGIN
	INSERT INTO `enrichment_jobs` (`item_id`, `attempts`, `run_after_ms`, `created_at`)
	VALUES (NEW.`id`, 0, 0, NEW.`updated_at`)
	ON CONFLICT (`item_id`) DO UPDATE SET `attempts` = 0, `run_after_ms` = 0, `lease_until_ms` = NULL, `last_error` = NULL;
END;
--> statement-breakpoint
-- Items saved before the queue existed are enriched too.
INSERT INTO `enrichment_jobs` (`item_id`, `attempts`, `run_after_ms`, `created_at`)
SELECT `id`, 0, 0, `created_at` FROM `saved_items` WHERE `enrichment_status` = 'pending';
