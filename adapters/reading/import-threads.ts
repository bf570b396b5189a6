import { ImportFormatError } from '../../core/errors.ts'
import type {
  CountedFile,
  EntryBatch,
  ImportFileOptions,
  ImportThreadAnswer,
  ImportThreadRequest,
} from './import-thread-messages.ts'
import { startModuleThread, type ThreadHandle } from './module-thread.ts'

export type { CountedFile, EntryBatch, ImportFileOptions } from './import-thread-messages.ts'

/**
 * What reading one import file may cost (docs/import-export.md#reading-budgets): `timeMs` of its thread's
 * work (the upload's count, or all of a job's batches under one claim; time spent waiting is not counted),
 * and `memoryBytes` of resident memory that the import threads together may add to the process.
 */
export interface ImportReadBudget {
  timeMs: number
  memoryBytes: number
}

export const DEFAULT_IMPORT_READ_BUDGET: ImportReadBudget = { timeMs: 30_000, memoryBytes: 512 * 1024 * 1024 }

/** Import threads alive at once in a process; more readings wait their turn. */
export const MAX_IMPORT_THREADS = 2

/** How often the process's memory is looked at while an import thread works. */
const MEMORY_SAMPLE_MS = 20

/** A reading that passed its budget: its thread was ended. The message says which budget, for the person. */
export class ImportReadBudgetError extends Error {
  override readonly name = 'ImportReadBudgetError'
  constructor(
    readonly budget: 'time' | 'memory',
    limit: number,
  ) {
    super(
      budget === 'time'
        ? `reading the file took longer than ${limit % 1000 === 0 ? `${limit / 1000} s` : `${limit} ms`}, the limit of an import`
        : `reading the file needed more than ${Math.round(limit / (1024 * 1024))} MiB of memory, the limit of an import`,
    )
  }
}

/** The thread failed for a reason of its own (the error's name only), or was closed. */
export class ImportReadFailedError extends Error {
  override readonly name = 'ImportReadFailedError'
}

type Payload<R> = R extends unknown ? Omit<R, 'id'> : never

/** One file's reading on a thread of its own. */
export interface ImportReading {
  /** Sends the request and waits for its answer, under what is left of the budget. */
  request<T>(request: Payload<ImportThreadRequest>, transfer?: Transferable[]): Promise<T>
  /** Ends the thread (a request in flight is refused) and gives its slot to the next reading. */
  close(): void
}

// ——— Process-wide: the slots and the memory watch ———

const waiting: (() => void)[] = []
let alive = 0
/** Readings working on a request now: the memory watch ends these when the budget is passed. */
const working = new Set<{ overBudget(limit: number): void; budget: ImportReadBudget }>()
/** The process's resident memory when the first import thread of the current busy spell started. */
let baselineRss = 0
let watch: ReturnType<typeof setInterval> | undefined

function residentBytes(): number {
  const scope = globalThis as {
    process?: { memoryUsage?: { rss?: () => number } }
    Deno?: { memoryUsage(): { rss: number } }
  }
  return scope.process?.memoryUsage?.rss?.() ?? scope.Deno?.memoryUsage().rss ?? 0
}

async function takeSlot(): Promise<void> {
  if (alive >= MAX_IMPORT_THREADS) await new Promise<void>((resolve) => waiting.push(resolve))
  if (alive++ === 0) baselineRss = residentBytes()
}

function giveSlot(): void {
  alive--
  waiting.shift()?.()
}

/**
 * While any import thread works, the process's RSS is sampled: past a reading's memory budget above the
 * RSS the process had when the first of the live threads started, every thread working then is ended
 * (a thread waiting between a job's batches cannot be the one growing). RSS is the only measure every
 * runtime gives of a thread's memory (Bun ignores Node's resourceLimits).
 */
function watchMemory(): void {
  if (watch !== undefined) return
  watch = setInterval(() => {
    if (working.size === 0) {
      clearInterval(watch)
      watch = undefined
      return
    }
    const grown = residentBytes() - baselineRss
    for (const reading of [...working]) {
      if (grown > reading.budget.memoryBytes) reading.overBudget(reading.budget.memoryBytes)
    }
  }, MEMORY_SAMPLE_MS)
  ;(watch as { unref?: () => void }).unref?.()
}

/**
 * Starts reading one import file on a thread of its own (docs/import-export.md#reading-budgets), once one
 * of the MAX_IMPORT_THREADS slots is free. Each request runs under what is left of `budget.timeMs`; a
 * request past it, or past the memory budget, ends the thread and fails with ImportReadBudgetError; a file
 * that cannot be read fails with ImportFormatError, as on the serving thread.
 */
