CREATE TABLE `deleted_item_images` (
	`item_id` text NOT NULL,
	`n` integer NOT NULL,
	`user_id` text NOT NULL,
	`original_url` text NOT NULL,
	`media_type` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` text NOT NULL,
	`bytes` blob NOT NULL,
	PRIMARY KEY(`item_id`, `n`),
	FOREIGN KEY (`item_id`) REFERENCES `deleted_items`(`item_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `item_images` (
	`item_id` text NOT NULL,
	`n` integer NOT NULL,
	`user_id` text NOT NULL,
	`original_url` text NOT NULL,
	`media_type` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` text NOT NULL,
	`bytes` blob NOT NULL,
	PRIMARY KEY(`item_id`, `n`),
	FOREIGN KEY (`item_id`) REFERENCES `saved_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_images_user_size_idx` ON `item_images` (`user_id`,`size`);