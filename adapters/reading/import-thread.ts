// A worker thread that reads import files (detects, decompresses, parses, counts and checks their
// entries), so that a hostile file costs this thread, which the serving thread can end, and never the
// serving thread itself (docs/import-export.md#reading-budgets). Web APIs only: runs on Bun and Deno.
import { ImportFormatError } from '../../core/errors.ts'
import { type ImportFile, readImportFile } from '../../core/import/parse-import.ts'
import {
  IMPORT_BATCH_MAX_HIGHLIGHTS,
  IMPORT_BATCH_MAX_PAGE_CHARACTERS,
  type ParsedEntry,
} from '../../core/import/types.ts'
import { collectGarbage, ENTRIES_PER_COLLECTION } from './memory.ts'
import type {
  CountedFile,
  EntryBatch,
  ImportFileOptions,
  ImportThreadAnswer,
  ImportThreadRequest,
} from './import-thread-messages.ts'

declare const self: {
  onmessage: ((event: MessageEvent) => void) | null
  postMessage(message: unknown, transfer?: Transferable[]): void
}

function open(bytes: Uint8Array, options: ImportFileOptions): ImportFile {
  return readImportFile(bytes, {
    format: options.format,
    contentType: options.contentType,
    now: new Date(options.nowMs),
  })
}

let entries: Iterator<ParsedEntry> | null = null
let read = 0

function answer(request: ImportThreadRequest): unknown {
  switch (request.kind) {
    case 'count': {
      const file = open(request.bytes, request.options)
      let total = 0
      for (const _ of file.items()) if (++total % ENTRIES_PER_COLLECTION === 0) collectGarbage()
      return { format: file.format, total, bytes: request.bytes } satisfies CountedFile
    }
    case 'open':
      entries = open(request.bytes, request.options).entries(request.skip)
      return null
    case 'next': {
      if (entries === null) throw new Error('no file is open')
      const batch: ParsedEntry[] = []
      let done = false
      // Entries with highlights or a page weigh more: a batch also ends at IMPORT_BATCH_MAX_* of them.
      let highlights = 0
      let pages = 0
      while (batch.length < request.max) {
        const next = entries.next()
        if (next.done) {
          done = true
          break
        }
        batch.push(next.value)
        if (++read % ENTRIES_PER_COLLECTION === 0) collectGarbage()
        if (next.value.ok) {
          highlights += next.value.entry.highlights.length
          pages += next.value.entry.page?.length ?? 0
          if (highlights >= IMPORT_BATCH_MAX_HIGHLIGHTS || pages >= IMPORT_BATCH_MAX_PAGE_CHARACTERS) break
        }
      }
      return { entries: batch, done } satisfies EntryBatch
    }
  }
}

self.onmessage = (event: MessageEvent) => {
  const request = event.data as ImportThreadRequest
  let reply: ImportThreadAnswer
  try {
    reply = { id: request.id, ok: true, value: answer(request) }
  } catch (error) {
    reply =
      error instanceof ImportFormatError
        ? { id: request.id, ok: false, formatError: error.message }
        : { id: request.id, ok: false, error: error instanceof Error ? error.name : 'unknown' }
  }
  // The counted file goes back to the serving thread without a copy: it is what the upload stores.
  const handedBack = reply.ok && request.kind === 'count' ? [(reply.value as CountedFile).bytes.buffer] : []
  self.postMessage(reply, handedBack as Transferable[])
}

// Modules loaded: the file may be sent (and the budget's clock started) now.
self.postMessage({ ready: true })
