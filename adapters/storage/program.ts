import { groupCommitted } from './group-commit.ts'
import type { Database } from './open-database.ts'

/** One statement of a program: rows to read back, or a write whose changed-row count comes back. */
export type Op = { all: string; args: unknown[] } | { run: string; args: unknown[] }

/**
 * Runs a program of statements in ONE transaction on any driver, written once as a generator that yields
 * each statement and is handed its result (rows, or rows changed): on the embedded file, synchronously as
 * one job of the next group commit (its own savepoint: a throw undoes only this program; each statement
 * prepared once); on @libsql/client, as an interactive transaction.
 */
export async function runProgram<T>(db: Database, program: () => Generator<Op, T, unknown>): Promise<T> {
  const exec = db.$exec
  const all = db.$all
  if (exec && all) {
    return groupCommitted(db, () => {
      const steps = program()
      let step = steps.next()
      while (!step.done) {
        const op = step.value
        step = steps.next('all' in op ? all(op.all, ...op.args) : changesOf(exec(op.run, ...op.args)))
      }
      return step.value
    })
  }
  const client = db.$client as unknown as {
    transaction(mode: 'write'): Promise<{
      execute(statement: { sql: string; args: unknown[] }): Promise<{ rows: unknown[]; rowsAffected: number }>
      commit(): Promise<void>
      rollback(): Promise<void>
      close(): void
    }>
  }
  const tx = await client.transaction('write')
  try {
    const steps = program()
    let step = steps.next()
    while (!step.done) {
      const op = step.value
      const result = await tx.execute({ sql: 'all' in op ? op.all : op.run, args: op.args })
      step = steps.next('all' in op ? (result.rows as Record<string, unknown>[]) : result.rowsAffected)
    }
    await tx.commit()
    return step.value
  } catch (error) {
    await tx.rollback().catch(() => {})
    throw error
  } finally {
    tx.close()
  }
}

/** Rows a write changed, as each embedded driver reports it. */
function changesOf(result: unknown): number {
  const r = result as { changes?: number | bigint }
  return Number(r.changes ?? 0)
}
