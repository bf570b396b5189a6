import type { Database } from './open-database.ts'

interface Job {
  work: () => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

interface Group {
  jobs: Job[]
}

const open = new WeakMap<Database, Group>()
const beforeNext = new WeakMap<Database, () => void>()
const groups = new WeakMap<Database, number>()

// After the I/O of this turn of the event loop: every request that reached its write in this turn joins.
const afterIo: (run: () => void) => void =
  typeof setImmediate === 'function' ? (run) => setImmediate(run) : (run) => setTimeout(run, 0)

/**
 * Group commit on the embedded file (docs/benchmarks.md#group-commit). Writes submitted in one turn of the
 * event loop run together in ONE transaction, each inside its own savepoint, so a write that throws undoes
 * only its own work and rejects only its own caller. Every promise settles after the one COMMIT: a write
 * is on the WAL when its caller hears it succeeded, and N concurrent writers pay for one commit, not N.
 *
 * `work` must be synchronous (the embedded drivers are) and must not await: the transaction is open only
 * while the group runs, never across a turn of the event loop, so no other request's statements join it.
 * A speed twin of a transaction per write, which `@libsql/client` keeps (docs/benchmarks.md#speed-twins).
 */
export function groupCommitted<T>(db: Database, work: () => T): Promise<T> {
  const exec = db.$exec
  if (!exec) throw new Error('group commit needs an embedded database')
  return new Promise<T>((resolve, reject) => {
    let group = open.get(db)
    if (!group) {
      const created: Group = { jobs: [] }
      open.set(db, (group = created))
      afterIo(() => {
        open.delete(db)
        const first = beforeNext.get(db)
        if (first) {
          beforeNext.delete(db)
          first()
        }
        groups.set(db, (groups.get(db) ?? 0) + 1)
        runGroup(exec, created.jobs)
      })
    }
    group.jobs.push({ work, resolve: resolve as (value: unknown) => void, reject })
  })
}

/** How many groups this process has run on `db`: whether it writes at all, for the WAL checkpointer. */
export function groupsRun(db: Database): number {
  return groups.get(db) ?? 0
}

/**
 * Runs `step` once, just before the next group's transaction begins, on the serving thread. The WAL
 * checkpointer uses it to copy the last few WAL pages into the database file right before a write, so
 * that write starts the WAL over (docs/operations.md#wal-checkpoints). A step that throws does not stop
 * the group.
 */
export function beforeNextGroup(db: Database, step: () => void): void {
  beforeNext.set(db, () => {
    try {
      step()
    } catch {
      // A checkpoint that could not run (busy) is retried by the checkpointer's next restart request.
    }
  })
}

function runGroup(exec: (sql: string) => void, jobs: Job[]): void {
  const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = []
  try {
    exec('BEGIN IMMEDIATE')
  } catch (error) {
    for (const job of jobs) job.reject(error)
    return
  }
  try {
    for (const job of jobs) {
      exec('SAVEPOINT readlater_write')
      try {
        outcomes.push({ ok: true, value: job.work() })
        exec('RELEASE readlater_write')
      } catch (error) {
        exec('ROLLBACK TO readlater_write')
        exec('RELEASE readlater_write')
        outcomes.push({ ok: false, error })
      }
    }
    exec('COMMIT')
  } catch (error) {
    try {
      exec('ROLLBACK')
    } catch {
      // Already rolled back by SQLite (a failed COMMIT can end the transaction itself).
    }
    for (const job of jobs) job.reject(error)
    return
  }
  jobs.forEach((job, i) => {
    const outcome = outcomes[i]!
    if (outcome.ok) job.resolve(outcome.value)
    else job.reject(outcome.error)
  })
}
