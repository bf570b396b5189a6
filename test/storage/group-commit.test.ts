import { afterAll, describe, expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeNextGroup, groupCommitted } from '../../adapters/storage/group-commit.ts'
import { openDatabase } from '../../adapters/storage/open-database.ts'
import { TEST_DRIVER } from '../helpers/harness.ts'

// Group commit (docs/benchmarks.md#group-commit): the embedded drivers only; @libsql/client writes each
// statement on its own, so there is nothing to test on it.
const dir = mkdtempSync(join(tmpdir(), 'readlater-group-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

async function database() {
  const path = join(dir, `g-${files++}.db`)
  const db = await openDatabase(`file:${path}`, undefined, { driver: TEST_DRIVER })
  db.$exec?.('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)')
  return { db, path }
}

describe.skipIf(TEST_DRIVER === 'client')('group commit', () => {
  test('writes of one turn share one transaction; one that throws is undone alone and rejects alone', async () => {
    const { db, path } = await database()
    const insert = (text: string) => () => db.$exec!(`INSERT INTO notes (text) VALUES ('${text}')`)
    const outcomes = await Promise.allSettled([
      groupCommitted(db, insert('first')),
      groupCommitted(db, () => {
        insert('undone')()
        throw new Error('this write fails')
      }),
      groupCommitted(db, () => {
        insert('third')()
        return 'third written'
      }),
    ])
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('this write fails')
    expect((outcomes[2] as PromiseFulfilledResult<string>).value).toBe('third written')
    // Read through another connection: what resolved is committed, what rejected left nothing.
    const other = createClient({ url: `file:${path}` })
    const rows = await other.execute('SELECT text FROM notes ORDER BY id')
    other.close()
    expect(rows.rows.map((row) => row.text)).toEqual(['first', 'third'])
  })

  test('each promise settles only after the COMMIT: at that moment another connection sees the write', async () => {
    const { db, path } = await database()
    const other = createClient({ url: `file:${path}` })
    const seen: number[] = []
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        groupCommitted(db, () => db.$exec!(`INSERT INTO notes (text) VALUES ('note ${i}')`)).then(async () => {
          seen.push(Number((await other.execute('SELECT count(*) AS n FROM notes')).rows[0]!.n))
        }),
      ),
    )
    other.close()
    expect(seen).toEqual(Array(10).fill(10))
  })

  test('writes of different turns are different transactions', async () => {
    const { db } = await database()
    const ids: number[] = []
    for (let i = 0; i < 3; i++) {
      await groupCommitted(db, () => db.$exec!(`INSERT INTO notes (text) VALUES ('turn ${i}')`))
      ids.push(i)
    }
    expect(ids).toEqual([0, 1, 2])
    // Had a transaction stayed open across turns, this explicit one could not begin.
    expect(() => db.$exec!('BEGIN IMMEDIATE')).not.toThrow()
    db.$exec!('COMMIT')
  })

  test('a step set before the next group runs once, outside its transaction, before its first write', async () => {
    const { db } = await database()
    const seen: string[] = []
    beforeNextGroup(db, () => {
      // No transaction is open yet: an explicit one can begin (and is ended again).
      db.$exec!('BEGIN IMMEDIATE')
      db.$exec!('COMMIT')
      seen.push('step')
    })
    await Promise.all(
      [1, 2].map((i) =>
        groupCommitted(db, () => {
          seen.push(`write ${i}`)
          db.$exec!(`INSERT INTO notes (text) VALUES ('${i}')`)
        }),
      ),
    )
    await groupCommitted(db, () => seen.push('next group'))
    expect(seen).toEqual(['step', 'write 1', 'write 2', 'next group'])
  })

  test('a step that throws does not stop the group it ran before', async () => {
    const { db, path } = await database()
    beforeNextGroup(db, () => {
      throw new Error('busy')
    })
    await groupCommitted(db, () => db.$exec!("INSERT INTO notes (text) VALUES ('kept')"))
    const other = createClient({ url: `file:${path}` })
    expect(Number((await other.execute('SELECT count(*) AS n FROM notes')).rows[0]!.n)).toBe(1)
    other.close()
  })
})
