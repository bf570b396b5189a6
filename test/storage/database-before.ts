import { expect } from 'bun:test'
import { createClient, type Client } from '@libsql/client'
import { drizzle } from 'drizzle-orm/libsql'
import { migrate } from 'drizzle-orm/libsql/migrator'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const MIGRATIONS = fileURLToPath(new URL('../../adapters/storage/migrations', import.meta.url).href)

/**
 * A file database migrated up to just before the migration `tag` (the same files, the journal cut there), for
 * a test that fills it as an older version left it, then runs the rest (`migrateRest`) and checks what the
 * migration made of it. `cleanUp` closes it and removes its directory.
 */
export async function databaseBefore(tag: string) {
  const dir = mkdtempSync(join(tmpdir(), 'readlater-migration-'))
  const before = join(dir, 'before')
  cpSync(MIGRATIONS, before, { recursive: true })
  const journal = JSON.parse(readFileSync(join(before, 'meta/_journal.json'), 'utf8'))
  const at = journal.entries.findIndex((entry: { tag: string }) => entry.tag === tag)
  expect(at).toBeGreaterThan(0)
  journal.entries = journal.entries.slice(0, at)
  writeFileSync(join(before, 'meta/_journal.json'), JSON.stringify(journal))
  const client: Client = createClient({ url: `file:${join(dir, 'db.sqlite')}` })
  const db = drizzle(client)
  await migrate(db, { migrationsFolder: before })
  return {
    client,
    db,
    migrateRest: () => migrate(db, { migrationsFolder: MIGRATIONS }),
    cleanUp: () => {
      client.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
