import { createClient } from '@libsql/client'
import NativeDatabase from 'libsql'
import { createTableRelationsHelpers, extractTablesRelationalConfig } from 'drizzle-orm'
import { BetterSQLiteSession } from 'drizzle-orm/better-sqlite3/session'
import { migrate as migrateEmbedded } from 'drizzle-orm/better-sqlite3/migrator'
import { drizzle as drizzleRemote, type LibSQLDatabase } from 'drizzle-orm/libsql'
import { migrate as migrateRemote } from 'drizzle-orm/libsql/migrator'
import { BaseSQLiteDatabase, SQLiteSyncDialect } from 'drizzle-orm/sqlite-core'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as schema from './schema.ts'
import { embeddedSqlClient, type SqlClient } from './sql-client.ts'

/**
 * The database the adapters use. Both drivers speak the same SQL over the same schema and migrations;
 * queries are written once against drizzle's async API (awaiting a synchronous driver's result is fine).
 */
export type Database = LibSQLDatabase<typeof schema> & { $client: SqlClient; $embedded?: true }

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url))
const BUSY_TIMEOUT_MS = 5000

/**
 * Opens (and migrates) the database. `file:` URLs are the embedded default; `libsql:`/`http(s):` reach a
 * libSQL server or Turso with an auth token.
 */
export async function openDatabase(url: string, authToken?: string): Promise<Database> {
  if (url.startsWith('file:') || url === ':memory:') return openEmbedded(url.replace(/^file:/, '') || ':memory:')
  const client = createClient({ url, authToken })
  const db = drizzleRemote(client, { schema }) as Database
  await migrateRemote(db, { migrationsFolder: MIGRATIONS })
  return db
}

/**
 * The embedded file runs on the libSQL engine through drizzle's better-sqlite3 driver (libsql's native
 * `Database` has better-sqlite3's API). Unlike @libsql/client's `file:` driver, which re-prepares every
 * statement and reads column metadata on each call (≈ 300 µs for a 25-column row), it keeps drizzle's
 * prepared statements compiled: the same query costs ≈ 20 µs.
 */
function openEmbedded(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  // `timeout` is SQLite's busy timeout: two processes on one file wait for each other's write lock
  // instead of failing with SQLITE_BUSY.
  const native = new NativeDatabase(path, { timeout: BUSY_TIMEOUT_MS })
  if (path !== ':memory:') {
    native.exec('PRAGMA journal_mode=WAL')
    // In WAL mode NORMAL never corrupts the file; it only lets the last commits roll back on power loss
    // (not on a process crash), and it saves an fsync on every commit: every authenticated request writes
    // its rate-limit counter.
    native.exec('PRAGMA synchronous=NORMAL')
  }
  native.exec('PRAGMA foreign_keys=ON')
  const dialect = new SQLiteSyncDialect()
  const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers)
  const relational = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap }
  const session = new BetterSQLiteSession(native as never, dialect, relational, {})
  const db = new BaseSQLiteDatabase('sync', dialect, session as never, relational) as unknown as Database
  migrateEmbedded(db as never, { migrationsFolder: MIGRATIONS })
  db.$client = embeddedSqlClient(native)
  db.$embedded = true
  return db
}

type Runnable = { run(): unknown }

/** Runs writes as one unit: a transaction on the embedded file, a batch on a remote server. */
export async function atomically(db: Database, queries: [Runnable, ...Runnable[]]): Promise<void> {
  if (db.$embedded) {
    ;(db as unknown as { transaction(run: () => void): void }).transaction(() => {
      for (const query of queries) query.run()
    })
    return
  }
  await db.batch(queries as never)
}
