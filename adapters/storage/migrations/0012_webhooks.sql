CREATE TABLE `webhook_deliveries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`type` text NOT NULL,
	`entity_id` text NOT NULL,
	`body` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`run_after_ms` integer NOT NULL,
	`lease_until_ms` integer,
	`created_at_ms` integer NOT NULL,
	`last_attempt_at_ms` integer,
	`response_status` integer,
	`last_error` text,
	`finished_at_ms` integer,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_queue_idx` ON `webhook_deliveries` (`webhook_id`,`run_after_ms`,`seq`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_entity_idx` ON `webhook_deliveries` (`webhook_id`,`entity_id`,`seq`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_lease_idx` ON `webhook_deliveries` (`webhook_id`,`lease_until_ms`) WHERE status = 'pending' AND lease_until_ms IS NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_history_idx` ON `webhook_deliveries` (`webhook_id`,`seq`) WHERE status != 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_finished_idx` ON `webhook_deliveries` (`finished_at_ms`) WHERE finished_at_ms IS NOT NULL;--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`secret` text NOT NULL,
	`created_at` text NOT NULL,
	`disabled_at` text,
	`failures_in_row` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhooks_user_idx` ON `webhooks` (`user_id`,`created_at`);--> statement-breakpoint
-- The webhook outbox (docs/webhooks.md#delivery), written by triggers in the transaction of each change: only
-- for the person's enabled webhooks subscribed to the event, so a person without webhooks pays one index probe
-- per write. A message about an item gets its body at its first attempt (the item as it is then); deleting
-- the item writes it, as it was, into its messages still without one. `opened_at` is internal (not in the wire
-- shape), so an update of it alone is no event.
CREATE TRIGGER `webhook_item_insert` AFTER INSERT ON `saved_items`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'saved_item.created', NEW.`id`, 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = NEW.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'saved_item.created' || '"') > 0;
END;--> statement-breakpoint
CREATE TRIGGER `webhook_item_update` AFTER UPDATE ON `saved_items`
WHEN OLD.`original_url` IS NOT NEW.`original_url` OR OLD.`normalized_url` IS NOT NEW.`normalized_url` OR OLD.`host` IS NOT NEW.`host` OR OLD.`title` IS NOT NEW.`title` OR OLD.`description` IS NOT NEW.`description` OR OLD.`site_name` IS NOT NEW.`site_name` OR OLD.`favicon_url` IS NOT NEW.`favicon_url` OR OLD.`favicon_light_url` IS NOT NEW.`favicon_light_url` OR OLD.`favicon_dark_url` IS NOT NEW.`favicon_dark_url` OR OLD.`image_url` IS NOT NEW.`image_url` OR OLD.`canonical_url` IS NOT NEW.`canonical_url` OR OLD.`preview_summary` IS NOT NEW.`preview_summary` OR OLD.`type` IS NOT NEW.`type` OR OLD.`tags` IS NOT NEW.`tags` OR OLD.`enrichment_status` IS NOT NEW.`enrichment_status` OR OLD.`source_name` IS NOT NEW.`source_name` OR OLD.`capture_channel` IS NOT NEW.`capture_channel` OR OLD.`folder_id` IS NOT NEW.`folder_id` OR OLD.`is_read` IS NOT NEW.`is_read` OR OLD.`last_saved_at` IS NOT NEW.`last_saved_at` OR OLD.`created_at` IS NOT NEW.`created_at` OR OLD.`updated_at` IS NOT NEW.`updated_at`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, (CASE WHEN NEW.`enrichment_status` = 'enriched' AND OLD.`enrichment_status` IS NOT 'enriched' THEN 'saved_item.enriched' ELSE 'saved_item.updated' END), NEW.`id`, 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = NEW.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || (CASE WHEN NEW.`enrichment_status` = 'enriched' AND OLD.`enrichment_status` IS NOT 'enriched' THEN 'saved_item.enriched' ELSE 'saved_item.updated' END) || '"') > 0;
END;--> statement-breakpoint
CREATE TRIGGER `webhook_item_delete` AFTER DELETE ON `saved_items`
BEGIN
	UPDATE `webhook_deliveries` SET `body` = json_object('type', `type`, 'timestamp', strftime('%Y-%m-%dT%H:%M:%fZ', `created_at_ms` / 1000.0, 'unixepoch'), 'data', json_object('savedItem', json_object('id', OLD.`id`, 'originalUrl', OLD.`original_url`, 'normalizedUrl', OLD.`normalized_url`, 'host', OLD.`host`, 'title', OLD.`title`, 'description', OLD.`description`, 'siteName', OLD.`site_name`, 'faviconUrl', OLD.`favicon_url`, 'faviconLightUrl', OLD.`favicon_light_url`, 'faviconDarkUrl', OLD.`favicon_dark_url`, 'imageUrl', OLD.`image_url`, 'canonicalUrl', OLD.`canonical_url`, 'previewSummary', OLD.`preview_summary`, 'type', OLD.`type`, 'tags', json(OLD.`tags`), 'enrichmentStatus', OLD.`enrichment_status`, 'sourceName', OLD.`source_name`, 'captureChannel', OLD.`capture_channel`, 'folder', json((SELECT json_object('id', f.`id`, 'name', f.`name`) FROM `folders` f WHERE f.`id` = OLD.`folder_id`)), 'isRead', json(CASE WHEN OLD.`is_read` THEN 'true' ELSE 'false' END), 'lastSavedAt', OLD.`last_saved_at`, 'createdAt', OLD.`created_at`, 'updatedAt', OLD.`updated_at`)))
		WHERE `webhook_id` IN (SELECT `id` FROM `webhooks` WHERE `user_id` = OLD.`user_id`) AND `entity_id` = OLD.`id` AND `status` = 'pending' AND `body` IS NULL;
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `body`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'saved_item.deleted', OLD.`id`, json_object('type', 'saved_item.deleted', 'timestamp', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'data', json_object('savedItem', json_object('id', OLD.`id`, 'originalUrl', OLD.`original_url`, 'normalizedUrl', OLD.`normalized_url`, 'host', OLD.`host`, 'title', OLD.`title`, 'description', OLD.`description`, 'siteName', OLD.`site_name`, 'faviconUrl', OLD.`favicon_url`, 'faviconLightUrl', OLD.`favicon_light_url`, 'faviconDarkUrl', OLD.`favicon_dark_url`, 'imageUrl', OLD.`image_url`, 'canonicalUrl', OLD.`canonical_url`, 'previewSummary', OLD.`preview_summary`, 'type', OLD.`type`, 'tags', json(OLD.`tags`), 'enrichmentStatus', OLD.`enrichment_status`, 'sourceName', OLD.`source_name`, 'captureChannel', OLD.`capture_channel`, 'folder', json((SELECT json_object('id', f.`id`, 'name', f.`name`) FROM `folders` f WHERE f.`id` = OLD.`folder_id`)), 'isRead', json(CASE WHEN OLD.`is_read` THEN 'true' ELSE 'false' END), 'lastSavedAt', OLD.`last_saved_at`, 'createdAt', OLD.`created_at`, 'updatedAt', OLD.`updated_at`))), 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = OLD.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'saved_item.deleted' || '"') > 0;
END;--> statement-breakpoint
CREATE TRIGGER `webhook_folder_insert` AFTER INSERT ON `folders`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `body`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'folder.created', NEW.`id`, json_object('type', 'folder.created', 'timestamp', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'data', json_object('folder', json_object('id', NEW.`id`, 'name', NEW.`name`))), 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = NEW.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'folder.created' || '"') > 0;
END;--> statement-breakpoint
CREATE TRIGGER `webhook_folder_update` AFTER UPDATE ON `folders`
WHEN OLD.`name` IS NOT NEW.`name`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `body`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'folder.updated', NEW.`id`, json_object('type', 'folder.updated', 'timestamp', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'data', json_object('folder', json_object('id', NEW.`id`, 'name', NEW.`name`))), 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = NEW.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'folder.updated' || '"') > 0;
END;--> statement-breakpoint
CREATE TRIGGER `webhook_folder_delete` AFTER DELETE ON `folders`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `body`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'folder.deleted', OLD.`id`, json_object('type', 'folder.deleted', 'timestamp', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'data', json_object('folder', json_object('id', OLD.`id`, 'name', OLD.`name`))), 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = OLD.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'folder.deleted' || '"') > 0;
END;
