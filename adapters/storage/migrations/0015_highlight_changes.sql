CREATE INDEX `highlights_user_id_idx` ON `highlights` (`user_id`,`id`);--> statement-breakpoint
-- Highlights join the changes feed, the webhook outbox and the search index (docs/highlights.md#changes-feed-and-webhooks,
-- docs/highlights.md#search). Like 0011 and 0012, every write path (REST, MCP, the web pages, re-anchoring in
-- storeArticle, the web Undo, an import) is covered by triggers in the transaction of the change.
--
-- The changes feed (docs/api.md#changes). Highlights that exist now are where their log starts, as 0011 did for
-- folders and items: a reader whose cursor predates this migration learns of them.
INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`)
	SELECT `user_id`, 'highlight', `id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) FROM `highlights` ORDER BY `created_at`, `id`;--> statement-breakpoint
CREATE TRIGGER `changes_highlight_insert` AFTER INSERT ON `highlights`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (NEW.`user_id`, 'highlight', NEW.`id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;--> statement-breakpoint
-- Only a real change of the highlight as clients see it (every column of its DTO): a patch that sets the colour or
-- note it has is none (docs/api.md#no-op-writes); re-anchoring writes only the highlights whose position moved.
CREATE TRIGGER `changes_highlight_update` AFTER UPDATE ON `highlights`
WHEN OLD.`saved_item_id` IS NOT NEW.`saved_item_id` OR OLD.`exact` IS NOT NEW.`exact` OR OLD.`prefix` IS NOT NEW.`prefix` OR OLD.`suffix` IS NOT NEW.`suffix` OR OLD.`start` IS NOT NEW.`start` OR OLD.`end` IS NOT NEW.`end` OR OLD.`color` IS NOT NEW.`color` OR OLD.`note` IS NOT NEW.`note` OR OLD.`created_at` IS NOT NEW.`created_at` OR OLD.`updated_at` IS NOT NEW.`updated_at`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (NEW.`user_id`, 'highlight', NEW.`id`, 'upsert', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;--> statement-breakpoint
-- Also for the highlights an item's deletion takes with it: SQLite fires a child's delete triggers for the rows a
-- foreign key's ON DELETE CASCADE removes (whatever recursive_triggers says), so a reader learns each is gone.
CREATE TRIGGER `changes_highlight_delete` AFTER DELETE ON `highlights`
BEGIN
	INSERT INTO `changes` (`user_id`, `kind`, `entity_id`, `op`, `at_ms`) VALUES (OLD.`user_id`, 'highlight', OLD.`id`, 'delete', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;--> statement-breakpoint
-- The webhook outbox (docs/webhooks.md#events), as 0012 writes an item's messages: a short row whose body the first
-- attempt writes (the highlight as it is then), and a deletion that writes the highlight as it was into its
-- messages still without one, and queues highlight.deleted with its body. Only for the person's enabled webhooks
-- subscribed to the event.
CREATE TRIGGER `webhook_highlight_insert` AFTER INSERT ON `highlights`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'highlight.created', NEW.`id`, 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = NEW.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'highlight.created' || '"') > 0;
END;--> statement-breakpoint
CREATE TRIGGER `webhook_highlight_update` AFTER UPDATE ON `highlights`
WHEN OLD.`saved_item_id` IS NOT NEW.`saved_item_id` OR OLD.`exact` IS NOT NEW.`exact` OR OLD.`prefix` IS NOT NEW.`prefix` OR OLD.`suffix` IS NOT NEW.`suffix` OR OLD.`start` IS NOT NEW.`start` OR OLD.`end` IS NOT NEW.`end` OR OLD.`color` IS NOT NEW.`color` OR OLD.`note` IS NOT NEW.`note` OR OLD.`created_at` IS NOT NEW.`created_at` OR OLD.`updated_at` IS NOT NEW.`updated_at`
BEGIN
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'highlight.updated', NEW.`id`, 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = NEW.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'highlight.updated' || '"') > 0;
END;--> statement-breakpoint
-- The body is the highlight's wire shape (core/highlights/highlight.ts toHighlightDto), key for key, and its
-- `timestamp` the message's `created_at_ms` to the millisecond, in integer arithmetic: what the first attempt's
-- `new Date(createdAtMs).toISOString()` writes (strftime's %f over a fraction of seconds may round 1 ms off).
CREATE TRIGGER `webhook_highlight_delete` AFTER DELETE ON `highlights`
BEGIN
	UPDATE `webhook_deliveries` SET `body` = json_object('type', `type`, 'timestamp', strftime('%Y-%m-%dT%H:%M:%S', `created_at_ms` / 1000, 'unixepoch') || printf('.%03dZ', `created_at_ms` % 1000), 'data', json_object('highlight', json_object('id', OLD.`id`, 'savedItemId', OLD.`saved_item_id`, 'quote', json_object('exact', OLD.`exact`, 'prefix', OLD.`prefix`, 'suffix', OLD.`suffix`), 'position', json(CASE WHEN OLD.`start` IS NULL THEN 'null' ELSE json_object('start', OLD.`start`, 'end', OLD.`end`) END), 'color', OLD.`color`, 'note', OLD.`note`, 'createdAt', OLD.`created_at`, 'updatedAt', OLD.`updated_at`)))
		WHERE `webhook_id` IN (SELECT `id` FROM `webhooks` WHERE `user_id` = OLD.`user_id`) AND `entity_id` = OLD.`id` AND `status` = 'pending' AND `body` IS NULL;
	INSERT INTO `webhook_deliveries` (`id`, `webhook_id`, `type`, `entity_id`, `body`, `status`, `run_after_ms`, `created_at_ms`)
		SELECT 'msg_' || lower(hex(randomblob(16))), w.`id`, 'highlight.deleted', OLD.`id`, json_object('type', 'highlight.deleted', 'timestamp', strftime('%Y-%m-%dT%H:%M:%S', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) / 1000, 'unixepoch') || printf('.%03dZ', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) % 1000), 'data', json_object('highlight', json_object('id', OLD.`id`, 'savedItemId', OLD.`saved_item_id`, 'quote', json_object('exact', OLD.`exact`, 'prefix', OLD.`prefix`, 'suffix', OLD.`suffix`), 'position', json(CASE WHEN OLD.`start` IS NULL THEN 'null' ELSE json_object('start', OLD.`start`, 'end', OLD.`end`) END), 'color', OLD.`color`, 'note', OLD.`note`, 'createdAt', OLD.`created_at`, 'updatedAt', OLD.`updated_at`))), 'pending', 0, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
		FROM `webhooks` w WHERE w.`user_id` = OLD.`user_id` AND w.`disabled_at` IS NULL AND instr(w.`events`, '"' || 'highlight.deleted' || '"') > 0;
END;--> statement-breakpoint
-- Search (docs/search.md#index): the index gets a column for each item's highlights (their quotes and notes). FTS5
-- cannot add a column to a table, so the index is made again, as 0008 did, and every item is due: the server's
-- indexer (and any search first) indexes them again, with their highlights.
DROP TABLE `search_vocab`;--> statement-breakpoint
DROP TABLE `search_index`;--> statement-breakpoint
DELETE FROM `search_docs`;--> statement-breakpoint
CREATE VIRTUAL TABLE `search_index` USING fts5(
	`title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`, `highlights`,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '2 3'
);--> statement-breakpoint
CREATE VIRTUAL TABLE `search_vocab` USING fts5vocab(`search_index`, 'row');--> statement-breakpoint
INSERT INTO `search_pending` (`item_id`) SELECT `id` FROM `saved_items` WHERE true ON CONFLICT DO NOTHING;--> statement-breakpoint
-- A highlight's quote or note is indexed text of its item: a new, changed or deleted one makes the item due, in the
-- statement of the change. Not for the highlights an item's own deletion takes with it (the item is gone by then,
-- and has left the index in search_index_item_delete).
CREATE TRIGGER `search_pending_highlight_insert` AFTER INSERT ON `highlights`
BEGIN
	INSERT INTO `search_pending` (`item_id`) VALUES (NEW.`saved_item_id`) ON CONFLICT DO NOTHING;
END;--> statement-breakpoint
CREATE TRIGGER `search_pending_highlight_update` AFTER UPDATE OF `exact`, `note` ON `highlights`
WHEN OLD.`exact` IS NOT NEW.`exact` OR OLD.`note` IS NOT NEW.`note`
BEGIN
	INSERT INTO `search_pending` (`item_id`) VALUES (NEW.`saved_item_id`) ON CONFLICT DO NOTHING;
END;--> statement-breakpoint
CREATE TRIGGER `search_pending_highlight_delete` AFTER DELETE ON `highlights`
WHEN EXISTS (SELECT 1 FROM `saved_items` WHERE `id` = OLD.`saved_item_id`)
BEGIN
	INSERT INTO `search_pending` (`item_id`) VALUES (OLD.`saved_item_id`) ON CONFLICT DO NOTHING;
END;
