CREATE TABLE `search_docs` (
	`doc` integer PRIMARY KEY NOT NULL,
	`item_id` text NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_docs_item_id_unique` ON `search_docs` (`item_id`);--> statement-breakpoint
-- The full-text index (docs/search.md#index): one row per item, keyed by search_docs.doc, kept in step by
-- the triggers below in the same statement as every change to an item or its article.
CREATE VIRTUAL TABLE `search_index` USING fts5(
	`title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`,
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '2 3'
);
--> statement-breakpoint
CREATE TRIGGER `search_index_item_insert` AFTER INSERT ON `saved_items`
BEGIN
	INSERT INTO `search_docs` (`item_id`) VALUES (NEW.`id`);
	INSERT INTO `search_index` (`rowid`, `title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`)
	SELECT `doc`, NEW.`title`, NEW.`description`, NEW.`site_name`, NEW.`host`, NEW.`normalized_url`, NEW.`preview_summary`, NEW.`source_name`,
		(SELECT `text` FROM `item_contents` WHERE `item_id` = NEW.`id`)
	FROM `search_docs` WHERE `item_id` = NEW.`id`;
END;
--> statement-breakpoint
-- Only when an indexed value really changes: a recapture names source_name in its SET without changing it.
CREATE TRIGGER `search_index_item_update` AFTER UPDATE OF `title`, `description`, `site_name`, `host`, `normalized_url`, `preview_summary`, `source_name` ON `saved_items`
WHEN OLD.`title` IS NOT NEW.`title` OR OLD.`description` IS NOT NEW.`description` OR OLD.`site_name` IS NOT NEW.`site_name`
	OR OLD.`host` IS NOT NEW.`host` OR OLD.`normalized_url` IS NOT NEW.`normalized_url`
	OR OLD.`preview_summary` IS NOT NEW.`preview_summary` OR OLD.`source_name` IS NOT NEW.`source_name`
BEGIN
	DELETE FROM `search_index` WHERE `rowid` = (SELECT `doc` FROM `search_docs` WHERE `item_id` = NEW.`id`);
	INSERT INTO `search_index` (`rowid`, `title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`)
	SELECT `doc`, NEW.`title`, NEW.`description`, NEW.`site_name`, NEW.`host`, NEW.`normalized_url`, NEW.`preview_summary`, NEW.`source_name`,
		(SELECT `text` FROM `item_contents` WHERE `item_id` = NEW.`id`)
	FROM `search_docs` WHERE `item_id` = NEW.`id`;
END;
--> statement-breakpoint
-- BEFORE: the item's search_docs row goes with it by cascade, and with it the way to its index row.
CREATE TRIGGER `search_index_item_delete` BEFORE DELETE ON `saved_items`
BEGIN
	DELETE FROM `search_index` WHERE `rowid` = (SELECT `doc` FROM `search_docs` WHERE `item_id` = OLD.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `search_index_content_insert` AFTER INSERT ON `item_contents`
BEGIN
	DELETE FROM `search_index` WHERE `rowid` = (SELECT `doc` FROM `search_docs` WHERE `item_id` = NEW.`item_id`);
	INSERT INTO `search_index` (`rowid`, `title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`)
	SELECT d.`doc`, s.`title`, s.`description`, s.`site_name`, s.`host`, s.`normalized_url`, s.`preview_summary`, s.`source_name`, NEW.`text`
	FROM `search_docs` d JOIN `saved_items` s ON s.`id` = d.`item_id` WHERE d.`item_id` = NEW.`item_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `search_index_content_update` AFTER UPDATE OF `text` ON `item_contents`
WHEN OLD.`text` IS NOT NEW.`text`
BEGIN
	DELETE FROM `search_index` WHERE `rowid` = (SELECT `doc` FROM `search_docs` WHERE `item_id` = NEW.`item_id`);
	INSERT INTO `search_index` (`rowid`, `title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`)
	SELECT d.`doc`, s.`title`, s.`description`, s.`site_name`, s.`host`, s.`normalized_url`, s.`preview_summary`, s.`source_name`, NEW.`text`
	FROM `search_docs` d JOIN `saved_items` s ON s.`id` = d.`item_id` WHERE d.`item_id` = NEW.`item_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `search_index_content_delete` AFTER DELETE ON `item_contents`
BEGIN
	DELETE FROM `search_index` WHERE `rowid` = (SELECT `doc` FROM `search_docs` WHERE `item_id` = OLD.`item_id`);
	INSERT INTO `search_index` (`rowid`, `title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`)
	SELECT d.`doc`, s.`title`, s.`description`, s.`site_name`, s.`host`, s.`normalized_url`, s.`preview_summary`, s.`source_name`, NULL
	FROM `search_docs` d JOIN `saved_items` s ON s.`id` = d.`item_id` WHERE d.`item_id` = OLD.`item_id`;
END;
--> statement-breakpoint
-- Items saved before search existed are indexed now.
INSERT INTO `search_docs` (`item_id`) SELECT `id` FROM `saved_items` ORDER BY `created_at`, `id`;
--> statement-breakpoint
INSERT INTO `search_index` (`rowid`, `title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`)
SELECT d.`doc`, s.`title`, s.`description`, s.`site_name`, s.`host`, s.`normalized_url`, s.`preview_summary`, s.`source_name`, c.`text`
FROM `search_docs` d JOIN `saved_items` s ON s.`id` = d.`item_id` LEFT JOIN `item_contents` c ON c.`item_id` = s.`id`;
