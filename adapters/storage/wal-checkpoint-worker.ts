// A worker thread (Bun) that checkpoints the WAL of one database file, so the copying and fsync of a
// checkpoint never stall the serving thread (docs/operations.md#wal-checkpoints).
import { Database } from 'bun:sqlite'
import { closeSync, fdatasyncSync, openSync } from 'node:fs'

declare const self: {
  onmessage: ((event: MessageEvent) => void) | null
  postMessage(message: unknown): void
}

interface Start {
  path: string
  intervalMs: number
  restartAfterPages: number
  catchUpPages: number
}

let settings: Start
let db: Database
let statement: ReturnType<Database['prepare']>
let file = -1
let timer: ReturnType<typeof setInterval>

self.onmessage = (event: MessageEvent) => {
  const message = event.data as Start | { stop: true }
  if ('stop' in message) {
    clearInterval(timer)
    statement.finalize()
    db.close()
    closeSync(file)
    self.postMessage({ stopped: true })
    return
  }
  settings = message
  db = new Database(message.path)
  // Its own descriptor of the database file, only to fsync it (see tick).
  file = openSync(message.path, 'r')
  // PASSIVE never waits for readers or writers; a checkpoint already running elsewhere just answers busy.
  statement = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
  timer = setInterval(tick, message.intervalMs)
  self.postMessage({ ready: true })
}

function tick(): void {
  let result = run()
  if (!result || result.log < settings.restartAfterPages) return
  // Past the restart size. Catch up: each pass copies what arrived during the one before.
  for (let pass = 0; pass < 4; pass++) {
    const before = result.log
    result = run()
    if (!result) return
    if (result.log - before <= settings.catchUpPages) break
  }
  // The checkpoint that reaches the WAL's end fsyncs the database file, and that one runs on the serving
  // thread: flush the pages copied so far here, so its fsync has only its own few pages to write
  // (measured: 4 to 8 ms without this, 1 to 2 ms with it).
  try {
    fdatasyncSync(file)
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) })
    return
  }
  if (run()) self.postMessage({ restart: true })
}

function run(): { log: number } | null {
  try {
    return statement.get() as { log: number }
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) })
    return null
  }
}
