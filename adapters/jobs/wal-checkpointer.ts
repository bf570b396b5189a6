import { beforeNextGroup, groupsRun } from '../storage/group-commit.ts'
import type { Database } from '../storage/open-database.ts'

/** How often the worker checkpoints; SQLite's own would fire every 1,000 pages, mid-request. */
export const CHECKPOINT_INTERVAL_MS = 250

/**
 * WAL pages past which the WAL is made to start over. Under steady writes a checkpoint that runs beside
 * them never reaches the end of the WAL, and the WAL would only grow.
 */
export const RESTART_AFTER_PAGES = 8192

/** Pages a catch-up pass may leave behind before the serving thread copies the rest itself. */
const CATCH_UP_PAGES = 64

/**
 * Moves WAL checkpoints off the serving thread (docs/operations.md#wal-checkpoints). SQLite runs a
 * checkpoint inside whichever commit pushes the WAL past 1,000 pages: it copies those pages into the
 * database file and fsyncs, 10 to 40 ms during which this thread answers nothing. On Bun, with an
 * embedded file, a worker thread with its own connection checkpoints every CHECKPOINT_INTERVAL_MS instead
 * and the serving connection's automatic checkpoints are turned off; if the worker fails, they are turned
 * back on. Elsewhere (Deno, Node, @libsql/client, `:memory:`) this does nothing.
 *
 * Past RESTART_AFTER_PAGES, and if this process has written since the last time, the worker catches up
 * until a pass leaves at most CATCH_UP_PAGES behind, then the serving thread copies those last pages
 * itself just before its next group commit (a millisecond or two), so that commit finds the WAL fully
 * copied and starts it over from the beginning. A process that only reads leaves this to one that writes.
 * A speed twin of SQLite's own checkpoints, which run everywhere else (docs/benchmarks.md#speed-twins).
 */
export async function startWalCheckpointer(
  db: Database,
  onError: (message: string) => void,
): Promise<{ stop(): void } | null> {
  const path = db.$file
  if (db.$engine !== 'bun:sqlite' || !path || typeof Worker === 'undefined' || !db.$exec) return null
  const exec = db.$exec
  const worker = new Worker(
    new URL(`./wal-checkpoint-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url).href,
  )
  let groupsSeen = groupsRun(db)
  const ready = new Promise<boolean>((resolve) => {
    worker.onmessage = (event: MessageEvent) => {
      const message = event.data as { ready?: true; error?: string; full?: true; restart?: true; stopped?: true }
      if (message.ready) resolve(true)
      if (message.error) onError(message.error)
      if (message.stopped) worker.terminate()
      if (message.full && groupsRun(db) !== groupsSeen) {
        groupsSeen = groupsRun(db)
        worker.postMessage({ catchUp: true })
      }
      if (message.restart) beforeNextGroup(db, () => exec('PRAGMA wal_checkpoint(PASSIVE)'))
    }
    worker.onerror = (event) => {
      exec('PRAGMA wal_autocheckpoint=1000')
      onError(event.message)
      resolve(false)
    }
  })
  worker.postMessage({
    path,
    intervalMs: CHECKPOINT_INTERVAL_MS,
    restartAfterPages: RESTART_AFTER_PAGES,
    catchUpPages: CATCH_UP_PAGES,
  })
  if (!(await ready)) return null
  exec('PRAGMA wal_autocheckpoint=0')
  // A WAL that grew under a burst is cut back to 64 MiB when it starts over.
  exec('PRAGMA journal_size_limit=67108864')
  ;(worker as { unref?: () => void }).unref?.()
  return {
    stop() {
      exec('PRAGMA wal_autocheckpoint=1000')
      // The worker closes its connection and descriptor (terminate() would leave them open), then ends.
      worker.postMessage({ stop: true })
    },
  }
}
