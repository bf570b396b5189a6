import { type CsvTable, columnIndex, readCsv } from './csv.ts'
import { checkEntry, IMPORT_MAX_TITLE_LENGTH } from './entry-rules.ts'
import { lineCounter, scanHtml } from './html-tokens.ts'
import { splitTags } from './tags.ts'
import { ImportFormatError, type ParsedEntry } from './types.ts'

/** The columns that make a CSV Pocket's: `title,url,time_added,tags,status` (2024 exports add `cursor`). */
export function isPocketHeader(columns: readonly string[]): boolean {
  return columns.includes('url') && columns.includes('time_added')
}

/**
 * Pocket's CSV export, one file or the parts of its zip (`part_000000.csv`, `part_000001.csv`, …) in name
 * order. Lines count on across parts, so every entry has its own number; errors also name the part and
 * its own line. `status` archive means read; `tags` are separated by `|`; `time_added` is unix seconds.
 * @see docs/import-export.md#formats
 */
export function parsePocketCsv(parts: readonly { name: string | null; text: string }[], now: Date): ParsedEntry[] {
  const entries: ParsedEntry[] = []
  let lineOffset = 0
  for (const part of parts) {
    const table = readCsv(part.text, part.name)
    if (!isPocketHeader(table.columns)) {
      const what = part.name === null ? 'the CSV' : part.name
      throw new ImportFormatError(`${what} is not Pocket's CSV: its header is "${table.columns.join(',')}"`)
    }
    entries.push(...pocketRows(table, part.name, lineOffset, now))
    lineOffset += table.lineCount
  }
  return entries
}

function pocketRows(table: CsvTable, name: string | null, lineOffset: number, now: Date): ParsedEntry[] {
  const [title, url, timeAdded, tags, status] = ['title', 'url', 'time_added', 'tags', 'status'].map((column) =>
    columnIndex(table, column),
  ) as [number, number, number, number, number]
  return table.rows.map(({ line, cells }) =>
    checkEntry(
      {
        line: lineOffset + line,
        where: name === null ? undefined : `${name} line ${line}`,
        url: cells[url],
        title: cells[title],
        savedAt: { value: cells[timeAdded], field: 'time_added' },
        isRead: cells[status]?.trim().toLowerCase() === 'archive',
        tags: splitTags(cells[tags], '|'),
      },
      now,
    ),
  )
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
export function parsePocketHtml(html: string, now: Date): ParsedEntry[] {
  const lineAt = lineCounter(html)
  const entries: ParsedEntry[] = []
  let heading: string | null = null
  let isRead = false
  let anchor: { line: number; href: string | undefined; timeAdded?: string; tags?: string; title: string } | null = null
  const finish = () => {
    if (anchor === null) return
    const { line, href, timeAdded, tags, title } = anchor
    anchor = null
    entries.push(
      checkEntry(
        {
          line,
          url: href,
          title,
          savedAt: { value: timeAdded, field: 'time_added' },
          isRead,
          tags: splitTags(tags, ','),
        },
        now,
      ),
    )
  }
  scanHtml(html, {
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
  finish()
  return entries
}
