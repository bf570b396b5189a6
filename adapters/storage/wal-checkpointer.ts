import { holdWrites } from './group-commit.ts'
import type { Database } from './open-database.ts'

/** How often the worker checkpoints; SQLite's own would fire every 1,000 pages, mid-request. */
export const CHECKPOINT_INTERVAL_MS = 250

/**
 * WAL pages past which writes are held for one checkpoint to the end, so the WAL starts over. Under
 * steady writes a checkpoint that runs beside them never reaches the end, and the WAL would only grow.
 */
export const RESTART_AFTER_PAGES = 8192

/** The longest writes are held waiting for that checkpoint, should the worker not answer. */
const MAX_HOLD_MS = 500

/**
 * Moves WAL checkpoints off the serving thread (docs/operations.md#wal-checkpoints). SQLite runs a
 * checkpoint inside whichever commit pushes the WAL past 1,000 pages: it copies those pages into the
 * database file and fsyncs, 10 to 20 ms during which this thread answers nothing. On Bun, with an
 * embedded file, a worker thread with its own connection checkpoints every CHECKPOINT_INTERVAL_MS instead
 * and the serving connection's automatic checkpoints are turned off; if the worker fails, they are turned
 * back on. Elsewhere (Deno, Node, @libsql/client, `:memory:`) this does nothing.
 */
export async function startWalCheckpointer(
  db: Database,
  onError: (message: string) => void,
): Promise<{ stop(): void } | null> {
  const path = db.$file
  if (db.$engine !== 'bun:sqlite' || !path || typeof Worker === 'undefined' || !db.$exec) return null
  const exec = db.$exec
  const worker = new Worker(new URL('./wal-checkpoint-worker.ts', import.meta.url).href)
  let release: (() => void) | null = null
  const ready = new Promise<boolean>((resolve) => {
    worker.onmessage = (event: MessageEvent) => {
      const message = event.data as { ready?: true; error?: string; log?: number; drained?: boolean }
      if (message.ready) resolve(true)
      if (message.error) onError(message.error)
      if (message.drained) {
        release?.()
        release = null
      } else if (release === null && (message.log ?? 0) >= RESTART_AFTER_PAGES) {
        // Group-committed writes wait (nothing blocks) while the worker copies the last pages; the next
        // write then starts the WAL over from its beginning.
        const held = holdWrites(db)
        const timeout = setTimeout(() => {
          held()
          if (release === held) release = null
        }, MAX_HOLD_MS)
        release = () => {
          clearTimeout(timeout)
          held()
        }
        worker.postMessage({ drain: true })
      }
    }
    worker.onerror = (event) => {
      exec('PRAGMA wal_autocheckpoint=1000')
      onError(event.message)
      resolve(false)
    }
  })
  worker.postMessage({ path, intervalMs: CHECKPOINT_INTERVAL_MS })
  if (!(await ready)) return null
  exec('PRAGMA wal_autocheckpoint=0')
  // A WAL that grew under a burst is cut back to 64 MiB when it starts over.
  exec('PRAGMA journal_size_limit=67108864')
  ;(worker as { unref?: () => void }).unref?.()
  return {
    stop() {
      release?.()
      exec('PRAGMA wal_autocheckpoint=1000')
      worker.terminate()
    },
  }
}
