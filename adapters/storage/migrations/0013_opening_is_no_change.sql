-- Opening an item records `opened_at`, which is not part of the item as any client sees it: an UPDATE that
-- changes it alone (opening an item already read) is no change, for the changes feed as for webhooks
-- (docs/api.md#no-op-writes). The trigger is the one of 0011 without `opened_at`.
DROP TRIGGER `changes_item_update`;--> statement-breakpoint
CREATE TRIGGER `changes_item_update` AFTER UPDATE ON `saved_items`
WHEN OLD.`original_url` IS NOT NEW.`original_url` OR OLD.`normalized_url` IS NOT NEW.`normalized_url` OR OLD.`host` IS NOT NEW.`host` OR OLD.`title` IS NOT NEW.`title` OR OLD.`description` IS NOT NEW.`description` OR OLD.`site_name` IS NOT NEW.`site_name` OR OLD.`favicon_url` IS NOT NEW.`favicon_url` OR OLD.`favicon_light_url` IS NOT NEW.`favicon_light_url` OR OLD.`favicon_dark_url` IS NOT NEW.`favicon_dark_url` OR OLD.`image_url` IS NOT NEW.`image_url` OR OLD.`canonical_url` IS NOT NEW.`canonical_url` OR OLD.`preview_summary` IS NOT NEW.`preview_summary` OR OLD.`type` IS NOT NEW.`type` OR OLD.`tags` IS NOT NEW.`tags` OR OLD.`enrichment_status` IS NOT NEW.`enrichment_status` OR OLD.`source_name` IS NOT NEW.`source_name` OR OLD.`capture_channel` IS NOT NEW.`capture_channel` OR OLD.`folder_id` IS NOT NEW.`folder_id` OR OLD.`is_read` IS NOT NEW.`is_read` OR OLD.`last_saved_at` IS NOT NEW.`last_saved_at` OR OLD.`created_at` IS NOT NEW.`created_at` OR OLD.`updated_at` IS NOT NEW.`updated_at`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (NEW.`user_id`, 'saved-item', NEW.`id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;
