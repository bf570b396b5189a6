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
import { bunSqlClient, embeddedSqlClient, type SqlClient } from './sql-client.ts'

/**
 * The database the adapters use. Both drivers speak the same SQL over the same schema and migrations;
 * queries are written once against drizzle's async API (awaiting a synchronous driver's result is fine).
 */
export type Database = LibSQLDatabase<typeof schema> & {
  $client: SqlClient
  $embedded?: true
  /**
   * Runs SQL synchronously on the embedded connection, prepared once per text (transaction control for
   * group commit, fixed statements); returns the driver's run result (`changes`). Absent on @libsql/client.
   */
  $exec?: (sql: string, ...args: unknown[]) => unknown
  /** Reads rows synchronously on the embedded connection, each statement prepared once; absent on @libsql/client. */
  $all?: (sql: string, ...args: unknown[]) => Record<string, unknown>[]
  /** The database file's path, for an embedded file (not `:memory:`). */
  $file?: string
  /** Which engine reads the database: bun:sqlite (Bun, a file), libsql (Deno and Node, a file) or @libsql/client. */
  $engine: 'bun:sqlite' | 'libsql' | 'client'
}

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url))
const BUSY_TIMEOUT_MS = 5000

/**
 * Opens (and migrates) the database. `file:` URLs are the embedded default; `libsql:`/`http(s):` reach a
 * libSQL server or Turso with an auth token.
 */
export async function openDatabase(url: string, authToken?: string, options: OpenOptions = {}): Promise<Database> {
  const embedded = url.startsWith('file:') || url === ':memory:'
  const path = url.replace(/^file:/, '') || ':memory:'
  if (embedded && options.driver !== 'client') {
    // On Bun the file is read through bun:sqlite (the same SQLite file format): its statements return rows
    // several times faster than libsql's native binding, the largest cost of a list: a speed twin of libsql's
    // engine, which the suites run on too (docs/benchmarks.md#speed-twins).
    // Deno and Node (and READLATER_SQLITE=libsql) keep libsql's engine.
    return typeof Bun !== 'undefined' && options.driver !== 'libsql' && process.env.READLATER_SQLITE !== 'libsql'
      ? openBunSqlite(path)
      : openEmbedded(path)
  }
  let client
  try {
    client = createClient({ url, authToken })
  } catch (error) {
    throw new DatabaseOpenError(`DATABASE_URL is not a database URL this build can use: ${firstLine(error)}`)
  }
  const db = drizzleRemote(client, { schema }) as unknown as Database
  db.$engine = 'client'
  try {
    await migrateRemote(db, { migrationsFolder: MIGRATIONS })
  } catch (error) {
    client.close()
    // The origin only: the URL may carry a token in its query.
    throw new DatabaseOpenError(`cannot reach the database at ${originOf(url)}: ${firstLine(error)}`)
  }
  return db
}

export interface OpenOptions {
  /**
   * `client` opens a `file:` URL through @libsql/client, the driver of remote databases (Turso, a libSQL
   * server): the tests run the remote code path on a file, all of it but the network.
   */
  driver?: 'embedded' | 'libsql' | 'client'
}

/** The database could not be opened: a one-line reason, fit for an operator (docs/operations.md#configuration). */
export class DatabaseOpenError extends Error {}

function firstLine(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause
  const text = error instanceof Error ? error.message : String(error)
  const detail = cause instanceof Error && !text.includes(cause.message) ? `${text} (${cause.message})` : text
  return detail.split('\n')[0]!.slice(0, 300)
}

function originOf(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return 'DATABASE_URL'
  }
}

/**
 * The embedded file runs on the libSQL engine through drizzle's better-sqlite3 driver (libsql's native
 * `Database` has better-sqlite3's API). Unlike @libsql/client's `file:` driver, which re-prepares every
 * statement and reads column metadata on each call (≈ 300 µs for a 25-column row), it keeps drizzle's
 * prepared statements compiled: the same query costs ≈ 20 µs.
 */
function makeDataDirectory(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true })
  } catch (error) {
    throw new DatabaseOpenError(
      `cannot create the data directory ${dirname(path)}: ${(error as { code?: string }).code ?? firstLine(error)}`,
    )
  }
}

/**
 * Statement journals in memory, not in a temporary file. A capture's insert fires triggers (its
 * enrichment job, the person's list version), so SQLite opens a statement journal for it; on a file
 * that cost a third of the insert (docs/benchmarks.md#statement-journal). Temporary tables and sorts
 * stay in memory too: no query on the request path sorts without an index.
 */
