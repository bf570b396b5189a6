import { appendBounded, appendErrors, IMPORT_MAX_DROPPED_TAGS, rowsOfBatch } from '../../core/import/rows.ts'
import type { ParsedEntry } from '../../core/import/types.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Clock, RandomSource } from '../../core/types.ts'
import {
  DEFAULT_IMPORT_READ_BUDGET,
  type ImportEntryReader,
  type ImportReadBudget,
  openImportFile,
} from '../reading/import-threads.ts'
import {
  claimImport,
  failImport,
  importFile,
  ImportLeaseLostError,
  releaseImport,
  renewImportLease,
  writeImportBatch,
  type ClaimedImport,
  type ImportRecord,
} from '../storage/imports.ts'
import type { Database } from '../storage/open-database.ts'
import type { Log } from '../app/deps.ts'
import { collectGarbage, ENTRIES_PER_COLLECTION } from '../reading/memory.ts'

export interface ImportWorkerOptions {
  /** Entries written per transaction: small enough that a batch holds the serving thread a few ms. */
  batchSize: number
  /** How often an idle worker looks for a queued import. */
  pollMs: number
  /**
   * How long a claim holds an import without a batch written; a dead process's import is taken over after
   * it. While the job waits on its file's thread, the claim is renewed every third of this.
   */
  leaseMs: number
  /** What reading one file may cost under one claim (docs/import-export.md#reading-budgets). */
  readBudget?: ImportReadBudget
}

export const DEFAULT_IMPORT_WORKER_OPTIONS: ImportWorkerOptions = { batchSize: 100, pollMs: 500, leaseMs: 10_000 }

