import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli, type CliDeps } from '../../adapters/cli/run-cli.ts'
import { verifyPassword } from '../../adapters/app/passwords.ts'
import { readConfig } from '../../adapters/config.ts'
import { createServer } from '../../adapters/http/app.ts'
import { openDatabase, type Database } from '../../adapters/storage/open-database.ts'
import { BASE, TestClock, random } from '../helpers/harness.ts'

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const API_KEY = /^rlk_[A-Za-z0-9_-]{43}$/

const dir = mkdtempSync(join(tmpdir(), 'readlater-cli-'))
const dbUrl = `file:${join(dir, 'cli.db')}`
const opened: Database[] = []
let db: Database
const clock = new TestClock()
const deps: CliDeps = {
  async openDb() {
    const handle = await openDatabase(dbUrl)
    opened.push(handle)
    return handle
  },
  config: readConfig({ DATABASE_URL: dbUrl }),
  clock,
  random,
  readStdin: async () => '',
  readFile: async (path: string) => new Uint8Array(await Bun.file(path).arrayBuffer()),
}

beforeAll(async () => {
  db = await deps.openDb()
})

afterAll(() => {
  for (const handle of opened) handle.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

async function cli(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(argv, deps, { out: (line) => out.push(line), err: (line) => err.push(line) })
  return { code, out, err }
}

async function rows(sql: string, args: (string | number)[] = []): Promise<Record<string, unknown>[]> {
  return (await db.$client.execute({ sql, args })).rows.map((row) => ({ ...row }))
}

const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex')

let emailCounter = 0
const freshEmail = (): string => `cli-user-${++emailCounter}@example.com`

describe('user create', () => {
  test('prints only the new UUIDv7 id, exits 0, and stores an argon2id hash of the password', async () => {
    const email = freshEmail()
    const result = await cli('user', 'create', '--email', email, '--password', 'correct horse battery')
    expect(result).toEqual({ code: 0, out: [expect.stringMatching(UUID_V7)], err: [] })
    const [user] = await rows('SELECT * FROM users WHERE id = ?', [result.out[0]!])
    expect(user).toMatchObject({ id: result.out[0], email, created_at: clock.now().toISOString() })
    const hash = String(user!.password_hash)
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/)
    expect(hash).not.toContain('correct horse battery')
    expect(await verifyPassword(hash, 'correct horse battery')).toBe(true)
    expect(await verifyPassword(hash, 'wrong horse battery')).toBe(false)
  })

  test('accepts --flag=value and stores the email trimmed and lowercased', async () => {
    const result = await cli('user', 'create', '--email=Mixed.Case@Example.COM', '--password=long enough')
    expect(result.code).toBe(0)
    expect(await rows('SELECT email FROM users WHERE id = ?', [result.out[0]!])).toEqual([
      { email: 'mixed.case@example.com' },
    ])
  })

  test('a duplicate email (in any case) exits 1 with one stderr line and creates nothing', async () => {
    const email = freshEmail()
    expect((await cli('user', 'create', '--email', email, '--password', 'password-one')).code).toBe(0)
    const before = await rows('SELECT count(*) AS n FROM users')
    for (const duplicate of [email, email.toUpperCase()]) {
      const result = await cli('user', 'create', '--email', duplicate, '--password', 'password-two')
      expect(result.code).toBe(1)
      expect(result.out).toEqual([])
      expect(result.err).toEqual([expect.stringContaining(email)])
      expect(result.err[0]).not.toContain('\n')
    }
    expect(await rows('SELECT count(*) AS n FROM users')).toEqual(before)
  })
})

describe('key create', () => {
  test('prints the key alone on the last stdout line; it works against the server with exactly its scopes', async () => {
    const email = freshEmail()
    const userId = (await cli('user', 'create', '--email', email, '--password', 'password-123')).out[0]!
    const result = await cli(
      'key',
      'create',
      '--email',
      email,
      '--scopes',
      'folders:read,account:read',
      '--label',
      'Laptop script',
    )
    expect(result.code).toBe(0)
    expect(result.err).toEqual([])
    const key = result.out.at(-1)!
    expect(key).toMatch(API_KEY)
    for (const line of result.out.slice(0, -1)) expect(line).not.toContain(key)

    const [stored] = await rows('SELECT * FROM api_keys WHERE user_id = ?', [userId])
    expect(stored).toMatchObject({
      key_hash: sha256Hex(key),
      label: 'Laptop script',
      scopes: '["folders:read","account:read"]',
      revoked_at: null,
    })
    expect(JSON.stringify(await rows('SELECT * FROM api_keys'))).not.toContain(key.slice(4))

    const server = createServer({ db, config: readConfig({ BASE_URL: BASE }), clock, random, log: () => {} })
    const call = (method: string, path: string, body?: unknown) =>
      server.fetch(
        new Request(BASE + path, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        }),
      )
    const folders = await call('GET', '/v1/folders')
    expect(folders.status).toBe(200)
    expect(await folders.json()).toEqual({ folders: [] })
    const me = await call('GET', '/v1/me')
    expect(await me.json()).toEqual({ id: userId, email })
    const capture = await call('POST', '/v1/captures', { url: 'https://example.com/cli' })
    expect(capture.status).toBe(403)
    expect(await capture.json()).toEqual({
      _tag: 'InsufficientScopeError',
      message: expect.any(String),
      requiredScope: 'saved-items:capture',
    })
  })

  test('duplicate scopes and spaces around them are tidied', async () => {
    const email = freshEmail()
    await cli('user', 'create', '--email', email, '--password', 'password-123')
    const result = await cli(
      'key',
      'create',
      '--email',
      email,
      '--scopes',
      'folders:read, folders:read ,account:read',
      '--label',
      'x',
    )
    expect(result.code).toBe(0)
    expect(await rows('SELECT scopes FROM api_keys WHERE key_hash = ?', [sha256Hex(result.out.at(-1)!)])).toEqual([
      { scopes: '["folders:read","account:read"]' },
    ])
  })

  test('an unknown account exits 1 with one stderr line and creates no key', async () => {
    const before = await rows('SELECT count(*) AS n FROM api_keys')
    const result = await cli(
      'key',
      'create',
      '--email',
      'nobody@example.com',
      '--scopes',
      'folders:read',
      '--label',
      'x',
    )
    expect(result).toEqual({ code: 1, out: [], err: [expect.stringContaining('nobody@example.com')] })
    expect(await rows('SELECT count(*) AS n FROM api_keys')).toEqual(before)
  })
})

