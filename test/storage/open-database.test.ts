import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { atomically, openDatabase } from '../../adapters/storage/open-database.ts'
import { rateLimits } from '../../adapters/storage/schema.ts'

describe('openDatabase() on a file', () => {
  test('creates the directory, migrates, and runs WAL with synchronous=NORMAL and foreign keys on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readlater-open-'))
    try {
      const db = await openDatabase(`file:${join(dir, 'nested', 'x.db')}`)
      const pragma = async (name: string) => (await db.$client.execute(`PRAGMA ${name}`)).rows[0]![0]
      expect(await pragma('journal_mode')).toBe('wal')
      expect(await pragma('synchronous')).toBe(1) // NORMAL
      expect(await pragma('foreign_keys')).toBe(1)
      expect(await pragma('busy_timeout')).toBe(5000)
      expect(await pragma('temp_store')).toBe(2) // MEMORY: statement journals off the disk
      const tables = (
        await db.$client.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      ).rows.map((r) => r.name)
      expect(tables).toContain('saved_items')
      expect(tables).toContain('oauth_grants')
      db.$client.close()
      // Opening again is a no-op migration, not a failure.
      const again = await openDatabase(`file:${join(dir, 'nested', 'x.db')}`)
      expect((await again.$client.execute('SELECT count(*) AS n FROM saved_items')).rows[0]!.n).toBe(0)
      again.$client.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("libsql's embedded engine gets the same settings", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readlater-open-'))
    try {
      const db = await openDatabase(`file:${join(dir, 'l.db')}`, undefined, { driver: 'libsql' })
      expect(db.$engine).toBe('libsql')
      const pragma = async (name: string) => (await db.$client.execute(`PRAGMA ${name}`)).rows[0]![0]
      expect([await pragma('journal_mode'), await pragma('synchronous'), await pragma('temp_store')]).toEqual([
        'wal',
        1,
        2,
      ])
      expect(await pragma('foreign_keys')).toBe(1)
      db.$client.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('atomically() writes all or nothing', async () => {
    const db = await openDatabase('file::memory:')
    await atomically(db, [
      db.insert(rateLimits).values({ bucket: 'a', windowStartMs: 1, count: 1 }),
      db.insert(rateLimits).values({ bucket: 'b', windowStartMs: 1, count: 1 }),
    ])
    await expect(
      atomically(db, [
        db.insert(rateLimits).values({ bucket: 'c', windowStartMs: 1, count: 1 }),
        db.insert(rateLimits).values({ bucket: 'a', windowStartMs: 1, count: 1 }), // duplicate key: fails
      ]),
    ).rejects.toThrow()
    const buckets = (await db.select({ bucket: rateLimits.bucket }).from(rateLimits)).map((r) => r.bucket)
    expect(buckets.sort()).toEqual(['a', 'b'])
  })
})
