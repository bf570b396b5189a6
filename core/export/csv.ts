import { neutralizeFormula } from './csv-formulas.ts'
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
  // The rest of the item, after the columns an import reads, so every field of the API's item is here
  // (docs/import-export.md#export): an import derives them again.
  'id',
  'host',
  'preview_summary',
  'image_url',
  'canonical_url',
  'favicon_url',
  'favicon_light_url',
  'favicon_dark_url',
  'enrichment_status',
  'capture_channel',
  'updated_at',
] as const

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
    item.id,
    item.host,
    item.previewSummary,
    item.imageUrl,
    item.canonicalUrl,
    item.faviconUrl,
    item.faviconLightUrl,
    item.faviconDarkUrl,
    item.enrichmentStatus,
    item.captureChannel,
    item.updatedAt,
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
