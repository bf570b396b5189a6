import { toTimestamp } from '../time.ts'
import { csvExportChunks } from './csv.ts'
import type { ExportContext, ExportItem } from './export-item.ts'
import { jsonExportChunks } from './json.ts'
import { markdownExportChunks } from './markdown.ts'
import { netscapeExportChunks } from './netscape.ts'

export type { ExportContext, ExportHighlight, ExportItem } from './export-item.ts'

/**
 * The formats a library is exported in whole (docs/import-export.md#export): `markdown` is the highlights
 * alone, a zip of notes (docs/import-export.md#markdown-export).
 */
export const LIBRARY_FORMATS = ['json', 'netscape', 'csv', 'markdown'] as const
export type LibraryFormat = (typeof LIBRARY_FORMATS)[number]

/**
 * Every format of `GET /v1/export`: the library formats, and `epub`, a book of the articles of a folder's
 * (or every folder's) unread or saved items, at most 500 (docs/import-export.md#epub; core/export/epub).
 */
export const EXPORT_FORMATS = [...LIBRARY_FORMATS, 'epub'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/** The formats whose items carry their highlights (the caller reads them only for these). */
export const FORMATS_WITH_HIGHLIGHTS: readonly LibraryFormat[] = ['json', 'markdown']

const FILES: Record<LibraryFormat, { name: string; extension: string; contentType: string }> = {
  json: { name: 'readlater-export', extension: 'json', contentType: 'application/json; charset=utf-8' },
  netscape: { name: 'readlater-export', extension: 'html', contentType: 'text/html; charset=utf-8' },
  csv: { name: 'readlater-export', extension: 'csv', contentType: 'text/csv; charset=utf-8' },
  markdown: { name: 'readlater-highlights', extension: 'zip', contentType: 'application/zip' },
}

/**
 * The whole library in one format, as chunks: text (a head, one chunk per item, a tail; the CSV has none),
 * or for `markdown` the bytes of a zip, as they are made.
 * `items` is read one item at a time, and only as fast as the chunks are taken, so the caller can feed it
 * page by page from the database and stream the chunks out without ever holding the library; stopping
 * early (`return()`, a closed response) stops reading `items` too. The caller orders the items: newest
 * saved first, and for the Netscape file by folder first, so that each folder is one block (any order is
 * written correctly; see {@link netscapeExportChunks}).
 */
export function exportChunks(
  format: LibraryFormat,
  items: AsyncIterable<ExportItem>,
  context: ExportContext,
): AsyncGenerator<string | Uint8Array, void, undefined> {
  switch (format) {
    case 'json':
      return jsonExportChunks(items, context)
    case 'netscape':
      return netscapeExportChunks(items, context)
    case 'csv':
      return csvExportChunks(items, context)
    case 'markdown':
      return markdownExportChunks(items, context)
  }
}

/**
 * The download's file name and content type: `readlater-export-2026-11-25.json` (`.html`, `.csv`),
 * `readlater-highlights-2026-11-25.zip`, dated with the export's UTC day. Throws a RangeError when
 * `exportedAt` is not a date.
 */
export function exportFile(format: LibraryFormat, context: ExportContext): { filename: string; contentType: string } {
  const day = toTimestamp(new Date(context.exportedAt)).slice(0, 10)
  const { name, extension, contentType } = FILES[format]
  return { filename: `${name}-${day}.${extension}`, contentType }
}
