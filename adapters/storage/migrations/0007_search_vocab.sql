-- The index's vocabulary (docs/search.md#index): a prefix longer than the prefix indexes is expanded into
-- the terms it names, so FTS5 reads their doclists as it goes instead of merging them all up front.
CREATE VIRTUAL TABLE `search_vocab` USING fts5vocab(`search_index`, 'row');
