-- Highlights (docs/highlights.md). The changes feed, webhooks and search do not read them yet: their
-- triggers come in a later migration, with the code that reads what they write.
CREATE TABLE `highlights` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`saved_item_id` text NOT NULL,
	`exact` text NOT NULL,
	`prefix` text NOT NULL,
	`suffix` text NOT NULL,
	`start` integer,
	`end` integer,
	`color` text NOT NULL,
	`note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`saved_item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `highlights_item_text_idx` ON `highlights` (`saved_item_id`,`start`,`end`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `highlights_user_created_idx` ON `highlights` (`user_id`,`created_at`,`id`);