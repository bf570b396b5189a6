import { columnIndex, openCsv } from './csv.ts'
import type { RawItem } from './entry-rules.ts'
import { splitJsonTags } from './tags.ts'

/** Instapaper's header: `URL,Title,Selection,Folder`, then `Timestamp` and, in newer exports, `Tags`. */
export function isInstapaperHeader(columns: readonly string[]): boolean {
  return ['url', 'title', 'selection', 'folder'].every((column) => columns.includes(column))
}

/**
 * Instapaper's CSV export. `Folder` is where the article sits: `Unread` (no folder, unread), `Archive`
 * (no folder, read), `Starred` (no folder, unread: starring says nothing about reading, and a folder
 * named after a flag would be noise), any other name (that folder, unread). `Timestamp` is unix seconds;
 * `Tags` a JSON array. `Selection` (a highlighted passage) is not kept. @see docs/import-export.md#formats
 */
export function* instapaperEntries(text: string): Generator<RawItem> {
  const table = openCsv(text)
  const [url, title, folder, timestamp, tags] = ['url', 'title', 'folder', 'timestamp', 'tags'].map((column) =>
    columnIndex(table, column),
  ) as [number, number, number, number, number]
  for (const { line, cells } of table.rows) {
    const place = cells[folder]?.trim() ?? ''
    const kind = place.toLowerCase()
    const builtIn = kind === 'unread' || kind === 'archive' || kind === 'starred' || kind === ''
    yield {
      line,
      url: cells[url],
      title: cells[title],
      savedAt: { value: cells[timestamp], field: 'Timestamp' },
      isRead: kind === 'archive',
      folder: builtIn ? null : [place],
      tags: splitJsonTags(cells[tags]),
    }
  }
}
