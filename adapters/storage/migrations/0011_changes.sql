CREATE TABLE `changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`entity_id` text NOT NULL,
	`op` text NOT NULL,
	`at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `changes_user_seq_idx` ON `changes` (`user_id`,`seq`);--> statement-breakpoint
CREATE TABLE `changes_pruned` (
	`user_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
-- The changes feed's log (docs/api.md#changes), written by triggers in the transaction of each change.
-- What exists now is where the log starts: every folder, then every item, once.
INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`)
	SELECT `user_id`, 'folder', `id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) FROM `folders` ORDER BY `created_at`, `id`;--> statement-breakpoint
INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`)
	SELECT `user_id`, 'saved-item', `id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) FROM `saved_items` ORDER BY `updated_at`, `id`;--> statement-breakpoint
CREATE TRIGGER `changes_item_insert` AFTER INSERT ON `saved_items`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (NEW.`user_id`, 'saved-item', NEW.`id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;--> statement-breakpoint
-- Only a real change: an UPDATE that leaves every column as it was (a read state set again) is none.
CREATE TRIGGER `changes_item_update` AFTER UPDATE ON `saved_items`
WHEN OLD.`original_url` IS NOT NEW.`original_url` OR OLD.`normalized_url` IS NOT NEW.`normalized_url` OR OLD.`host` IS NOT NEW.`host` OR OLD.`title` IS NOT NEW.`title` OR OLD.`description` IS NOT NEW.`description` OR OLD.`site_name` IS NOT NEW.`site_name` OR OLD.`favicon_url` IS NOT NEW.`favicon_url` OR OLD.`favicon_light_url` IS NOT NEW.`favicon_light_url` OR OLD.`favicon_dark_url` IS NOT NEW.`favicon_dark_url` OR OLD.`image_url` IS NOT NEW.`image_url` OR OLD.`canonical_url` IS NOT NEW.`canonical_url` OR OLD.`preview_summary` IS NOT NEW.`preview_summary` OR OLD.`type` IS NOT NEW.`type` OR OLD.`tags` IS NOT NEW.`tags` OR OLD.`enrichment_status` IS NOT NEW.`enrichment_status` OR OLD.`source_name` IS NOT NEW.`source_name` OR OLD.`capture_channel` IS NOT NEW.`capture_channel` OR OLD.`folder_id` IS NOT NEW.`folder_id` OR OLD.`is_read` IS NOT NEW.`is_read` OR OLD.`opened_at` IS NOT NEW.`opened_at` OR OLD.`last_saved_at` IS NOT NEW.`last_saved_at` OR OLD.`created_at` IS NOT NEW.`created_at` OR OLD.`updated_at` IS NOT NEW.`updated_at`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (NEW.`user_id`, 'saved-item', NEW.`id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;--> statement-breakpoint
CREATE TRIGGER `changes_item_delete` AFTER DELETE ON `saved_items`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (OLD.`user_id`, 'saved-item', OLD.`id`, 'delete', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;--> statement-breakpoint
CREATE TRIGGER `changes_folder_insert` AFTER INSERT ON `folders`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (NEW.`user_id`, 'folder', NEW.`id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;--> statement-breakpoint
CREATE TRIGGER `changes_folder_update` AFTER UPDATE ON `folders`
WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`name_key` IS NOT NEW.`name_key` OR OLD.`updated_at` IS NOT NEW.`updated_at`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (NEW.`user_id`, 'folder', NEW.`id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;--> statement-breakpoint
CREATE TRIGGER `changes_folder_delete` AFTER DELETE ON `folders`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (OLD.`user_id`, 'folder', OLD.`id`, 'delete', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;
