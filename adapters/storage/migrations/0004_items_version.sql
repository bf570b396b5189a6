ALTER TABLE `users` ADD `items_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A person's list changes with any write to their items or folders (a rename shows in every item of the
-- folder); each bumps their version, whichever process or statement wrote it (docs/benchmarks.md#list-page-cache).
CREATE TRIGGER `saved_items_version_insert` AFTER INSERT ON `saved_items`
BEGIN
	UPDATE `users` SET `items_version` = `items_version` + 1 WHERE `id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_items_version_update` AFTER UPDATE ON `saved_items`
BEGIN
	UPDATE `users` SET `items_version` = `items_version` + 1 WHERE `id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `saved_items_version_delete` AFTER DELETE ON `saved_items`
BEGIN
	UPDATE `users` SET `items_version` = `items_version` + 1 WHERE `id` = OLD.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `folders_version_update` AFTER UPDATE ON `folders`
BEGIN
	UPDATE `users` SET `items_version` = `items_version` + 1 WHERE `id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `folders_version_delete` AFTER DELETE ON `folders`
BEGIN
	UPDATE `users` SET `items_version` = `items_version` + 1 WHERE `id` = OLD.`user_id`;
END;
