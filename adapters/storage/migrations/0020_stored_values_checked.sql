-- A saved item's values stay inside the API's response schema (docs/api.md#data-rules): the database refuses a
-- write that would put them outside it, whoever writes (a request, the worker, the CLI, plain SQL). The REST
-- and MCP lists' pages are written from these columns by SQLite itself (docs/benchmarks.md#the-uncached-list),
-- so the schema their items keep is enforced here, where every reader gets it. Checked: each listed value
-- (type, enrichment status, capture channel, each tag: core/types.ts's ITEM_TYPES, ENRICHMENT_STATUSES,
-- CAPTURE_CHANNELS and TAGS, which test/storage/stored-values.test.ts holds equal), the read flag, and the
-- tags as a JSON array. Not needed: a text column's affinity stores a number as its text, and a BLOB, the one
-- value it keeps as it is, makes SQLite's json_object fail, so a page holding one is a logged 500, never sent.
-- An insert checks every rule; an update only those of the columns it sets (`UPDATE OF`): every rule on every
-- update doubled the cost of a read-state change.
CREATE TRIGGER `saved_items_values_insert` BEFORE INSERT ON `saved_items`
WHEN NOT (
	NEW.`type` IN ('article', 'video', 'website', 'repository') AND
	NEW.`enrichment_status` IN ('pending', 'enriched', 'failed') AND
	(NEW.`capture_channel` IS NULL OR NEW.`capture_channel` IN ('chrome-extension', 'ios-app', 'ios-share-extension', 'raycast', 'web-companion', 'api')) AND
	NEW.`is_read` IN (0, 1) AND
	json_valid(NEW.`tags`) AND json_type(NEW.`tags`) = 'array' AND NOT EXISTS (SELECT 1 FROM json_each(NEW.`tags`) WHERE `type` <> 'text' OR `value` NOT IN ('ai', 'tools', 'typescript', 'security', 'design', 'backend', 'front-end'))
)
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_kinds_update` BEFORE UPDATE OF `type`, `enrichment_status`, `capture_channel` ON `saved_items`
WHEN NOT (NEW.`type` IN ('article', 'video', 'website', 'repository') AND NEW.`enrichment_status` IN ('pending', 'enriched', 'failed') AND (NEW.`capture_channel` IS NULL OR NEW.`capture_channel` IN ('chrome-extension', 'ios-app', 'ios-share-extension', 'raycast', 'web-companion', 'api')))
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_read_update` BEFORE UPDATE OF `is_read` ON `saved_items`
WHEN NOT (NEW.`is_read` IN (0, 1))
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;--> statement-breakpoint
CREATE TRIGGER `saved_items_tags_update` BEFORE UPDATE OF `tags` ON `saved_items`
WHEN NOT (json_valid(NEW.`tags`) AND json_type(NEW.`tags`) = 'array' AND NOT EXISTS (SELECT 1 FROM json_each(NEW.`tags`) WHERE `type` <> 'text' OR `value` NOT IN ('ai', 'tools', 'typescript', 'security', 'design', 'backend', 'front-end')))
BEGIN
	SELECT RAISE(ABORT, 'saved_items: a value outside the API schema');
END;
