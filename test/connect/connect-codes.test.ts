import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashSecret } from '../../core/auth/secrets.ts'
import { insertConnectCode, pruneConnectCodes, spendConnectCode } from '../../adapters/storage/connect-codes.ts'
import { openDatabase, type Database } from '../../adapters/storage/open-database.ts'
import { insertUser } from '../../adapters/storage/users.ts'

// The storage side of connect codes on real libSQL files: spending is atomic even across two
// connections (two server processes sharing one database), expiry is inclusive, pruning drops the dead.

let dir: string
let first: Database
let second: Database

const USER = '019a0000-0000-7000-8000-0000000000aa'
const row = (code: string, expiresAt: string) => ({
  codeHash: hashSecret(code),
  userId: USER,
  client: 'raycast',
  redirectUri: 'raycast://oauth',
  codeChallenge: 'c'.repeat(43),
  scopes: ['saved-items:read'],
  label: 'L',
  deviceHint: null,
  expiresAt,
})

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readlater-connect-codes-'))
  const url = `file:${join(dir, 'codes.db')}`
  first = await openDatabase(url)
  second = await openDatabase(url)
  await insertUser(first, {
    id: USER,
    email: 'codes@example.com',
    passwordHash: 'unused',
    createdAt: '2026-11-22T10:00:00.000Z',
  })
})

afterAll(() => {
  first.$client.close()
  second.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('spendConnectCode()', () => {
  test('two connections racing for one code: exactly one gets the row', async () => {
    for (let round = 0; round < 20; round++) {
      const code = `race-${round}`
      await insertConnectCode(first, row(code, '2026-11-22T10:05:00.000Z'))
      const results = await Promise.all(
        [first, second, first, second].map((db) => spendConnectCode(db, hashSecret(code), '2026-11-22T10:01:00.000Z')),
      )
      expect(results.filter((result) => result !== null).length).toBe(1)
      expect(results.find((result) => result !== null)).toMatchObject({
        client: 'raycast',
        usedAt: '2026-11-22T10:01:00.000Z',
        scopes: ['saved-items:read'],
      })
    }
  })

  test('a code is live up to its expiry, inclusive, and never after', async () => {
    await insertConnectCode(first, row('edge', '2026-11-22T10:05:00.000Z'))
    await insertConnectCode(first, row('late', '2026-11-22T10:05:00.000Z'))
    expect(await spendConnectCode(first, hashSecret('edge'), '2026-11-22T10:05:00.000Z')).not.toBeNull()
    expect(await spendConnectCode(first, hashSecret('late'), '2026-11-22T10:05:00.001Z')).toBeNull()
    expect(await spendConnectCode(first, hashSecret('unknown'), '2026-11-22T10:00:00.000Z')).toBeNull()
  })
})

describe('pruneConnectCodes()', () => {
  test('deletes codes that expired before the given time, used or not, and keeps live ones', async () => {
    await first.$client.execute('DELETE FROM connect_codes')
    await insertConnectCode(first, row('expired-unused', '2026-11-22T09:00:00.000Z'))
    await insertConnectCode(first, row('expired-used', '2026-11-22T09:30:00.000Z'))
    await spendConnectCode(first, hashSecret('expired-used'), '2026-11-22T09:29:00.000Z')
    await insertConnectCode(first, row('live', '2026-11-22T10:05:00.000Z'))
    await pruneConnectCodes(first, '2026-11-22T10:00:00.000Z')
    const left = await first.$client.execute('SELECT code_hash FROM connect_codes')
    expect(left.rows.map((r) => r.code_hash)).toEqual([hashSecret('live')])
  })
})
