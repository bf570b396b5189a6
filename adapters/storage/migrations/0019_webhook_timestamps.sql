-- Every webhook message's `timestamp` is its `created_at_ms` to the millisecond, in integer arithmetic
-- (docs/webhooks.md#delivery): what the first attempt's `new Date(createdAtMs).toISOString()` writes for a
-- message queued without its body. The bodies these four triggers write (a deleted item's messages, a
-- folder's) took their timestamp from strftime's %f, the clock's own millisecond, while `created_at_ms`
-- (julianday arithmetic, truncated) falls one below it for about one message in two: the two disagreed by
-- 1 ms. They now take the same integer, as the highlight triggers (0015) do. Same triggers as 0012 otherwise.
DROP TRIGGER `webhook_item_delete`;--> statement-breakpoint
CREATE TRIGGER `webhook_item_delete` AFTER DELETE ON `saved_items`
BEGIN
	UPDATE `webhook_deliveries` SET `body` = json_object('type', `type`, 'timestamp', strftime('%Y-%m-%dT%H:%M:%S', `created_at_ms` / 1000, 'unixepoch') || printf('.%03dZ', `created_at_ms` % 1000), 'data', json_object('savedItem', json_object('id', OLD.`id`, 'originalUrl', OLD.`original_url`, 'normalizedUrl', OLD.`normalized_url`, 'host', OLD.`host`, 'title', OLD.`title`, 'description', OLD.`description`, 'siteName', OLD.`site_name`, 'faviconUrl', OLD.`favicon_url`, 'faviconLightUrl', OLD.`favicon_light_url`, 'faviconDarkUrl', OLD.`favicon_dark_url`, 'imageUrl', OLD.`image_url`, 'canonicalUrl', OLD.`canonical_url`, 'previewSummary', OLD.`preview_summary`, 'type', OLD.`type`, 'tags', json(OLD.`tags`), 'enrichmentStatus', OLD.`enrichment_status`, 'sourceName', OLD.`source_name`, 'captureChannel', OLD.`capture_channel`, 'folder', json((SELECT json_object('id', f.`id`, 'name', f.`name`) FROM `folders` f WHERE f.`id` = OLD.`folder_id`)), 'isRead', json(CASE WHEN OLD.`is_read` THEN 'true' ELSE 'false' END), 'lastSavedAt', OLD.`last_saved_at`, 'createdAt', OLD.`created_at`, 'updatedAt', OLD.`updated_at`)))
		WHERE `webhook_id` IN (SELECT `id` FROM `webhooks` WHERE `user_id` = OLD.`user_id`) AND `entity_id` = OLD.`id` AND `status` = 'pending' AND `body` IS NULL;
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `body`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'saved_item.deleted', OLD.`id`, json_object('type', 'saved_item.deleted', 'timestamp', strftime('%Y-%m-%dT%H:%M:%S', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) / 1000, 'unixepoch') || printf('.%03dZ', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) % 1000), 'data', json_object('savedItem', json_object('id', OLD.`id`, 'originalUrl', OLD.`original_url`, 'normalizedUrl', OLD.`normalized_url`, 'host', OLD.`host`, 'title', OLD.`title`, 'description', OLD.`description`, 'siteName', OLD.`site_name`, 'faviconUrl', OLD.`favicon_url`, 'faviconLightUrl', OLD.`favicon_light_url`, 'faviconDarkUrl', OLD.`favicon_dark_url`, 'imageUrl', OLD.`image_url`, 'canonicalUrl', OLD.`canonical_url`, 'previewSummary', OLD.`preview_summary`, 'type', OLD.`type`, 'tags', json(OLD.`tags`), 'enrichmentStatus', OLD.`enrichment_status`, 'sourceName', OLD.`source_name`, 'captureChannel', OLD.`capture_channel`, 'folder', json((SELECT json_object('id', f.`id`, 'name', f.`name`) FROM `folders` f WHERE f.`id` = OLD.`folder_id`)), 'isRead', json(CASE WHEN OLD.`is_read` THEN 'true' ELSE 'false' END), 'lastSavedAt', OLD.`last_saved_at`, 'createdAt', OLD.`created_at`, 'updatedAt', OLD.`updated_at`))), 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = OLD.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'saved_item.deleted' || '"') > 0;
END;--> statement-breakpoint
DROP TRIGGER `webhook_folder_insert`;--> statement-breakpoint
CREATE TRIGGER `webhook_folder_insert` AFTER INSERT ON `folders`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `body`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'folder.created', NEW.`id`, json_object('type', 'folder.created', 'timestamp', strftime('%Y-%m-%dT%H:%M:%S', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) / 1000, 'unixepoch') || printf('.%03dZ', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) % 1000), 'data', json_object('folder', json_object('id', NEW.`id`, 'name', NEW.`name`))), 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = NEW.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'folder.created' || '"') > 0;
END;--> statement-breakpoint
DROP TRIGGER `webhook_folder_update`;--> statement-breakpoint
CREATE TRIGGER `webhook_folder_update` AFTER UPDATE ON `folders`
WHEN OLD.`name` IS NOT NEW.`name`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `body`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'folder.updated', NEW.`id`, json_object('type', 'folder.updated', 'timestamp', strftime('%Y-%m-%dT%H:%M:%S', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) / 1000, 'unixepoch') || printf('.%03dZ', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) % 1000), 'data', json_object('folder', json_object('id', NEW.`id`, 'name', NEW.`name`))), 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = NEW.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'folder.updated' || '"') > 0;
END;--> statement-breakpoint
DROP TRIGGER `webhook_folder_delete`;--> statement-breakpoint
CREATE TRIGGER `webhook_folder_delete` AFTER DELETE ON `folders`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `body`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'folder.deleted', OLD.`id`, json_object('type', 'folder.deleted', 'timestamp', strftime('%Y-%m-%dT%H:%M:%S', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) / 1000, 'unixepoch') || printf('.%03dZ', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) % 1000), 'data', json_object('folder', json_object('id', OLD.`id`, 'name', OLD.`name`))), 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = OLD.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'folder.deleted' || '"') > 0;
END;
