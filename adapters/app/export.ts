import { ValidationError } from '../../core/errors.ts'
import {
  EXPORT_FORMATS,
  exportChunks,
  exportFile,
  type ExportFormat,
  type ExportItem,
  FORMATS_WITH_HIGHLIGHTS,
} from '../../core/export/export.ts'
import { exportHighlight } from '../../core/export/export-item.ts'
import { toHighlightDto } from '../../core/highlights/highlight.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal } from '../../core/types.ts'
import { listFolders } from '../storage/folders.ts'
import { highlightCounts, highlightsOfItems } from '../storage/highlights.ts'
import { listSavedItems } from '../storage/saved-items.ts'
import type { AppDeps } from './deps.ts'
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

/**
 * The person's whole library as a file (docs/import-export.md#export): its name, type and a stream of its
 * text (or, for `markdown`, its zip's bytes), read from the database a page at a time as the stream is
 * consumed (keyset paging, so items saved meanwhile never make one appear twice). Newest saved first; the
 * bookmark file folder by folder (each folder one block, in name order), then the items in no folder. The
 * JSON and Markdown exports carry each item's highlights, in text order.
 */
export function exportLibrary(
  deps: AppDeps,
  principal: Principal,
  format: ExportFormat,
): { filename: string; contentType: string; chunks: AsyncGenerator<string | Uint8Array, void, undefined> } {
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

/** The library as a download (the API's and the web page's): an attachment, streamed, never cached. */
export function exportDownload(deps: AppDeps, principal: Principal, format: ExportFormat): Response {
  const { filename, contentType, chunks } = exportLibrary(deps, principal, format)
  return new Response(byteStream(chunks), {
    headers: {
      'content-type': contentType,
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'no-store',
    },
  })
}

/** The chunks as a byte stream for a response body; cancelling it (the client went away) stops the reads. */
function byteStream(chunks: AsyncGenerator<string | Uint8Array, void, undefined>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next()
      if (next.done) controller.close()
      else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value)
    },
    async cancel() {
      await chunks.return(undefined)
    },
  })
}