export interface ImportWorker {
  /** Stops after the batch in flight and lets go of its import, which the next process resumes at once. */
  stop(): Promise<void>
  /** Runs every waiting import to its end, or with `onlyId` that one if nobody else holds it (tests, the CLI). */
  drain(onlyId?: string, onBatch?: (record: ImportRecord) => void): Promise<void>
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** Tries of one batch before the import is failed, and the wait between them. */
const BATCH_ATTEMPTS = 3
const BATCH_RETRY_MS = 200
const errorName = (error: unknown): string => (error instanceof Error ? error.name : 'unknown error')

/**
 * Runs imports in this process (docs/import-export.md#jobs): in the `background`, claims a queued import
 * (or one whose process died), reads its file as it goes (skipping the entries already written), and writes its entries in batches, each batch with the import's progress in
 * one transaction, yielding to the event loop between batches so requests go on being served.
 */
export function startImportWorker(
  deps: { db: Database; clock: Clock; random: RandomSource; log: Log },
  options: ImportWorkerOptions = DEFAULT_IMPORT_WORKER_OPTIONS,
  background = true,
): ImportWorker {
  let running = true
  let busy: Promise<void> = Promise.resolve()

  async function runOnce(onlyId: string | null = null, onBatch?: (record: ImportRecord) => void): Promise<boolean> {
    const nowMs = deps.clock.now().getTime()
    const claim = await claimImport(deps.db, nowMs, nowMs + options.leaseMs, onlyId)
    if (!claim) return false
    await runClaim(claim, onBatch)
    return true
  }

  /** Ends the import, its reason listed: a file that cannot be read (or past its budget) would fail again. */
  const cannotRead = (claim: ClaimedImport, error: unknown) =>
    failImport(deps.db, claim, error instanceof Error ? error.message : 'the file cannot be read', now())

  async function runClaim(claim: ClaimedImport, onBatch?: (record: ImportRecord) => void): Promise<void> {
    const record = claim.record
    // Before the file is read again: what the upload left (its body, text and parse) is freed first.
    collectGarbage()
    let reader: ImportEntryReader
    try {
      // Read on a thread of its own, with the import's own time as "now", so a resumed import clamps dates
      // as the first run did; the entries already written are skipped unchecked (docs/import-export.md#jobs).
      const file = await importFile(deps.db, record.id)
      reader = await whileRenewing(
        claim,
        openImportFile(
          file,
          { format: record.format, contentType: null, nowMs: new Date(record.createdAt).getTime() },
          record.processed,
          options.readBudget ?? DEFAULT_IMPORT_READ_BUDGET,
        ),
      )
    } catch (error) {
      deps.log('warn', { msg: 'import failed', import: record.id, error: errorName(error) })
      await cannotRead(claim, error)
      return
    }
    try {
      await runBatches(claim, reader, onBatch)
    } finally {
      reader.close()
    }
  }

  /**
   * Waits for `work` (the file's thread), renewing the claim every third of its lease meanwhile, so a slow
   * read (bounded by the reading budget) never lets another process take the import over.
   */
  async function whileRenewing<T>(claim: ClaimedImport, work: Promise<T>): Promise<T> {
    let renewing: Promise<unknown> = Promise.resolve()
    const timer = setInterval(() => {
      renewing = renewing.then(() =>
        renewImportLease(deps.db, claim, deps.clock.now().getTime() + options.leaseMs).catch(() => false),
      )
    }, options.leaseMs / 3)
    try {
      return await work
    } finally {
      clearInterval(timer)
      await renewing
    }
  }

  async function runBatches(
    claim: ClaimedImport,
    reader: ImportEntryReader,
    onBatch?: (record: ImportRecord) => void,
  ): Promise<void> {
    const record = claim.record
    const claimedAt = record.processed
    while (running) {
      const from = record.processed
      let slice: ParsedEntry[]
      let exhausted: boolean
      try {
        const batch = await whileRenewing(claim, reader.next(options.batchSize))
        slice = batch.entries
        exhausted = batch.done
      } catch (error) {
        // The upload read this file whole, so a file past its reading budget here (a slower machine, a
        // busier one) or a crashed thread end the import, saying why: a restart would only do it again.
        deps.log('warn', { msg: 'import failed', import: record.id, error: errorName(error) })
        await cannotRead(claim, error)
        return
      }
      const batch = rowsOfBatch(slice, {
        importedAt: record.createdAt,
        nowMs: deps.clock.now().getTime(),
        random: deps.random,
      })
      const nextLeaseUntilMs = deps.clock.now().getTime() + options.leaseMs
      const write = () =>
        writeImportBatch(
          deps.db,
          claim,
          { rows: batch.rows, folders: batch.folders, now: now(), nextLeaseUntilMs },
          (outcome) => ({
            processed: from + slice.length,
            created: record.created + outcome.created,
            updated: record.updated + outcome.updated,
            skipped: record.skipped + batch.errors.length,
            folderNames: appendBounded(record.folderNames, outcome.folderNames, 1000, (name) => name.toLowerCase()),
            droppedTags: appendBounded(record.droppedTags, batch.droppedTags, IMPORT_MAX_DROPPED_TAGS, (tag) =>
              tag.toLowerCase(),
            ),
            errors: appendErrors(record.errors, [...batch.errors, ...batch.notes, ...outcome.notes]),
            done: exhausted || from + slice.length >= record.total,
          }),
        )
      let result: Awaited<ReturnType<typeof write>> | null = null
      for (let attempt = 1; result === null; attempt++) {
        try {
          result = await write()
        } catch (error) {
          // Another process holds the import now: it goes on from the last committed batch.
          if (error instanceof ImportLeaseLostError) return
          // A batch the database refuses would be refused on every retry: after a few tries the import
          // ends as failed, saying so, rather than loop (docs/import-export.md#jobs).
          if (attempt >= BATCH_ATTEMPTS) {
            deps.log('warn', { msg: 'import failed', import: record.id, error: errorName(error) })
            await failImport(
              deps.db,
              claim,
              `entries from ${from + 1} on could not be saved (${errorName(error)})`,
              now(),
            )
            return
          }
          await pause(BATCH_RETRY_MS)
        }
      }
      const { done: _done, ...progress } = result.progress
      Object.assign(record, progress)
      // After the first batch (the file's bytes, text and first window read, the upload's copies gone),
      // then every ENTRIES_PER_COLLECTION entries.
      if (
        from === claimedAt ||
        Math.floor(from / ENTRIES_PER_COLLECTION) !== Math.floor(record.processed / ENTRIES_PER_COLLECTION)
      ) {
        collectGarbage()
      }
      claim.leaseUntilMs = nextLeaseUntilMs
      onBatch?.(record)
      if (result.progress.done) {
        record.status = 'done'
        record.finishedAt = now()
        deps.log('info', {
          msg: 'import done',
          import: record.id,
          created: record.created,
          updated: record.updated,
          skipped: record.skipped,
        })
        return
      }
      // A turn of the event loop between batches: requests waiting meanwhile are served first.
      await pause(0)
    }
    await releaseImport(deps.db, claim)
  }

  const now = () => toTimestamp(deps.clock.now())

  async function loop(): Promise<void> {
    while (running) {
      let worked = false
      try {
        worked = await runOnce()
      } catch (error) {
        deps.log('warn', { msg: 'import batch failed', error: error instanceof Error ? error.name : 'unknown' })
      }
      if (!worked) await pause(options.pollMs)
    }
  }

  if (background) busy = loop()
  return {
    async stop() {
      running = false
      await busy
    },
    async drain(onlyId, onBatch) {
      if (onlyId) {
        await runOnce(onlyId, onBatch)
        return
      }
      while (await runOnce(null, onBatch)) {}
    },
  }
}
