import { TAGS, type Tag } from '../types.ts'

/** Case, spaces, underscores and hyphens removed: `Front End`, `front_end` and `frontend` all fold to `frontend`. */
function fold(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '')
}

const TAG_BY_FOLD = new Map<string, Tag>(TAGS.map((tag) => [fold(tag), tag]))

/** The tag value a name written in a file stands for, or null. */
export function tagValueOf(name: string): Tag | null {
  return TAG_BY_FOLD.get(fold(name.trim())) ?? null
}

/**
 * Splits tags as written into tag values (deduplicated, in file order) and the rest (trimmed, deduplicated
 * case-insensitively, as first written). An unknown tag is never an error. @see docs/import-export.md#entry-rules
 */
export function sortTags(names: readonly string[]): { tags: Tag[]; droppedTags: string[] } {
  const tags: Tag[] = []
  const droppedTags: string[] = []
  const dropped = new Set<string>()
  for (const written of names) {
    const name = written.trim()
    if (name === '') continue
    const tag = tagValueOf(name)
    if (tag !== null) {
      if (!tags.includes(tag)) tags.push(tag)
    } else if (!dropped.has(name.toLowerCase())) {
      dropped.add(name.toLowerCase())
      droppedTags.push(name)
    }
  }
  return { tags, droppedTags }
}

/** `a|b`-style lists: Pocket's CSV and our own. */
export function splitTags(text: string | null | undefined, separator: string): string[] {
  if (text === null || text === undefined) return []
  return text.split(separator).filter((name) => name.trim() !== '')
}

/**
 * A bookmark file's `TAGS` attribute: comma-separated (Firefox, Raindrop, Pinboard's HTML export). A value
 * without a comma is one tag when it names a tag value (`Front End`), otherwise space-separated words
 * (older Pinboard and Delicious exports write `TAGS="ai tools"`). @see docs/import-export.md#formats
 */
export function splitBookmarkTags(text: string | null | undefined): string[] {
  if (text === null || text === undefined || text.trim() === '') return []
  if (text.includes(',')) return splitTags(text, ',')
  if (tagValueOf(text) !== null) return [text]
  return text.split(/\s+/).filter((name) => name !== '')
}

/**
 * Instapaper's `Tags` column: a JSON array of names (`["a","b"]`), or empty. Anything else is read as a
 * comma-separated list rather than refused, since tags never fail an entry.
 */
export function splitJsonTags(text: string | null | undefined): string[] {
  if (text === null || text === undefined || text.trim() === '') return []
  try {
    const parsed: unknown = JSON.parse(text)
    if (Array.isArray(parsed)) return stringsOf(parsed)
  } catch {
    // Not JSON: fall through to the plain list.
  }
  return splitTags(text.replace(/^\s*\[|\]\s*$/g, ''), ',').map((name) => name.trim().replace(/^"|"$/g, ''))
}

/**
 * Tags from a JSON export: an array of names, or of objects naming themselves in `label` (wallabag) or
 * `name` (Omnivore's API, Readlater); anything else in the array is skipped.
 */
export function stringsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return []
  const names: string[] = []
  for (const item of value) {
    if (typeof item === 'string') names.push(item)
    else if (item !== null && typeof item === 'object') {
      const named = (item as { label?: unknown; name?: unknown }).label ?? (item as { name?: unknown }).name
      if (typeof named === 'string') names.push(named)
    }
  }
  return names
}
