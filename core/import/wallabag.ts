import type { RawItem } from './entry-rules.ts'
import { dateOf, isJsonObject, notAnObject, textOf } from './json.ts'
import { stringsOf } from './tags.ts'

/** A JSON array of wallabag entries: objects with `is_archived`, or with `url` and `is_starred`. */
export function isWallabagEntries(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.some((item) => isJsonObject(item) && ('is_archived' in item || ('url' in item && 'is_starred' in item)))
  )
}

/**
 * wallabag's JSON export: an array of entries. `is_archived` (1, true or "1") means read; `created_at` is
 * the saved date; `tags` are names (or `{label}` objects). Content and annotations are not kept.
 * @see docs/import-export.md#formats
 */
export function* wallabagEntries(items: readonly unknown[]): Generator<RawItem> {
  for (const [index, item] of items.entries()) {
    const line = index + 1
    if (!isJsonObject(item)) {
      yield notAnObject(line)
      continue
    }
    const archived = item.is_archived
    yield {
      line,
      url: textOf(item.url),
      title: textOf(item.title),
      savedAt: { value: dateOf(item.created_at), field: 'created_at' },
      isRead: archived === 1 || archived === true || archived === '1',
      tags: stringsOf(item.tags),
    }
  }
}
