import { columnIndex, openCsv } from './csv.ts'
import { IMPORT_MAX_TITLE_LENGTH, type RawEntry, type RawItem } from './entry-rules.ts'
import { lineCounter, scanHtml } from './html-tokens.ts'
import { splitTags } from './tags.ts'
import { ImportFormatError } from './types.ts'

/** The columns that make a CSV Pocket's: `title,url,time_added,tags,status` (2024 exports add `cursor`). */
export function isPocketHeader(columns: readonly string[]): boolean {
  return columns.includes('url') && columns.includes('time_added')
}

/**
 * Pocket's CSV export, one file or the parts of its zip (`part_000000.csv`, `part_000001.csv`, …) in name
 * order, each part read only when the one before is done. Lines count on across parts, so every entry has
 * its own number; errors also name the part and its own line. `status` archive means read; `tags` are
 * separated by `|`; `time_added` is unix seconds.
 * @see docs/import-export.md#formats
 */
export function* pocketCsvEntries(parts: Iterable<{ name: string | null; text: string }>): Generator<RawItem> {
  let lineOffset = 0
  for (const part of parts) {
    const csv = openCsv(part.text, part.name)
    if (!isPocketHeader(csv.columns)) {
      const what = part.name === null ? 'the CSV' : part.name
      throw new ImportFormatError(`${what} is not Pocket's CSV: its header is "${csv.columns.join(',')}"`)
    }
    const [title, url, timeAdded, tags, status] = ['title', 'url', 'time_added', 'tags', 'status'].map((column) =>
      columnIndex(csv, column),
    ) as [number, number, number, number, number]
    for (const { line, cells } of csv.rows) {
      yield {
        line: lineOffset + line,
        where: part.name === null ? undefined : `${part.name} line ${line}`,
        url: cells[url],
        title: cells[title],
        savedAt: { value: cells[timeAdded], field: 'time_added' },
        isRead: cells[status]?.trim().toLowerCase() === 'archive',
        tags: splitTags(cells[tags], '|'),
      }
    }
    lineOffset += csv.lineCount
  }
}

/** Pocket's HTML export: its `<title>`, or `time_added` links under the "Unread" and "Read Archive" headings. */
export function isPocketHtml(html: string): boolean {
  return (
    /<title>\s*Pocket Export\s*<\/title>/i.test(html) ||
    (/\stime_added\s*=/i.test(html) && /<h1>\s*(?:Unread|Read Archive)\s*<\/h1>/i.test(html))
  )
}

/**
 * Pocket's older HTML export: `<h1>Unread</h1><ul><li><a href time_added tags="a,b">title</a></li></ul>`,
 * then `<h1>Read Archive</h1>` and the read ones. @see docs/import-export.md#formats
 */
export function* pocketHtmlEntries(html: string): Generator<RawItem> {
  const lineAt = lineCounter(html)
  const ready: RawEntry[] = []
  let heading: string | null = null
  let isRead = false
  let anchor: { line: number; href: string | undefined; timeAdded?: string; tags?: string; title: string } | null = null
  const finish = () => {
    if (anchor === null) return
    const { line, href, timeAdded, tags, title } = anchor
    anchor = null
    ready.push({
      line,
      url: href,
      title,
      savedAt: { value: timeAdded, field: 'time_added' },
      isRead,
      tags: splitTags(tags, ','),
    })
  }
  const scan = scanHtml(html, {
    open(name, attributes, offset) {
      if (name === 'h1') heading = ''
      else if (name === 'a' && attributes.has('href')) {
        finish()
        anchor = {
          line: lineAt(offset),
          href: attributes.get('href'),
          timeAdded: attributes.get('time_added'),
          tags: attributes.get('tags'),
          title: '',
        }
      }
    },
    close(name) {
      if (name === 'h1' && heading !== null) {
        isRead = heading.trim().toLowerCase() === 'read archive'
        heading = null
      } else if (name === 'a') finish()
    },
    text(text) {
      if (anchor !== null && anchor.title.length < IMPORT_MAX_TITLE_LENGTH * 4) anchor.title += text
      else if (heading !== null && heading.length < 100) heading += text
    },
  })
  // Entries finished so far are handed on after each piece of the file; one still open waits for its end.
  for (const _ of scan) yield* ready.splice(0)
  finish()
  yield* ready
}
