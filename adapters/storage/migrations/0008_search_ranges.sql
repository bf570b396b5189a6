CREATE TABLE `search_owners` (
	`slot` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_owners_user_id_unique` ON `search_owners` (`user_id`);--> statement-breakpoint
-- The index is rebuilt with each person's items numbered in their own range (docs/search.md#index): a
-- search then reads only that range, where 0006 matched an owner token in every row (a second posting
-- list to intersect, some 5 ms at 100,000 items). The owner column goes with it, and so does FTS5's own copy
-- of the text: snippets are made from the items' own text (core/search/snippet.ts), so the index is
-- contentless (contentless_delete lets a changed or deleted item's row go).
DROP TABLE `search_vocab`;
--> statement-breakpoint
DROP TABLE `search_index`;
--> statement-breakpoint
DELETE FROM `search_docs`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_index` USING fts5(
	`title`, `description`, `site_name`, `host`, `url`, `summary`, `source_name`, `body`,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2',
	prefix = '2 3'
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_vocab` USING fts5vocab(`search_index`, 'row');
--> statement-breakpoint
-- Every item is due again; the first search (or the server's indexer) indexes them in their ranges.
INSERT INTO `search_pending` (`item_id`) SELECT `id` FROM `saved_items` WHERE true ON CONFLICT DO NOTHING;
