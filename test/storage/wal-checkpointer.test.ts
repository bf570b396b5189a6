import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, type Database } from '../../adapters/storage/open-database.ts'
import { groupCommitted } from '../../adapters/storage/group-commit.ts'
import {
  CHECKPOINT_INTERVAL_MS,
  RESTART_AFTER_PAGES,
  startWalCheckpointer,
} from '../../adapters/jobs/wal-checkpointer.ts'
import { TEST_DRIVER } from '../helpers/harness.ts'

// docs/operations.md#wal-checkpoints: on Bun with an embedded file, a worker thread checkpoints the WAL.
const dir = mkdtempSync(join(tmpdir(), 'readlater-wal-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('WAL checkpointer', () => {
  test.skipIf(TEST_DRIVER !== 'embedded')(
    "turns the serving connection's automatic checkpoints off, and its worker moves the WAL into the database file",
    async () => {
      const path = join(dir, 'wal.db')
      const db = await openDatabase(`file:${path}`)
      const errors: string[] = []
      const checkpointer = await startWalCheckpointer(db, (message) => errors.push(message))
      expect(checkpointer).not.toBeNull()
      const setting = await db.$client.execute('PRAGMA wal_autocheckpoint')
      expect(Number(Object.values(setting.rows[0]!)[0])).toBe(0)
      const before = statSync(path).size
      await db.$client.execute('CREATE TABLE filler (text TEXT NOT NULL)')
      for (let i = 0; i < 200; i++)
        await db.$client.execute({ sql: 'INSERT INTO filler (text) VALUES (?)', args: ['x'.repeat(4000)] })
      // This connection no longer checkpoints, so only the worker can have grown the database file.
      await Bun.sleep(CHECKPOINT_INTERVAL_MS * 3)
      expect(statSync(path).size).toBeGreaterThan(before + 200 * 4000)
      checkpointer!.stop()
      const restored = await db.$client.execute('PRAGMA wal_autocheckpoint')
      expect(Number(Object.values(restored.rows[0]!)[0])).toBe(1000)
      expect(errors).toEqual([])
      db.$client.close()
    },
  )

  test.skipIf(TEST_DRIVER !== 'embedded')(
    'under writes that never stop, the WAL still starts over: it stays bounded instead of growing with them',
    async () => {
      const path = join(dir, 'steady.db')
      const db = await openDatabase(`file:${path}`)
      const errors: string[] = []
      const checkpointer = await startWalCheckpointer(db, (message) => errors.push(message))
      const rows = await writeSteadily(db)
      // Page size 4 KiB. Had the WAL never started over it would hold every page written (6 × threshold).
      const walPages = statSync(`${path}-wal`).size / 4096
      expect(walPages).toBeLessThan(RESTART_AFTER_PAGES * 3)
      const count = await db.$client.execute('SELECT count(*) AS n FROM filler')
      expect(Number(count.rows[0]!.n)).toBe(rows)
      checkpointer!.stop()
      expect(errors).toEqual([])
      db.$client.close()
    },
  )

  test.skipIf(TEST_DRIVER !== 'embedded')(
    'beside a second process on the file whose checkpointer competes but never writes, the writer still starts the WAL over',
    async () => {
      const path = join(dir, 'two.db')
      const db = await openDatabase(`file:${path}`)
      // Stands for another server process on the same file (its own connection and worker): SQLite lets
      // one checkpoint run at a time, so the two workers' checkpoints keep answering each other busy.
      const other = await openDatabase(`file:${path}`)
      const errors: string[] = []
      const checkpointers = [
        await startWalCheckpointer(other, (message) => errors.push(message)),
        await startWalCheckpointer(db, (message) => errors.push(message)),
      ]
      await writeSteadily(db)
      expect(statSync(`${path}-wal`).size / 4096).toBeLessThan(RESTART_AFTER_PAGES * 3)
      for (const checkpointer of checkpointers) checkpointer!.stop()
      expect(errors).toEqual([])
      db.$client.close()
      other.$client.close()
    },
  )

  test.skipIf(TEST_DRIVER !== 'embedded' || process.platform !== 'linux')(
    'stopping it closes what its worker opened: started and stopped again and again, no descriptors pile up',
    async () => {
      const path = join(dir, 'descriptors.db')
      const db = await openDatabase(`file:${path}`)
      const before = descriptorsOf(path)
      for (let round = 0; round < 3; round++) {
        const checkpointer = await startWalCheckpointer(db, () => {})
        // The worker's connection and its own descriptor for fsync.
        expect(descriptorsOf(path)).toBe(before + 2)
        checkpointer!.stop()
        await Bun.sleep(100)
      }
      // At most one left: SQLite keeps a closed connection's descriptor while another connection of the
      // process holds locks on the file (POSIX locks are per process), and reuses it for the next one.
      expect(descriptorsOf(path)).toBeLessThanOrEqual(before + 1)
      db.$client.close()
    },
  )

  test('does nothing on other engines or in memory', async () => {
    const memory = await openDatabase('file::memory:', undefined, { driver: TEST_DRIVER })
    expect(await startWalCheckpointer(memory, () => {})).toBeNull()
    const file = await openDatabase(`file:${join(dir, 'other.db')}`, undefined, { driver: 'client' })
    expect(await startWalCheckpointer(file, () => {})).toBeNull()
    file.$client.close()
  })
})

/**
 * Batches of 64 two-page rows every few milliseconds, six times the restart threshold in all, into a new
 * `filler` table: the gaps are too short for a checkpoint beside them to reach the WAL's end. Returns
 * how many rows it wrote.
 */
async function writeSteadily(db: Database): Promise<number> {
  db.$exec!('CREATE TABLE filler (text TEXT NOT NULL)')
  const batches = Math.ceil((RESTART_AFTER_PAGES * 6) / 128)
  const row = 'x'.repeat(6000)
  for (let i = 0; i < batches; i++) {
    await Promise.all(
      Array.from({ length: 64 }, () =>
        groupCommitted(db, () => db.$exec!(`INSERT INTO filler (text) VALUES ('${row}')`)),
      ),
    )
    await Bun.sleep(4)
  }
  return batches * 64
}

/** How many of this process's file descriptors point at `path` (Linux). */
function descriptorsOf(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path
    } catch {
      return false
    }
  }).length
}