describe('bad arguments exit 2 with exactly one stderr line and nothing on stdout', () => {
  const existing = 'existing-owner@example.com'
  beforeAll(async () => {
    expect((await cli('user', 'create', '--email', existing, '--password', 'password-123')).code).toBe(0)
  })

  const cases: [string, string[]][] = [
    ['no command', []],
    ['an unknown command', ['user', 'rename', '--email', 'a@example.com']],
    ['user delete without --yes', ['user', 'delete', '--email', 'a@example.com']],
    [
      'user create: both --password and --password-stdin',
      ['user', 'create', '--email', 'new7@example.com', '--password', 'password-123', '--password-stdin'],
    ],
    ['user create: --yes=1 style value on a switch', ['user', 'delete', '--email', 'a@example.com', '--yes=1']],
    ['key revoke: missing --id', ['key', 'revoke']],
    ['backup: missing --to', ['backup']],
    ['restore: a file that does not exist', ['restore', '--from', '/nonexistent/readlater-backup.db']],
    ['an unknown noun', ['frobnicate']],
    ['user create: missing --password', ['user', 'create', '--email', 'new1@example.com']],
    ['user create: missing --email', ['user', 'create', '--password', 'password-123']],
    [
      'user create: an unknown flag',
      ['user', 'create', '--email', 'new2@example.com', '--password', 'password-123', '--admin', 'yes'],
    ],
    ['user create: a positional argument', ['user', 'create', 'new3@example.com', '--password', 'password-123']],
    ['user create: a flag without a value at the end', ['user', 'create', '--password', 'password-123', '--email']],
    ['user create: a flag followed by another flag', ['user', 'create', '--email', '--password', 'password-123']],
    ['user create: a bad email', ['user', 'create', '--email', 'not-an-email', '--password', 'password-123']],
    ['user create: a short password', ['user', 'create', '--email', 'new4@example.com', '--password', 'short']],
    ['key create: missing --label', ['key', 'create', '--email', existing, '--scopes', 'folders:read']],
    [
      'key create: an unknown scope',
      ['key', 'create', '--email', existing, '--scopes', 'folders:read,folders:admin', '--label', 'x'],
    ],
    ['key create: empty scopes', ['key', 'create', '--email', existing, '--scopes', '', '--label', 'x']],
    ['key create: only commas as scopes', ['key', 'create', '--email', existing, '--scopes', ',,', '--label', 'x']],
    [
      'key create: offline_access is not a key scope',
      ['key', 'create', '--email', existing, '--scopes', 'offline_access', '--label', 'x'],
    ],
    ['key create: an empty label', ['key', 'create', '--email', existing, '--scopes', 'folders:read', '--label', '  ']],
    [
      'key create: a label of Hangul fillers and a braille blank only',
      ['key', 'create', '--email', existing, '--scopes', 'folders:read', '--label', '\u3164\u2800 '],
    ],
    [
      'key create: a label over 100 characters',
      ['key', 'create', '--email', existing, '--scopes', 'folders:read', '--label', 'x'.repeat(101)],
    ],
    ['help with an argument', ['help', 'user']],
    [
      'user create: a flag given twice',
      ['user', 'create', '--email', 'new5@example.com', '--email', 'new6@example.com', '--password', 'password-123'],
    ],
  ]
  for (const [name, argv] of cases) {
    test(name, async () => {
      const users = await rows('SELECT count(*) AS n FROM users')
      const keys = await rows('SELECT count(*) AS n FROM api_keys')
      const result = await cli(...argv)
      expect(result.code).toBe(2)
      expect(result.out).toEqual([])
      expect(result.err.length).toBe(1)
      expect(result.err[0]).toMatch(/^error: \S/)
      expect(result.err[0]).not.toContain('\n')
      expect(await rows('SELECT count(*) AS n FROM users')).toEqual(users)
      expect(await rows('SELECT count(*) AS n FROM api_keys')).toEqual(keys)
    })
  }
})

