import { ValidationError } from '../../core/errors.ts'
import {
  EXPORT_FORMATS,
  exportChunks,
  exportFile,
  type ExportFormat,
  type ExportItem,
} from '../../core/export/export.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal } from '../../core/types.ts'
import { listFolders } from '../storage/folders.ts'
import { listSavedItems } from '../storage/saved-items.ts'
import type { AppDeps } from './deps.ts'
import { toSavedItemDto } from '../../core/items/saved-item-dto.ts'

/** Items read from the database per page while exporting: memory stays flat whatever the library's size. */
export const EXPORT_PAGE = 500

export function exportFormatOf(value: string | null | undefined): ExportFormat {
  if (value === undefined || value === null || value === '') return 'json'
  if ((EXPORT_FORMATS as readonly string[]).includes(value)) return value as ExportFormat
  throw new ValidationError(`format: "${value.slice(0, 40)}" is not one of ${EXPORT_FORMATS.join(', ')}`)
}

/**
 * The person's whole library as a file (docs/import-export.md#export): its name, type and a stream of its
 * text, read from the database a page at a time as the stream is consumed (keyset paging, so items saved
 * meanwhile never make one appear twice). Newest saved first; the bookmark file folder by folder (each
 * folder one block, in name order), then the items in no folder.
 */
export function exportLibrary(
  deps: AppDeps,
  principal: Principal,
  format: ExportFormat,
): { filename: string; contentType: string; chunks: AsyncGenerator<string, void, undefined> } {
  const context = { exportedAt: toTimestamp(deps.clock.now()) }
  const items = format === 'netscape' ? byFolder(deps, principal.userId) : pages(deps, principal.userId, null)
  return { ...exportFile(format, context), chunks: exportChunks(format, items, context) }
}

async function* pages(deps: AppDeps, userId: string, folder: string | null): AsyncGenerator<ExportItem> {
  let after = null
  for (;;) {
    const { items, nextCursorValues } = await listSavedItems(deps.db, userId, {
      sort: 'newest',
      folder,
      limit: EXPORT_PAGE,
      after,
    })
    for (const item of items) yield toSavedItemDto(item)
    if (!nextCursorValues) return
    after = nextCursorValues
  }
}

async function* byFolder(deps: AppDeps, userId: string): AsyncGenerator<ExportItem> {
  for (const folder of await listFolders(deps.db, userId)) yield* pages(deps, userId, folder.id)
  yield* pages(deps, userId, 'none')
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
function byteStream(chunks: AsyncGenerator<string, void, undefined>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next()
      if (next.done) controller.close()
      else controller.enqueue(encoder.encode(next.value))
    },
    async cancel() {
      await chunks.return(undefined)
    },
  })
}
