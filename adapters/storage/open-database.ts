import { createClient, type Client } from '@libsql/client'
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql'
import { migrate } from 'drizzle-orm/libsql/migrator'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as schema from './schema.ts'

export type Database = LibSQLDatabase<typeof schema> & { $client: Client }

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url))

/**
 * Opens (and migrates) the database. `file:` URLs are the embedded default; `libsql:`/`http(s):` reach a
 * libSQL server or Turso with an auth token.
 */
export async function openDatabase(url: string, authToken?: string): Promise<Database> {
  const isFile = url.startsWith('file:')
  if (isFile) {
    const path = url.slice('file:'.length)
    if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  }
  // `timeout` sets busy_timeout, so two processes on one file wait for each other's write locks instead
  // of failing with SQLITE_BUSY. The `file:` driver runs every statement synchronously, so a pool of
  // connections buys no parallelism; one connection makes the per-connection pragmas below certain.
  const client = createClient({ url, authToken, timeout: 5000, ...(isFile ? { concurrency: 1 } : {}) })
  if (isFile && url !== 'file::memory:' && url !== ':memory:') {
    await client.execute('PRAGMA journal_mode=WAL')
    // In WAL mode NORMAL never corrupts the file; it only lets the last commits roll back on power loss
    // (not on a process crash), and it saves an fsync on every commit: every authenticated request writes
    // its rate-limit counter.
    await client.execute('PRAGMA synchronous=NORMAL')
  }
  const db = drizzle(client, { schema }) as Database
  await migrate(db, { migrationsFolder: MIGRATIONS })
  return db
}
