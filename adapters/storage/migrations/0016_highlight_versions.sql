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
