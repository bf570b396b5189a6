import { checkEntry } from './entry-rules.ts'
import { dateOf, isJsonObject, type JsonObject, notAnObject, textOf } from './json.ts'
import { stringsOf } from './tags.ts'
import { ImportFormatError, type ParsedEntry } from './types.ts'

/** Omnivore's export zip names its item lists `metadata_<from>_to_<to>.json`, at its root. */
export function isOmnivoreMetadataName(name: string): boolean {
  return /(?:^|\/)metadata_[^/]*\.json$/i.test(name)
}

/** A JSON array of Omnivore items: objects with `slug` and `savedAt`. */
export function isOmnivoreItems(value: unknown): boolean {
  return Array.isArray(value) && value.some((item) => isJsonObject(item) && 'slug' in item && 'savedAt' in item)
}

/**
 * Omnivore's export: the `metadata_*.json` files of its zip (or one of them on its own), in name order.
 * Each entry is numbered across files; errors also name the file and the entry's place in it. `state`
 * Archived means read; `labels` are tags; `savedAt` is the saved date. The zip's `content/` and
 * `highlights/` are never inflated. @see docs/import-export.md#formats
 */
export function parseOmnivore(files: readonly { name: string | null; json: unknown }[], now: Date): ParsedEntry[] {
  const entries: ParsedEntry[] = []
  for (const file of files) {
    const items = file.json
    if (!Array.isArray(items)) {
      throw new ImportFormatError(`${file.name ?? 'the file'} is not an Omnivore item list: it is not a JSON array`)
    }
    items.forEach((item: unknown, index) => {
      const line = entries.length + 1
      const where = file.name === null ? undefined : `${file.name} entry ${index + 1}`
      if (!isJsonObject(item)) {
        entries.push(notAnObject(line, where))
        return
      }
      entries.push(checkEntry(omnivoreEntry(item, line, where), now))
    })
  }
  return entries
}

function omnivoreEntry(item: JsonObject, line: number, where: string | undefined) {
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
