// A worker thread (Bun) that checkpoints the WAL of one database file, so the copying and fsync of a
// checkpoint never stall the serving thread (docs/operations.md#wal-checkpoints).
import { Database } from 'bun:sqlite'

declare const self: { onmessage: ((event: MessageEvent) => void) | null; postMessage(message: unknown): void }

let checkpoint: (() => { log: number; checkpointed: number }) | null = null

self.onmessage = (event: MessageEvent) => {
  const message = event.data as { path?: string; intervalMs?: number; drain?: true }
  if (message.path) {
    const db = new Database(message.path)
    // PASSIVE never waits for readers or writers; a checkpoint already running elsewhere just answers busy.
    const statement = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
    checkpoint = () => statement.get() as { log: number; checkpointed: number }
    setInterval(() => run(false), message.intervalMs)
    self.postMessage({ ready: true })
  }
  // The serving thread holds its writes: this checkpoint copies the WAL to its end, so it can start over.
  if (message.drain) run(true)
}

function run(drain: boolean): void {
  try {
    const { log, checkpointed } = checkpoint!()
    self.postMessage({ log, checkpointed, drained: drain })
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error), drained: drain })
  }
}
