CREATE TABLE `item_image_numbers` (
	`item_id` text PRIMARY KEY NOT NULL,
	`last_n` integer NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Items archived before this table: their highest number so far is where they go on from.
INSERT INTO `item_image_numbers` (`item_id`, `last_n`) SELECT `item_id`, max(`n`) FROM `item_images` GROUP BY `item_id`;
