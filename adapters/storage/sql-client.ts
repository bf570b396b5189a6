import type NativeDatabase from 'libsql'

export type SqlValue = string | number | bigint | boolean | null | Uint8Array
export type SqlRow = Record<string, unknown> & Record<number, unknown>
export interface SqlResult {
  rows: SqlRow[]
  columns: string[]
  rowsAffected: number
}

/** The raw-SQL surface the code and tests use: @libsql/client's `execute` and `close`, nothing else. */
export interface SqlClient {
  execute(statement: string | { sql: string; args?: SqlValue[] }): Promise<SqlResult>
  close(): void
}

/** @libsql/client's `execute` shape over the embedded native connection: rows by column name and index. */
export function embeddedSqlClient(native: NativeDatabase.Database): SqlClient {
  return {
    async execute(statement) {
      const { sql, args = [] } = typeof statement === 'string' ? { sql: statement } : statement
      const prepared = native.prepare(sql)
      if (!prepared.reader) {
        const info = prepared.run(...(args as unknown[]))
        return { rows: [], columns: [], rowsAffected: Number(info.changes) }
      }
      const columns = prepared.columns().map((column: { name: string }) => column.name)
      const rows = (prepared.raw(true).all(...(args as unknown[])) as unknown[][]).map((values) =>
        toRow(columns, values),
      )
      return { rows, columns, rowsAffected: 0 }
    },
    close() {
      native.close()
    },
  }
}

interface BunStatement {
  columnNames: string[]
  values(...args: unknown[]): unknown[][]
  run(...args: unknown[]): { changes: number }
}

/** The same `execute` shape over a bun:sqlite connection (Bun only; typed structurally so Deno can load this file). */
export function bunSqlClient(native: { prepare(sql: string): BunStatement; close(): void }): SqlClient {
  return {
    async execute(statement) {
      const { sql, args = [] } = typeof statement === 'string' ? { sql: statement } : statement
      const prepared = native.prepare(sql)
      const columns = prepared.columnNames
      if (columns.length === 0)
        return { rows: [], columns: [], rowsAffected: Number(prepared.run(...(args as unknown[])).changes) }
      const rows = prepared.values(...(args as unknown[])).map((values) => toRow(columns, values))
      return { rows, columns, rowsAffected: 0 }
    },
    close() {
      native.close()
    },
  }
}

/** A row as @libsql/client builds them: columns by name (enumerable), by index and `length` (not). */
function toRow(columns: readonly string[], values: readonly unknown[]): SqlRow {
  const row: SqlRow = {}
  Object.defineProperty(row, 'length', { value: values.length })
  values.forEach((value, i) => {
    Object.defineProperty(row, i, { value })
    if (!Object.hasOwn(row, columns[i]!)) row[columns[i]!] = value
  })
  return row
}
