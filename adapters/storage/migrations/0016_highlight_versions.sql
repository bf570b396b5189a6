CREATE TABLE `highlight_versions` (
	`saved_item_id` text PRIMARY KEY NOT NULL,
	`version` text NOT NULL,
	FOREIGN KEY (`saved_item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Any highlight added, changed or deleted gives its item's highlights a new version (docs/highlights.md#web),
-- in the transaction of the change, whichever process wrote it. A highlight deleted with its item (the
-- cascade) has no item left to version: the EXISTS keeps the foreign key from refusing the item's delete.
CREATE TRIGGER `highlight_versions_insert` AFTER INSERT ON `highlights`
BEGIN
	INSERT OR REPLACE INTO `highlight_versions` (`saved_item_id`, `version`) VALUES (NEW.`saved_item_id`, lower(hex(randomblob(8))));
END;--> statement-breakpoint
CREATE TRIGGER `highlight_versions_update` AFTER UPDATE ON `highlights`
BEGIN
	INSERT OR REPLACE INTO `highlight_versions` (`saved_item_id`, `version`) VALUES (NEW.`saved_item_id`, lower(hex(randomblob(8))));
END;--> statement-breakpoint
CREATE TRIGGER `highlight_versions_delete` AFTER DELETE ON `highlights`
BEGIN
	INSERT OR REPLACE INTO `highlight_versions` (`saved_item_id`, `version`)
		SELECT OLD.`saved_item_id`, lower(hex(randomblob(8))) WHERE EXISTS (SELECT 1 FROM `saved_items` WHERE `id` = OLD.`saved_item_id`);
END;--> statement-breakpoint
-- Items with highlights already: a first version.
INSERT INTO `highlight_versions` (`saved_item_id`, `version`)
	SELECT `saved_item_id`, lower(hex(randomblob(8))) FROM (SELECT DISTINCT `saved_item_id` FROM `highlights`);
--> statement-breakpoint
ALTER TABLE `users` ADD `highlights_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A person's list of highlights changes with any write to their highlights (and, through the item each
-- shows, to their items: `items_version`); each bumps this version, whichever process wrote it, so the
-- list's page cache never serves a page after a change (docs/highlights.md#endpoints).
CREATE TRIGGER `highlights_list_version_insert` AFTER INSERT ON `highlights`
BEGIN
	UPDATE `users` SET `highlights_version` = `highlights_version` + 1 WHERE `id` = NEW.`user_id`;
END;--> statement-breakpoint
CREATE TRIGGER `highlights_list_version_update` AFTER UPDATE ON `highlights`
BEGIN
	UPDATE `users` SET `highlights_version` = `highlights_version` + 1 WHERE `id` = NEW.`user_id`;
END;--> statement-breakpoint
CREATE TRIGGER `highlights_list_version_delete` AFTER DELETE ON `highlights`
BEGIN
	UPDATE `users` SET `highlights_version` = `highlights_version` + 1 WHERE `id` = OLD.`user_id`;
END;
