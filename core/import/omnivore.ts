import type { RawItem } from './entry-rules.ts'
import { dateOf, isJsonObject, type JsonObject, notAnObject, textOf } from './json.ts'
import { stringsOf } from './tags.ts'
import { ImportFormatError } from './types.ts'

/** Omnivore's export zip names its item lists `metadata_<from>_to_<to>.json`, at its root. */
export function isOmnivoreMetadataName(name: string): boolean {
  return /(?:^|\/)metadata_[^/]*\.json$/i.test(name)
}

/** A JSON array of Omnivore items: objects with `slug` and `savedAt`. */
export function isOmnivoreItems(value: unknown): boolean {
  return Array.isArray(value) && value.some((item) => isJsonObject(item) && 'slug' in item && 'savedAt' in item)
}

/**
 * Omnivore's export: the `metadata_*.json` files of its zip (or one of them on its own), in name order,
 * each inflated and parsed only when the one before is done.
 * Each entry is numbered across files; errors also name the file and the entry's place in it. `state`
 * Archived means read; `labels` are tags; `savedAt` is the saved date. The zip's `content/` and
 * `highlights/` are never inflated. @see docs/import-export.md#formats
 */
export function* omnivoreEntries(files: Iterable<{ name: string | null; json: unknown }>): Generator<RawItem> {
  let line = 0
  for (const file of files) {
    const items = file.json
    if (!Array.isArray(items)) {
      throw new ImportFormatError(`${file.name ?? 'the file'} is not an Omnivore item list: it is not a JSON array`)
    }
    for (const [index, item] of (items as unknown[]).entries()) {
      line++
      const where = file.name === null ? undefined : `${file.name} entry ${index + 1}`
      yield isJsonObject(item) ? omnivoreEntry(item, line, where) : notAnObject(line, where)
    }
  }
}

function omnivoreEntry(item: JsonObject, line: number, where: string | undefined): RawItem {
  return {
    line,
    where,
    url: textOf(item.url),
    title: textOf(item.title),
    savedAt: { value: dateOf(item.savedAt), field: 'savedAt' },
    isRead: textOf(item.state)?.toLowerCase() === 'archived',
    tags: stringsOf(item.labels),
  }
}
