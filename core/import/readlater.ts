import { restoreFormula } from '../export/csv-formulas.ts'
import { columnIndex, openCsv } from './csv.ts'
import { type RawItem, type RefusedEntry, refused } from './entry-rules.ts'
import { dateOf, isJsonObject, notAnObject, textOf } from './json.ts'
import { splitTags, stringsOf } from './tags.ts'
import { ImportFormatError } from './types.ts'

/** The version of our JSON export this server reads. */
export const READLATER_EXPORT_VERSION = 1

/** Our CSV export's header: `url,title,folder,tags,is_read,created_at,last_saved_at,normalized_url,…`. */
export function isReadlaterHeader(columns: readonly string[]): boolean {
  return ['url', 'is_read', 'created_at'].every((column) => columns.includes(column))
}

/** Our JSON export: an object with `"format": "readlater"`. */
export function isReadlaterJson(value: unknown): boolean {
  return isJsonObject(value) && value.format === 'readlater'
}

/**
 * Our JSON export, `{ format: "readlater", version: 1, exportedAt, savedItems: [SavedItemDto…] }`: the URL
 * as first captured (`originalUrl`), `createdAt` as the saved date and `lastSavedAt` as is, the folder's
 * name, read state and tags as they were, and its highlights. @see docs/import-export.md#formats
 */
export function* readlaterJsonEntries(value: unknown): Generator<RawItem> {
  if (!isJsonObject(value)) throw new ImportFormatError('the file is not a Readlater export: it is not a JSON object')
  if (value.version !== READLATER_EXPORT_VERSION) {
    const version = JSON.stringify(value.version) ?? 'none'
    throw new ImportFormatError(
      `the file is a Readlater export of version ${version}; this server reads version ${READLATER_EXPORT_VERSION}`,
    )
  }
  if (!Array.isArray(value.savedItems)) {
    throw new ImportFormatError('the file is not a Readlater export: it has no "savedItems" array')
  }
  for (const [index, item] of (value.savedItems as unknown[]).entries()) {
    const line = index + 1
    if (!isJsonObject(item)) {
      yield notAnObject(line)
      continue
    }
    if (item.isRead !== undefined && item.isRead !== null && typeof item.isRead !== 'boolean') {
      yield badReadState(line, JSON.stringify(item.isRead), 'isRead')
      continue
    }
    const folder = isJsonObject(item.folder) ? textOf(item.folder.name) : null
    yield {
      line,
      url: textOf(item.originalUrl),
      title: textOf(item.title),
      savedAt: { value: dateOf(item.createdAt), field: 'createdAt' },
      lastSavedAt: { value: dateOf(item.lastSavedAt), field: 'lastSavedAt' },
      isRead: item.isRead === true,
      folder: folder === null ? null : [folder],
      tags: stringsOf(item.tags),
      // Checked with the entry; an older export has none (docs/import-export.md#highlights).
      highlights: item.highlights,
    }
  }
}

/**
 * Our CSV export: `url,title,folder,tags,is_read,created_at,last_saved_at,normalized_url,…` (every field of
 * the item), read by column name, tags separated by `|`, `is_read` true or false, ISO timestamps. The
 * other columns are derived again when the item is enriched. Each cell first loses the `'` the export put before
 * a value a spreadsheet would run as a formula (docs/import-export.md#export), so titles, folder names and
 * tags come back exactly. @see docs/import-export.md#formats
 */
export function* readlaterCsvEntries(text: string): Generator<RawItem> {
  const table = openCsv(text)
  const [url, title, folder, tags, isRead, createdAt, lastSavedAt] = [
    'url',
    'title',
    'folder',
    'tags',
    'is_read',
    'created_at',
    'last_saved_at',
  ].map((column) => columnIndex(table, column)) as [number, number, number, number, number, number, number]
  for (const { line, cells: written } of table.rows) {
    const cells = written.map(restoreFormula)
    const read = cells[isRead]?.trim().toLowerCase() ?? ''
    if (read !== 'true' && read !== 'false' && read !== '') {
      yield badReadState(line, `"${read}"`, 'is_read')
      continue
    }
    const folderName = cells[folder]?.trim() ?? ''
    yield {
      line,
      url: cells[url],
      title: cells[title],
      savedAt: { value: cells[createdAt], field: 'created_at' },
      lastSavedAt: { value: cells[lastSavedAt], field: 'last_saved_at' },
      isRead: read === 'true',
      // One name, even if it contains " / ": our folders are flat.
      folder: folderName === '' ? null : [folderName],
      tags: splitTags(cells[tags], '|'),
    }
  }
}

function badReadState(line: number, value: string, field: string): RefusedEntry {
  return refused(line, `${field} ${value.slice(0, 100)} is neither true nor false`)
}
