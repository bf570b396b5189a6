import { escapeHtml } from '../export/netscape.ts'
import { capPage } from '../reading/page-limits.ts'
import type { EntryAttachments, RawItem } from './entry-rules.ts'
import { omnivoreHighlights } from './highlights.ts'
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
 * An item's files beside the metadata in Omnivore's zip, by the item's `slug`: its highlights
 * (`highlights/<slug>.md`) and its article (`content/<slug>.html`), each as text, or null when the zip has
 * none (or it was left unread, with the reason in `problems`). Called only when the entry is checked.
 */
export type OmnivoreFiles = (
  file: string | null,
  slug: string,
) => (() => { highlights: string | null; content: () => string | null; problems: string[] }) | undefined

/**
 * Omnivore's export: the `metadata_*.json` files of its zip (or one of them on its own), in name order,
 * each inflated and parsed only when the one before is done.
 * Each entry is numbered across files; errors also name the file and the entry's place in it. `state`
 * Archived means read; `labels` are tags; `savedAt` is the saved date. An item's `highlights/<slug>.md`
 * (and, for an item with highlights, its `content/<slug>.html`) are read by `files` when the entry is
 * checked, never when the file is counted. @see docs/import-export.md#formats
 */
export function* omnivoreEntries(
  files: Iterable<{ name: string | null; json: unknown }>,
  attached?: OmnivoreFiles,
): Generator<RawItem> {
  let line = 0
  for (const file of files) {
    const items = file.json
    if (!Array.isArray(items)) {
      throw new ImportFormatError(`${file.name ?? 'the file'} is not an Omnivore item list: it is not a JSON array`)
    }
    for (const [index, item] of (items as unknown[]).entries()) {
      line++
      const where = file.name === null ? undefined : `${file.name} entry ${index + 1}`
      yield isJsonObject(item) ? omnivoreEntry(item, line, where, file.name, attached) : notAnObject(line, where)
    }
  }
}

function omnivoreEntry(
  item: JsonObject,
  line: number,
  where: string | undefined,
  file: string | null,
  attached: OmnivoreFiles | undefined,
): RawItem {
  const slug = textOf(item.slug)
  const read = slug === null || attached === undefined ? undefined : attached(file, slug)
  return {
    ...(read === undefined ? {} : { attachments: () => attachmentsOf(item, read()) }),
    line,
    where,
    url: textOf(item.url),
    title: textOf(item.title),
    savedAt: { value: dateOf(item.savedAt), field: 'savedAt' },
    isRead: textOf(item.state)?.toLowerCase() === 'archived',
    tags: stringsOf(item.labels),
  }
}

/**
 * An item's highlights from its Markdown file, and its article (only for an item with highlights: they need
 * the text they were made on) as a page for enrichment to read instead of fetching the URL
 * (docs/import-export.md#omnivore-highlights).
 */
function attachmentsOf(
  item: JsonObject,
  files: { highlights: string | null; content: () => string | null; problems: string[] },
): EntryAttachments {
  const highlights = files.highlights === null ? [] : omnivoreHighlights(files.highlights)
  const content = highlights.length === 0 ? null : files.content()
  return {
    highlights,
    page: content === null ? null : omnivorePage(content, textOf(item.title), textOf(item.description)),
    problems: files.problems,
  }
}

/**
 * Omnivore's `content/<slug>.html` is the article alone (its readable HTML, no head): it is kept as a page
 * with a head that carries the item's title and description, so enrichment reads them as a page's own and
 * keeps the title the file gave. Cut to the size a captured page may have (docs/reading.md#page-capture).
 */
export function omnivorePage(content: string, title: string | null, description: string | null): string {
  const head = [
    '<meta charset="utf-8">',
    title === null ? '' : `<title>${escapeHtml(title)}</title>`,
    description === null ? '' : `<meta name="description" content="${escapeHtml(description)}">`,
  ].join('')
  return capPage(`<!DOCTYPE html><html><head>${head}</head><body>${content}</body></html>`)
}
