-- A saved item's values, and a folder's name, stay inside the API's response schema (docs/api.md#data-rules):
-- the database refuses a write that would put them outside it, whoever writes (a request, the worker, the
-- CLI, plain SQL). The REST and MCP lists' pages are written from these columns by SQLite itself and not
-- walked again in JavaScript (docs/benchmarks.md#the-uncached-list), so the schema their items keep is
-- enforced here, where every reader (list, search, export, changes, webhooks) gets it. The lists are
-- core/types.ts's TAGS, CAPTURE_CHANNELS, ITEM_TYPES and ENRICHMENT_STATUSES; test/storage/stored-values.test.ts
-- holds them equal. An insert checks every column at once; an update checks only the groups of columns it
-- sets (`UPDATE OF`): evaluating every rule on every update doubled the cost of a read-state change.
CREATE TRIGGER `saved_items_values_insert` BEFORE INSERT ON `saved_items`
WHEN NOT (
	typeof(NEW.`id`) = 'text' AND
	typeof(NEW.`original_url`) = 'text' AND
	typeof(NEW.`normalized_url`) = 'text' AND
	typeof(NEW.`host`) = 'text' AND
	typeof(NEW.`title`) IN ('text', 'null') AND
	typeof(NEW.`description`) IN ('text', 'null') AND
	typeof(NEW.`site_name`) IN ('text', 'null') AND
	typeof(NEW.`favicon_url`) IN ('text', 'null') AND
	typeof(NEW.`favicon_light_url`) IN ('text', 'null') AND
	typeof(NEW.`favicon_dark_url`) IN ('text', 'null') AND
	typeof(NEW.`image_url`) IN ('text', 'null') AND
	typeof(NEW.`canonical_url`) IN ('text', 'null') AND
	typeof(NEW.`preview_summary`) IN ('text', 'null') AND
	typeof(NEW.`source_name`) IN ('text', 'null') AND
	typeof(NEW.`folder_id`) IN ('text', 'null') AND
	NEW.`type` IN ('article', 'video', 'website', 'repository') AND
	NEW.`enrichment_status` IN ('pending', 'enriched', 'failed') AND
	(NEW.`capture_channel` IS NULL OR NEW.`capture_channel` IN ('chrome-extension', 'ios-app', 'ios-share-extension', 'raycast', 'web-companion', 'api')) AND
	typeof(NEW.`is_read`) = 'integer' AND NEW.`is_read` IN (0, 1) AND
	typeof(NEW.`last_saved_at`) = 'text' AND
	typeof(NEW.`created_at`) = 'text' AND
	typeof(NEW.`updated_at`) = 'text' AND
	json_valid(NEW.`tags`) AND json_type(NEW.`tags`) = 'array' AND NOT EXISTS (SELECT 1 FROM json_each(NEW.`tags`) WHERE `type` <> 'text' OR `value` NOT IN ('ai', 'tools', 'typescript', 'security', 'design', 'backend', 'front-end'))
)
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_identity_update` BEFORE UPDATE OF `id`, `original_url`, `normalized_url`, `host` ON `saved_items`
WHEN NOT (typeof(NEW.`id`) = 'text' AND typeof(NEW.`original_url`) = 'text' AND typeof(NEW.`normalized_url`) = 'text' AND typeof(NEW.`host`) = 'text')
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_details_update` BEFORE UPDATE OF `title`, `description`, `site_name`, `favicon_url`, `favicon_light_url`, `favicon_dark_url`, `image_url`, `canonical_url`, `preview_summary` ON `saved_items`
WHEN NOT (typeof(NEW.`title`) IN ('text', 'null') AND typeof(NEW.`description`) IN ('text', 'null') AND typeof(NEW.`site_name`) IN ('text', 'null') AND typeof(NEW.`favicon_url`) IN ('text', 'null') AND typeof(NEW.`favicon_light_url`) IN ('text', 'null') AND typeof(NEW.`favicon_dark_url`) IN ('text', 'null') AND typeof(NEW.`image_url`) IN ('text', 'null') AND typeof(NEW.`canonical_url`) IN ('text', 'null') AND typeof(NEW.`preview_summary`) IN ('text', 'null'))
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_source_update` BEFORE UPDATE OF `source_name`, `folder_id` ON `saved_items`
WHEN NOT (typeof(NEW.`source_name`) IN ('text', 'null') AND typeof(NEW.`folder_id`) IN ('text', 'null'))
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_kinds_update` BEFORE UPDATE OF `type`, `enrichment_status`, `capture_channel` ON `saved_items`
WHEN NOT (NEW.`type` IN ('article', 'video', 'website', 'repository') AND NEW.`enrichment_status` IN ('pending', 'enriched', 'failed') AND (NEW.`capture_channel` IS NULL OR NEW.`capture_channel` IN ('chrome-extension', 'ios-app', 'ios-share-extension', 'raycast', 'web-companion', 'api')))
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_read_update` BEFORE UPDATE OF `is_read` ON `saved_items`
WHEN NOT (typeof(NEW.`is_read`) = 'integer' AND NEW.`is_read` IN (0, 1))
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_times_update` BEFORE UPDATE OF `last_saved_at`, `created_at`, `updated_at` ON `saved_items`
WHEN NOT (typeof(NEW.`last_saved_at`) = 'text' AND typeof(NEW.`created_at`) = 'text' AND typeof(NEW.`updated_at`) = 'text')
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_tags_update` BEFORE UPDATE OF `tags` ON `saved_items`
WHEN NOT (json_valid(NEW.`tags`) AND json_type(NEW.`tags`) = 'array' AND NOT EXISTS (SELECT 1 FROM json_each(NEW.`tags`) WHERE `type` <> 'text' OR `value` NOT IN ('ai', 'tools', 'typescript', 'security', 'design', 'backend', 'front-end')))
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `folders_values_insert` BEFORE INSERT ON `folders`
WHEN NOT (typeof(NEW.`id`) = 'text' AND typeof(NEW.`name`) = 'text')
BEGIN
	SELECT RAISE(ABORT, 'folders: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `folders_values_update` BEFORE UPDATE OF `id`, `name` ON `folders`
WHEN NOT (typeof(NEW.`id`) = 'text' AND typeof(NEW.`name`) = 'text')
BEGIN
	SELECT RAISE(ABORT, 'folders: a value outside the API schema');
END;
