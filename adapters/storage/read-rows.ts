import type { MaybePromise } from '../../core/at-once.ts'
import type { Database } from './open-database.ts'

/**
 * Rows of one read with positional arguments, on any driver, outside any transaction (a write's would lock).
 * At once on an embedded file (core/at-once.ts), through its statement cache (`$all`); a promise on
 * @libsql/client.
 */
export function readRows(db: Database, sql: string, args: unknown[]): MaybePromise<Record<string, unknown>[]> {
  if (db.$all) return db.$all(sql, ...args)
  return db.$client.execute({ sql, args: args as never }).then((result) => result.rows as Record<string, unknown>[])
}
