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
let stopped = false

self.onmessage = (event: MessageEvent) => {
  const message = event.data as Start | { stop: true } | { catchUp: true }
  if ('catchUp' in message) return catchUp()
  if ('stop' in message) {
    // A busy retry still pending finds `stopped` and does nothing.
    stopped = true
    clearInterval(timer)
    statement.finalize()
    db.close()
    closeSync(file)
    self.postMessage({ stopped: true })
    return
  }
  settings = message
  db = new Database(message.path)
  // Its own descriptor of the database file, only to fsync it (see catchUp).
  file = openSync(message.path, 'r')
  // PASSIVE never waits for readers or writers; a checkpoint already running elsewhere just answers busy.
  statement = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
  timer = setInterval(() => tick(), message.intervalMs)
  self.postMessage({ ready: true })
}

/** What a PASSIVE checkpoint answers while another connection's checkpoint runs. */
const BUSY = { log: -1 }

// Another process's worker may be checkpointing the same file: SQLite runs one at a time and the others
// answer busy. Retried shortly, so the process that writes still sees the WAL's size.
const BUSY_RETRIES = 10
const BUSY_RETRY_MS = 10

function tick(attempt = 0): void {
  const result = run()
  if (result === BUSY) {
    if (attempt < BUSY_RETRIES) setTimeout(() => tick(attempt + 1), BUSY_RETRY_MS)
    return
  }
  // Past the restart size: the serving thread answers `catchUp` if its process writes (only a write
  // starts the WAL over, so a process that only reads leaves that to the one that writes).
  if (result && result.log >= settings.restartAfterPages) self.postMessage({ full: true })
}

function catchUp(attempt = 0): void {
  // Answered busy (another process's worker is copying the same pages): try again shortly, so the WAL
  // does not grow past the restart size while the two take turns.
  const again = () => {
    if (attempt < BUSY_RETRIES) setTimeout(() => catchUp(attempt + 1), BUSY_RETRY_MS)
  }
  let result = run()
  if (result === BUSY) return again()
  // Each pass copies what arrived during the one before.
  for (let pass = 0; pass < 5 && result; pass++) {
    const before = result.log
    result = run()
    if (result === BUSY) return again()
    if (result && result.log - before <= settings.catchUpPages) break
  }
  if (!result) return
  // The checkpoint that reaches the WAL's end fsyncs the database file, and that one runs on the serving
  // thread: flush the pages copied so far here, so its fsync has only its own few pages to write
  // (measured: 4 to 8 ms without this, 1 to 2 ms with it).
  try {
    fdatasyncSync(file)
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) })
    return
  }
  result = run()
  if (result === BUSY) return again()
  if (result) self.postMessage({ restart: true })
}

function run(): { log: number } | null {
  if (stopped) return null
  try {
    const result = statement.get() as { busy: number; log: number }
    return result.busy ? BUSY : result
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) })
    return null
  }
}
