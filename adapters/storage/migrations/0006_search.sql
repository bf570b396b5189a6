CREATE TABLE `search_docs` (
	`doc` integer PRIMARY KEY NOT NULL,
	`item_id` text NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_docs_item_id_unique` ON `search_docs` (`item_id`);--> statement-breakpoint
-- Items whose index row is due (docs/search.md#index): written by the triggers below in the same
-- statement as the change; the index catches up in batches, and always before a search reads it.
CREATE TABLE `search_pending` (
	`item_id` text PRIMARY KEY NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
-- `owner` is the person's id as one token: a search matches it first, so ranking never leaves the index.
CREATE VIRTUAL TABLE `search_index` USING fts5(
	`title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`, `owner`,
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '2 3'
);
--> statement-breakpoint
CREATE TRIGGER `search_pending_item_insert` AFTER INSERT ON `saved_items`
BEGIN
	INSERT INTO `search_pending` (`item_id`) VALUES (NEW.`id`) ON CONFLICT DO NOTHING;
END;
--> statement-breakpoint
-- Only when an indexed value really changes: a recapture names source_name in its SET without changing it.
CREATE TRIGGER `search_pending_item_update` AFTER UPDATE OF `title`, `description`, `site_name`, `host`, `normalized_url`, `preview_summary`, `source_name` ON `saved_items`
WHEN OLD.`title` IS NOT NEW.`title` OR OLD.`description` IS NOT NEW.`description` OR OLD.`site_name` IS NOT NEW.`site_name`
	OR OLD.`host` IS NOT NEW.`host` OR OLD.`normalized_url` IS NOT NEW.`normalized_url`
	OR OLD.`preview_summary` IS NOT NEW.`preview_summary` OR OLD.`source_name` IS NOT NEW.`source_name`
BEGIN
	INSERT INTO `search_pending` (`item_id`) VALUES (NEW.`id`) ON CONFLICT DO NOTHING;
END;
--> statement-breakpoint
-- A deleted item leaves the index at once. BEFORE: its search_docs row goes with it by cascade, and with
-- it the way to its index row.
CREATE TRIGGER `search_index_item_delete` BEFORE DELETE ON `saved_items`
BEGIN
	DELETE FROM `search_index` WHERE `rowid` = (SELECT `doc` FROM `search_docs` WHERE `item_id` = OLD.`id`);
	DELETE FROM `search_pending` WHERE `item_id` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `search_pending_content_insert` AFTER INSERT ON `item_contents`
BEGIN
	INSERT INTO `search_pending` (`item_id`) VALUES (NEW.`item_id`) ON CONFLICT DO NOTHING;
END;
--> statement-breakpoint
CREATE TRIGGER `search_pending_content_update` AFTER UPDATE OF `text` ON `item_contents`
WHEN OLD.`text` IS NOT NEW.`text`
BEGIN
	INSERT INTO `search_pending` (`item_id`) VALUES (NEW.`item_id`) ON CONFLICT DO NOTHING;
END;
--> statement-breakpoint
CREATE TRIGGER `search_pending_content_delete` AFTER DELETE ON `item_contents`
BEGIN
	INSERT INTO `search_pending` (`item_id`) VALUES (OLD.`item_id`) ON CONFLICT DO NOTHING;
END;
--> statement-breakpoint
-- Items saved before search existed: due now; the first search (or the server's indexer) indexes them.
INSERT INTO `search_pending` (`item_id`) SELECT `id` FROM `saved_items`;
