import { toTimestamp } from '../time.ts'
import { csvExportChunks } from './csv.ts'
import type { ExportContext, ExportItem } from './export-item.ts'
import { jsonExportChunks } from './json.ts'
import { netscapeExportChunks } from './netscape.ts'

export type { ExportContext, ExportItem } from './export-item.ts'

/** The formats a library is exported in (docs/import-export.md#export). */
export const EXPORT_FORMATS = ['json', 'netscape', 'csv'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

const FILES: Record<ExportFormat, { extension: string; contentType: string }> = {
  json: { extension: 'json', contentType: 'application/json; charset=utf-8' },
  netscape: { extension: 'html', contentType: 'text/html; charset=utf-8' },
  csv: { extension: 'csv', contentType: 'text/csv; charset=utf-8' },
}

/**
 * The whole library in one format, as string chunks: a head, one chunk per item, a tail (the CSV has none).
 * `items` is read one item at a time, and only as fast as the chunks are taken, so the caller can feed it
 * page by page from the database and stream the chunks out without ever holding the library; stopping
 * early (`return()`, a closed response) stops reading `items` too. The caller orders the items: newest
 * saved first, and for the Netscape file by folder first, so that each folder is one block (any order is
 * written correctly; see {@link netscapeExportChunks}).
 */
export function exportChunks(
  format: ExportFormat,
  items: AsyncIterable<ExportItem>,
  context: ExportContext,
): AsyncGenerator<string, void, undefined> {
  switch (format) {
    case 'json':
      return jsonExportChunks(items, context)
    case 'netscape':
      return netscapeExportChunks(items, context)
    case 'csv':
      return csvExportChunks(items, context)
  }
}

/**
 * The download's file name and content type: `readlater-export-2026-11-25.json` (`.html`, `.csv`), dated
 * with the export's UTC day. Throws a RangeError when `exportedAt` is not a date.
 */
export function exportFile(format: ExportFormat, context: ExportContext): { filename: string; contentType: string } {
  const day = toTimestamp(new Date(context.exportedAt)).slice(0, 10)
  const { extension, contentType } = FILES[format]
  return { filename: `readlater-export-${day}.${extension}`, contentType }
}