const TEMP_STORE_MEMORY = 2

function openEmbedded(path: string): Database {
  if (path !== ':memory:') makeDataDirectory(path)
  // `timeout` is SQLite's busy timeout: two processes on one file wait for each other's write lock
  // instead of failing with SQLITE_BUSY.
  let native: InstanceType<typeof NativeDatabase>
  try {
    native = new NativeDatabase(path, { timeout: BUSY_TIMEOUT_MS })
    if (path !== ':memory:') native.exec('PRAGMA journal_mode=WAL')
  } catch (error) {
    throw new DatabaseOpenError(`cannot open the database file ${path}: ${firstLine(error)}`)
  }
  if (path !== ':memory:') {
    // In WAL mode NORMAL never corrupts the file; it only lets the last commits roll back on power loss
    // (not on a process crash), and it saves an fsync on every commit.
    native.exec('PRAGMA synchronous=NORMAL')
  }
  native.exec(`PRAGMA temp_store=${TEMP_STORE_MEMORY}`)
  native.exec('PRAGMA foreign_keys=ON')
  const dialect = new SQLiteSyncDialect()
  const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers)
  const relational = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap }
  const session = new BetterSQLiteSession(native as never, dialect, relational, {})
  const db = new BaseSQLiteDatabase('sync', dialect, session as never, relational) as unknown as Database
  migrateEmbedded(db as never, { migrationsFolder: MIGRATIONS })
  db.$client = embeddedSqlClient(native)
  db.$exec = preparedRunner((statement) => native.prepare(statement))
  db.$all = preparedReader((statement) => native.prepare(statement))
  db.$embedded = true
  db.$engine = 'libsql'
  return db
}

/** The embedded file through bun:sqlite and drizzle's bun-sqlite driver (Bun only, loaded on demand). */
async function openBunSqlite(path: string): Promise<Database> {
  if (path !== ':memory:') makeDataDirectory(path)
  const { Database: BunDatabase } = await import('bun:sqlite')
  const { drizzle } = await import('drizzle-orm/bun-sqlite')
  const { migrate } = await import('drizzle-orm/bun-sqlite/migrator')
  let native: InstanceType<typeof BunDatabase>
  try {
    native = new BunDatabase(path, { create: true })
    native.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    if (path !== ':memory:') native.exec('PRAGMA journal_mode=WAL')
  } catch (error) {
    throw new DatabaseOpenError(`cannot open the database file ${path}: ${firstLine(error)}`)
  }
  if (path !== ':memory:') native.exec('PRAGMA synchronous=NORMAL')
  native.exec(`PRAGMA temp_store=${TEMP_STORE_MEMORY}`)
  native.exec('PRAGMA foreign_keys=ON')
  const db = drizzle(native, { schema }) as unknown as Database
  migrate(db as never, { migrationsFolder: MIGRATIONS })
  db.$client = bunSqlClient(native)
  db.$exec = preparedRunner((statement) => native.prepare(statement))
  db.$all = preparedReader((statement) => native.prepare(statement))
  if (path !== ':memory:') db.$file = path
  db.$embedded = true
  db.$engine = 'bun:sqlite'
  return db
}

/** Runs fixed statements (transaction control, the indexer's steps), each prepared once: SQLite parses SQL text on every `exec`. */
function preparedRunner(
  prepare: (sql: string) => { run(...args: unknown[]): unknown },
): (sql: string, ...args: unknown[]) => unknown {
  const statements = new Map<string, { run(...args: unknown[]): unknown }>()
  return (sql, ...args) => {
    let statement = statements.get(sql)
    if (!statement) statements.set(sql, (statement = prepare(sql)))
    return statement.run(...args)
  }
}

/** Reads rows of fixed statements, each prepared once (bun:sqlite and libsql both answer `all` with objects). */
function preparedReader(
  prepare: (sql: string) => { all(...args: unknown[]): unknown },
): (sql: string, ...args: unknown[]) => Record<string, unknown>[] {
  const statements = new Map<string, { all(...args: unknown[]): unknown }>()
  return (sql, ...args) => {
    let statement = statements.get(sql)
    if (!statement) statements.set(sql, (statement = prepare(sql)))
    return statement.all(...args) as Record<string, unknown>[]
  }
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
