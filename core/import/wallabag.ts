import { checkEntry } from './entry-rules.ts'
import { dateOf, isJsonObject, notAnObject, textOf } from './json.ts'
import { stringsOf } from './tags.ts'
import type { ParsedEntry } from './types.ts'

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
export function parseWallabag(items: readonly unknown[], now: Date): ParsedEntry[] {
  return items.map((item, index) => {
    const line = index + 1
    if (!isJsonObject(item)) return notAnObject(line)
    const archived = item.is_archived
    return checkEntry(
      {
        line,
        url: textOf(item.url),
        title: textOf(item.title),
        savedAt: { value: dateOf(item.created_at), field: 'created_at' },
        isRead: archived === 1 || archived === true || archived === '1',
        tags: stringsOf(item.tags),
      },
      now,
    )
  })
}
