import type { Database } from './open-database.ts'

/** Rows of one read with positional arguments, on any driver, outside any transaction (a write's would lock). */
export async function readRows(db: Database, sql: string, args: unknown[]): Promise<Record<string, unknown>[]> {
  if (db.$all) return db.$all(sql, ...args)
  return (await db.$client.execute({ sql, args: args as never })).rows as Record<string, unknown>[]
}
