// A worker thread (Bun) that checkpoints the WAL of one database file, so the copying and fsync of a
// checkpoint never stall the serving thread (docs/operations.md#wal-checkpoints).
import { Database } from 'bun:sqlite'

declare const self: { onmessage: ((event: MessageEvent) => void) | null; postMessage(message: unknown): void }

self.onmessage = (event: MessageEvent) => {
  const { path, intervalMs } = event.data as { path: string; intervalMs: number }
  const db = new Database(path)
  // PASSIVE never waits for readers or writers; a checkpoint already running elsewhere just answers busy.
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
  setInterval(() => {
    try {
      checkpoint.get()
    } catch (error) {
      self.postMessage({ error: error instanceof Error ? error.message : String(error) })
    }
  }, intervalMs)
  self.postMessage({ ready: true })
}