describe('help', () => {
  test('lists every command and the scopes, and exits 0', async () => {
    const result = await cli('help')
    expect(result.code).toBe(0)
    expect(result.err).toEqual([])
    const text = result.out.join('\n')
    for (const command of [
      'bun server.ts user create --email E --password P',
      'bun server.ts key create --email E --scopes s1,s2 --label L',
      'bun server.ts help',
    ]) {
      expect(text).toContain(command)
    }
    for (const scope of ['saved-items:capture', 'folders:delete', 'account:read']) expect(text).toContain(scope)
  })
})

describe('articles refresh', () => {
  async function itemOf(userId: string, id: string, status: string): Promise<void> {
    await db.$client.execute({
      sql: `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, type, tags, enrichment_status, is_read, last_saved_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, 'example.com', 'website', '[]', ?, 0, '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z')`,
      args: [id, userId, `https://example.com/${id}`, `https://example.com/${id}`, status],
    })
    // The capture trigger queued a pending item; enriched and failed ones have no job (the worker dropped it).
    if (status !== 'pending')
      await db.$client.execute({ sql: 'DELETE FROM enrichment_jobs WHERE item_id = ?', args: [id] })
  }

  test('queues the enriched items of one person at low priority, then of everyone; pending, failed and queued items untouched', async () => {
    const email = freshEmail()
    const created = await cli('user', 'create', '--email', email, '--password', 'a long enough password')
    const other = await cli('user', 'create', '--email', freshEmail(), '--password', 'a long enough password')
    const [me, them] = [created.out[0]!, other.out[0]!]
    await itemOf(me, 'refresh-mine-1', 'enriched')
    await itemOf(me, 'refresh-mine-2', 'enriched')
    await itemOf(me, 'refresh-mine-pending', 'pending')
    await itemOf(me, 'refresh-mine-failed', 'failed')
    await itemOf(them, 'refresh-theirs', 'enriched')

    const one = await cli('articles', 'refresh', '--email', email.toUpperCase())
    expect(one).toEqual({ code: 0, out: ['Queued 2 items for article extraction, after live work.'], err: [] })
    const jobs = async () =>
      rows("SELECT item_id, priority FROM enrichment_jobs WHERE item_id LIKE 'refresh-%' ORDER BY item_id")
    expect(await jobs()).toEqual([
      { item_id: 'refresh-mine-1', priority: 1 },
      { item_id: 'refresh-mine-2', priority: 1 },
      { item_id: 'refresh-mine-pending', priority: 0 },
    ])
    const all = await cli('articles', 'refresh', '--all')
    expect(all.code).toBe(0)
    // Already-queued items are not counted again; other people's are.
    expect(all.out).toEqual([expect.stringMatching(/^Queued \d+ items? for article extraction, after live work\.$/)])
    expect((await jobs()).map((job) => job.item_id)).toContain('refresh-theirs')
    const again = await cli('articles', 'refresh', '--email', email)
    expect(again.out).toEqual(['Queued 0 items for article extraction, after live work.'])
  })

  test('an unknown account exits 1; neither or both of --email and --all exit 2', async () => {
    expect(await cli('articles', 'refresh', '--email', 'nobody@example.com')).toEqual({
      code: 1,
      out: [],
      err: ['error: no account with email nobody@example.com'],
    })
    for (const argv of [
      ['articles', 'refresh'],
      ['articles', 'refresh', '--all', '--email', 'a@example.com'],
    ]) {
      const run = await cli(...argv)
      expect(run.code).toBe(2)
      expect(run.err).toEqual(['error: give exactly one of --email E or --all'])
      expect(run.out).toEqual([])
    }
  })
})
