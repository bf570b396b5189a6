import { ValidationError } from '../../core/errors.ts'
import {
  EXPORT_FORMATS,
  exportChunks,
  exportFile,
  type ExportFormat,
  type ExportItem,
  FORMATS_WITH_HIGHLIGHTS,
  type LibraryFormat,
} from '../../core/export/export.ts'
import { exportHighlight } from '../../core/export/export-item.ts'
import { toHighlightDto } from '../../core/highlights/highlight.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal } from '../../core/types.ts'
import { listFolders } from '../storage/folders.ts'
import { highlightCounts, highlightsOfItems } from '../storage/highlights.ts'
import { listSavedItems } from '../storage/saved-items.ts'
import type { AppDeps } from './deps.ts'
import { downloadResponse, type Download } from './download.ts'
import { collectionEpub, epubFolderOf, epubStateOf, type EpubSelection } from './epub.ts'
import { toSavedItemDto } from '../../core/items/saved-item-dto.ts'

/** Items read from the database per page while exporting: memory stays flat whatever the library's size. */
export const EXPORT_PAGE = 500
/**
 * Highlights read at once while exporting (a page's items are read in groups of about this many; an item
 * has at most 1,000): memory holds one group, however many highlights a page of items has.
 */
export const EXPORT_HIGHLIGHTS_READ = 1_000

export function exportFormatOf(value: string | null | undefined): ExportFormat {
  if (value === undefined || value === null || value === '') return 'json'
  if ((EXPORT_FORMATS as readonly string[]).includes(value)) return value as ExportFormat
  throw new ValidationError(`format: "${value.slice(0, 40)}" is not one of ${EXPORT_FORMATS.join(', ')}`)
}

/** What an export asks for: the library in one format, or a book of a folder's unread or saved items. */
export type ExportRequest = { format: LibraryFormat } | { format: 'epub'; selection: EpubSelection }

/**
 * An export's parameters as the API, the web page and the CLI take them (docs/import-export.md#export):
 * `format` (default `json`), and for `epub` only `folder` (an id or `none`) and `state` (`unread`, the
 * default, or `all`); an empty value is an absent one, as an emptied form field sends it. ValidationError for an unknown value, and for `folder` or `state` with another
 * format (which exports the whole library: a filter it ignored would look like data loss).
 */
export function exportRequestOf(params: {
  format?: string | null
  folder?: string | null
  state?: string | null
}): ExportRequest {
  const format = exportFormatOf(params.format)
  if (format === 'epub')
    return { format, selection: { folder: epubFolderOf(params.folder), state: epubStateOf(params.state) } }
  for (const name of ['folder', 'state'] as const)
    if (params[name] !== undefined && params[name] !== null && params[name] !== '')
      throw new ValidationError(`${name}: applies to format=epub only; the ${format} export is the whole library`)
  return { format }
}

/**
 * The person's whole library as a file (docs/import-export.md#export): its name, type and a stream of its
 * text (or, for `markdown`, its zip's bytes), read from the database a page at a time as the stream is
 * consumed (keyset paging, so items saved meanwhile never make one appear twice). Newest saved first; the
 * bookmark file folder by folder (each folder one block, in name order), then the items in no folder. The
 * JSON and Markdown exports carry each item's highlights, in text order.
 */
export function exportLibrary(deps: AppDeps, principal: Principal, format: LibraryFormat): Download {
  const context = { exportedAt: toTimestamp(deps.clock.now()) }
  const userId = principal.userId
  const items =
    format === 'netscape'
      ? byFolder(deps, userId)
      : FORMATS_WITH_HIGHLIGHTS.includes(format)
        ? withHighlights(deps, userId, pages(deps, userId, null))
        : flat(pages(deps, userId, null))
  return { ...exportFile(format, context), chunks: exportChunks(format, items, context) }
}

/** An export as a file: the library, or a book (adapters/app/epub.ts), whose selection is checked first. */
export function exportOf(deps: AppDeps, principal: Principal, request: ExportRequest): Promise<Download> {
  if (request.format === 'epub') return collectionEpub(deps, principal, request.selection)
  return Promise.resolve(exportLibrary(deps, principal, request.format))
}

async function* pages(deps: AppDeps, userId: string, folder: string | null): AsyncGenerator<ExportItem[]> {
  let after = null
  for (;;) {
    const { items, nextCursorValues } = await listSavedItems(deps.db, userId, {
      sort: 'newest',
      folder,
      limit: EXPORT_PAGE,
      after,
    })
    yield items.map(toSavedItemDto)
    if (!nextCursorValues) return
    after = nextCursorValues
  }
}

async function* flat(batches: AsyncIterable<ExportItem[]>): AsyncGenerator<ExportItem> {
  for await (const batch of batches) yield* batch
}

/**
 * Each item with its `highlights` (text order, `[]` for none): per page, which items have any is one query,
 * then their highlights are read in groups of items holding about EXPORT_HIGHLIGHTS_READ of them, each
 * group only when the items before it have been taken.
 */
async function* withHighlights(
  deps: AppDeps,
  userId: string,
  batches: AsyncIterable<ExportItem[]>,
): AsyncGenerator<ExportItem> {
  for await (const batch of batches) {
    const counts = await highlightCounts(
      deps.db,
      userId,
      batch.map((item) => item.id),
    )
    let group: ExportItem[] = []
    let inGroup = 0
    const flush = async function* () {
      const ids = group.filter((item) => counts.has(item.id)).map((item) => item.id)
      const found = await highlightsOfItems(deps.db, userId, ids)
      for (const item of group) {
        yield { ...item, highlights: (found.get(item.id) ?? []).map((h) => exportHighlight(toHighlightDto(h))) }
      }
      group = []
      inGroup = 0
    }
    for (const item of batch) {
      const count = counts.get(item.id) ?? 0
      if (inGroup > 0 && inGroup + count > EXPORT_HIGHLIGHTS_READ) yield* flush()
      group.push(item)
      inGroup += count
    }
    if (group.length > 0) yield* flush()
  }
}

async function* byFolder(deps: AppDeps, userId: string): AsyncGenerator<ExportItem> {
  for (const folder of await listFolders(deps.db, userId)) yield* flat(pages(deps, userId, folder.id))
  yield* flat(pages(deps, userId, 'none'))
}

/** The export as a download (the API's and the web page's): an attachment, streamed, never cached. */
export async function exportDownload(deps: AppDeps, principal: Principal, request: ExportRequest): Promise<Response> {
  return downloadResponse(await exportOf(deps, principal, request))
}
