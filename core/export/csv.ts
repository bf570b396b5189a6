import { neutralizeFormula } from './csv-formulas.ts'
import type { ExportContext, ExportItem } from './export-item.ts'

/** RFC 4180 ends every record, the last one included, with CRLF. */
const CRLF = '\r\n'
/** Tags are joined with `|`: a tag value never holds one, and `,` would force every multi-tag cell into quotes. */
const TAG_SEPARATOR = '|'
const NEEDS_QUOTES = /[",\r\n]/

/**
 * One CSV field: first made safe for spreadsheets ({@link neutralizeFormula}: a value that starts with `=`,
 * `+`, `-`, `@`, tab, CR or LF, after any `'`s, gets a leading `'`), then written as RFC 4180 §2 asks: quoted
 * when it holds a comma, a double quote, CR or LF, with each double quote doubled; otherwise as is. Null is
 * the empty field.
 * @see https://www.rfc-editor.org/rfc/rfc4180#section-2
 */
export function csvField(value: string | null): string {
  if (value === null) return ''
  const safe = neutralizeFormula(value)
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

/**
 * The CSV export's columns in order, each with its value of an item (docs/import-export.md#export): one
 * table, so a column and its value cannot drift apart.
 */
const CSV_FIELDS: readonly (readonly [column: string, value: (item: ExportItem) => string | null])[] = [
  ['url', (item) => item.originalUrl],
  ['title', (item) => item.title],
  ['folder', (item) => item.folder?.name ?? null],
  ['tags', (item) => item.tags.join(TAG_SEPARATOR)],
  ['is_read', (item) => (item.isRead ? 'true' : 'false')],
  ['created_at', (item) => item.createdAt],
  ['last_saved_at', (item) => item.lastSavedAt],
  ['normalized_url', (item) => item.normalizedUrl],
  ['type', (item) => item.type],
  ['description', (item) => item.description],
  ['site_name', (item) => item.siteName],
  ['source_name', (item) => item.sourceName],
  // The rest of the item, after the columns an import reads, so every field of the API's item is here: an
  // import derives them again.
  ['id', (item) => item.id],
  ['host', (item) => item.host],
  ['preview_summary', (item) => item.previewSummary],
  ['image_url', (item) => item.imageUrl],
  ['canonical_url', (item) => item.canonicalUrl],
  ['favicon_url', (item) => item.faviconUrl],
  ['favicon_light_url', (item) => item.faviconLightUrl],
  ['favicon_dark_url', (item) => item.faviconDarkUrl],
  ['enrichment_status', (item) => item.enrichmentStatus],
  ['capture_channel', (item) => item.captureChannel],
  ['updated_at', (item) => item.updatedAt],
]

/** The CSV export's columns, in order. */
export const CSV_COLUMNS: readonly string[] = CSV_FIELDS.map(([column]) => column)

/** One item as one CSV record, CRLF included, its fields in {@link CSV_COLUMNS} order. */
export function csvRecord(item: ExportItem): string {
  return CSV_FIELDS.map(([, value]) => csvField(value(item))).join(',') + CRLF
}

/**
 * The CSV export (docs/import-export.md#export), streamed: the header record, then one chunk per item, each a
 * whole record; there is no tail (an empty library is the header alone). UTF-8 without a byte-order mark.
 *
 * - **No BOM.** The file is for tools and for importing back, which read UTF-8 as is; a BOM would become part
 *   of the first column's name (`\uFEFFurl`) for any reader that does not strip it. The price: Excel opens a
 *   BOM-less CSV in the system's legacy code page, so non-ASCII text looks garbled there unless it is opened
 *   through Data › From Text/CSV (which asks for the encoding).
 * - **No cell runs as a formula.** Titles, descriptions and site names come from the pages themselves, so a
 *   page could plant `=HYPERLINK(…)` for the spreadsheet of whoever opens the file: every cell that a
 *   spreadsheet would read as a formula gets a leading `'` (core/export/csv-formulas.ts). Importing the file
 *   back removes exactly that `'` again, so the round trip keeps every value; other tools see the `'`.
 *
 * Each item is read only when the chunk before it has been taken, so memory holds one item, not the library.
 */
export async function* csvExportChunks(
  items: AsyncIterable<ExportItem>,
  _context: ExportContext,
): AsyncGenerator<string, void, undefined> {
  yield CSV_COLUMNS.join(',') + CRLF
  for await (const item of items) yield csvRecord(item)
}