export async function startImportReading(
  budget: ImportReadBudget = DEFAULT_IMPORT_READ_BUDGET,
): Promise<ImportReading> {
  await takeSlot()
  let thread: ThreadHandle | null = null
  let closed = false
  let usedMs = 0
  let nextId = 1
  let current: {
    id: number
    startedAt: number
    timer: ReturnType<typeof setTimeout>
    resolve(value: unknown): void
    reject(error: Error): void
  } | null = null
  let ready: Promise<void>

  const self = {
    budget,
    overBudget: (limit: number) => fail(new ImportReadBudgetError('memory', limit)),
  }

  const settle = () => {
    if (current === null) return null
    clearTimeout(current.timer)
    usedMs += performance.now() - current.startedAt
    working.delete(self)
    const settled = current
    current = null
    return settled
  }

  const close = () => {
    if (closed) return
    closed = true
    thread?.terminate()
    thread = null
    settle()?.reject(new ImportReadFailedError('the import thread was closed'))
    giveSlot()
  }

  /** The request in flight fails; the thread goes with it (its state is unknown now). */
  const fail = (error: Error) => {
    const settled = settle()
    close()
    settled?.reject(error)
  }

  thread = startModuleThread('import-thread')
  ready = new Promise<void>((resolve) => {
    thread!.onmessage = (event: MessageEvent) => {
      if ((event.data as { ready?: true }).ready) return resolve()
      const answer = event.data as ImportThreadAnswer
      if (current === null || answer.id !== current.id) return
      const settled = settle()!
      if (answer.ok) settled.resolve(answer.value)
      else if ('formatError' in answer) settled.reject(new ImportFormatError(answer.formatError))
      else settled.reject(new ImportReadFailedError(`the import thread failed (${answer.error})`))
    }
  })
  thread.onerror = (event: Event) => {
    event.preventDefault?.()
    fail(new ImportReadFailedError('the import thread crashed'))
  }

  return {
    async request<T>(request: Payload<ImportThreadRequest>, transfer: Transferable[] = []): Promise<T> {
      await ready
      if (closed || thread === null) throw new ImportReadFailedError('the import thread was closed')
      if (current !== null) throw new ImportReadFailedError('one request at a time')
      const left = budget.timeMs - usedMs
      return new Promise<T>((resolve, reject) => {
        const id = nextId++
        current = {
          id,
          startedAt: performance.now(),
          timer: setTimeout(() => fail(new ImportReadBudgetError('time', budget.timeMs)), Math.max(0, left)),
          resolve: resolve as (value: unknown) => void,
          reject,
        }
        working.add(self)
        watchMemory()
        thread!.postMessage({ ...request, id }, transfer)
      })
    },
    close,
  }
}

/**
 * Reads a whole import file on a thread and counts its entries (the upload's check, docs/import-export.md#jobs):
 * its format and total, or ImportFormatError / ImportReadBudgetError. The bytes are handed to the thread
 * (transferred: `bytes` is empty afterwards; a view on a larger buffer is copied first) and come back in
 * the answer, so a 50 MiB upload is never held twice.
 */
export async function countImportFile(
  bytes: Uint8Array,
  options: ImportFileOptions,
  budget: ImportReadBudget = DEFAULT_IMPORT_READ_BUDGET,
): Promise<CountedFile> {
  const reading = await startImportReading(budget)
  try {
    const owned = ownBuffer(bytes)
    return await reading.request<CountedFile>({ kind: 'count', bytes: owned, options }, [owned.buffer as ArrayBuffer])
  } finally {
    reading.close()
  }
}

/** `bytes` when they are the whole of a plain ArrayBuffer (so it can be transferred), else a copy that is. */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  return whole && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice()
}

/** A job's file, read on a thread a batch at a time (docs/import-export.md#jobs). */
export interface ImportEntryReader {
  /** The next up to `max` checked entries; `done` when the file has none left. */
  next(max: number): Promise<EntryBatch>
  close(): void
}

/** Opens a stored import file on a thread for its job, from its `skip`-th entry. `bytes` are handed over, not copied. */
export async function openImportFile(
  bytes: Uint8Array,
  options: ImportFileOptions,
  skip: number,
  budget: ImportReadBudget = DEFAULT_IMPORT_READ_BUDGET,
): Promise<ImportEntryReader> {
  const reading = await startImportReading(budget)
  try {
    const owned = ownBuffer(bytes)
    await reading.request({ kind: 'open', bytes: owned, options, skip }, [owned.buffer as ArrayBuffer])
  } catch (error) {
    reading.close()
    throw error
  }
  return {
    next: (max) => reading.request<EntryBatch>({ kind: 'next', max }),
    close: reading.close,
  }
}
