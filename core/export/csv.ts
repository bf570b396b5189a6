import type { ExportContext, ExportItem } from './export-item.ts'

/** The CSV export's columns, in order (docs/import-export.md#export). */
export const CSV_COLUMNS = [
  'url',
  'title',
  'folder',
  'tags',
  'is_read',
  'created_at',
  'last_saved_at',
  'normalized_url',
  'type',
  'description',
  'site_name',
  'source_name',
] as const

/** RFC 4180 ends every record, the last one included, with CRLF. */
const CRLF = '\r\n'
/** Tags are joined with `|`: a tag value never holds one, and `,` would force every multi-tag cell into quotes. */
const TAG_SEPARATOR = '|'
const NEEDS_QUOTES = /[",\r\n]/

/**
 * One CSV field, as RFC 4180 §2 writes it: quoted when it holds a comma, a double quote, CR or LF, with each
 * double quote doubled; otherwise as is. Null is the empty field.
 * @see https://www.rfc-editor.org/rfc/rfc4180#section-2
 */
export function csvField(value: string | null): string {
  if (value === null) return ''
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

/** One item as one CSV record, CRLF included, its fields in {@link CSV_COLUMNS} order. */
export function csvRecord(item: ExportItem): string {
  const fields = [
    item.originalUrl,
    item.title,
    item.folder?.name ?? null,
    item.tags.join(TAG_SEPARATOR),
    item.isRead ? 'true' : 'false',
    item.createdAt,
    item.lastSavedAt,
    item.normalizedUrl,
    item.type,
    item.description,
    item.siteName,
    item.sourceName,
  ]
  return fields.map(csvField).join(',') + CRLF
}

/**
 * The CSV export (docs/import-export.md#export), streamed: the header record, then one chunk per item, each a
 * whole record; there is no tail (an empty library is the header alone). UTF-8 without a byte-order mark.
 *
 * - **No BOM.** The file is for tools and for importing back, which read UTF-8 as is; a BOM would become part
 *   of the first column's name (`\uFEFFurl`) for any reader that does not strip it. The price: Excel opens a
 *   BOM-less CSV in the system's legacy code page, so non-ASCII text looks garbled there unless it is opened
 *   through Data › From Text/CSV (which asks for the encoding).
 * - **Cells are not altered against formula injection.** OWASP suggests prefixing `'` to a cell starting with
 *   `=`, `+`, `-`, `@`, tab or CR, so a spreadsheet does not run it as a formula. This export does not: it is the
 *   person's own data, meant to be read back, and the prefix would change values for good (a title
 *   "-10% off" would come back as "'-10% off", and an importer cannot tell an added `'` from one that was in
 *   the title). Titles and descriptions can come from the pages themselves, so a page could plant a formula;
 *   spreadsheets warn before following links or running external content, and the file is opened by the
 *   person who exported it. Every value in the file is exactly the stored value.
 *
 * Each item is read only when the chunk before it has been taken, so memory holds one item, not the library.
 * @see https://owasp.org/www-community/attacks/CSV_Injection
 */
export async function* csvExportChunks(
  items: AsyncIterable<ExportItem>,
  _context: ExportContext,
): AsyncGenerator<string, void, undefined> {
  yield CSV_COLUMNS.join(',') + CRLF
  for await (const item of items) yield csvRecord(item)
}
