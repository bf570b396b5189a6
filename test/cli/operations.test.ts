import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli, type CliDeps } from '../../adapters/cli/run-cli.ts'
import { verifyPassword } from '../../adapters/app/passwords.ts'
import { readConfig } from '../../adapters/config.ts'
import { createServer } from '../../adapters/http/app.ts'
import { createSession } from '../../adapters/app/web-sessions.ts'
import { openDatabase, type Database } from '../../adapters/storage/open-database.ts'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { png } from '../fixtures/images/images.ts'
import { BASE, TestClock, random } from '../helpers/harness.ts'
import { authorizeBody } from '../connect/connect-fixtures.ts'

// The operations commands of the admin CLI, in process on a real database file (docs/operations.md#admin-cli).

const dir = mkdtempSync(join(tmpdir(), 'readlater-ops-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let counter = 0
interface Setup {
  deps: CliDeps
  db: Database
  dbUrl: string
  cli(stdin: string, ...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }>
}

async function setup(): Promise<Setup> {
  const dbUrl = `file:${join(dir, `ops-${++counter}.db`)}`
  const db = await openDatabase(dbUrl)
  let stdin = ''
  const deps: CliDeps = {
    openDb: async () => db,
    config: readConfig({ DATABASE_URL: dbUrl }),
    clock: new TestClock(),
    random,
    readStdin: async () => stdin,
    readFile: async (path: string) => new Uint8Array(await Bun.file(path).arrayBuffer()),
  }
  return {
    deps,
    db,
    dbUrl,
    async cli(input, ...argv) {
      stdin = input
      const out: string[] = []
      const err: string[] = []
      const code = await runCli(argv, deps, { out: (line) => out.push(line), err: (line) => err.push(line) })
      return { code, out, err }
    },
  }
}

let s: Setup
beforeEach(async () => {
  s = await setup()
})

const count = async (table: string): Promise<number> =>
  Number((await s.db.$client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n)
const http = (method: string, path: string, token: string, body?: unknown) =>
  createServer({
    db: s.db,
    config: readConfig({ BASE_URL: BASE, DATABASE_URL: s.dbUrl }),
    clock: s.deps.clock,
    random,
    log: () => {},
  }).fetch(
    new Request(BASE + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )

async function person(email: string): Promise<{ id: string; key: string }> {
  const created = await s.cli('a long password\n', 'user', 'create', '--email', email, '--password-stdin')
  expect(created.code).toBe(0)
  const key = await s.cli(
    '',
    'key',
    'create',
    '--email',
    email,
    '--scopes',
    'saved-items:capture,saved-items:read,account:read',
    '--label',
    'laptop',
  )
  return { id: created.out[0]!, key: key.out.at(-1)! }
}

describe('user create --password-stdin', () => {
  test('reads the password from stdin, without its line ending', async () => {
    const { id } = await person('stdin@example.com')
    const row = (await s.db.$client.execute({ sql: 'SELECT password_hash FROM users WHERE id = ?', args: [id] }))
      .rows[0]!
    expect(await verifyPassword(String(row.password_hash), 'a long password')).toBe(true)
    expect(await verifyPassword(String(row.password_hash), 'a long password\n')).toBe(false)
  })

  test('a short password on stdin is exit 2, nothing created', async () => {
    expect(await s.cli('short\n', 'user', 'create', '--email', 'short@example.com', '--password-stdin')).toMatchObject({
      code: 2,
      out: [],
      err: [expect.stringMatching(/^error: password must be at least 8/)],
    })
    expect(await count('users')).toBe(0)
  })
})

describe('user list', () => {
  test('one tab-separated line per person: id, email, created, item count, bytes of archived images', async () => {
    const a = await person('a@example.com')
    const b = await person('b@example.com')
    expect((await http('POST', '/v1/captures', a.key, { url: 'https://example.com/1' })).status).toBe(201)
    const second = await http('POST', '/v1/captures', a.key, { url: 'https://example.com/2' })
    expect(second.status).toBe(201)
    // One archived image of the second item, as enrichment stores it (docs/reading.md#archived-images).
    const image = png(2, 2)
    const article = { title: null, byline: null, siteName: null, lang: null, html: '<p>x</p>', text: 'x', wordCount: 1 }
    await storeArticle(s.db, (await second.json()).savedItem.id, article, '2026-11-22T10:00:00.000Z', null, {
      keep: [],
      add: [{ n: 1, originalUrl: 'https://example.com/a.png', mediaType: 'image/png', bytes: image }],
    })
    const listed = await s.cli('', 'user', 'list')
    expect(listed).toEqual({
      code: 0,
      err: [],
      out: [
        `${a.id}\ta@example.com\t2026-11-22T10:00:00.000Z\t2\t${image.length}`,
        `${b.id}\tb@example.com\t2026-11-22T10:00:00.000Z\t0\t0`,
      ],
    })
  })
})

describe('user password', () => {
  test('sets the password from stdin (never argv) and ends every web session of that person only', async () => {
    const a = await person('pw@example.com')
    const b = await person('other@example.com')
    await createSession({ db: s.db, clock: s.deps.clock, random }, a.id)
    await createSession({ db: s.db, clock: s.deps.clock, random }, a.id)
    await createSession({ db: s.db, clock: s.deps.clock, random }, b.id)
    const changed = await s.cli('the new password\n', 'user', 'password', '--email', 'PW@example.com')
    expect(changed).toEqual({ code: 0, err: [], out: ['Password changed for pw@example.com; 2 web sessions ended.'] })
    const row = (await s.db.$client.execute({ sql: 'SELECT password_hash FROM users WHERE id = ?', args: [a.id] }))
      .rows[0]!
    expect(await verifyPassword(String(row.password_hash), 'the new password')).toBe(true)
    expect(await count('web_sessions')).toBe(1)
  })

  test('a flag for the password is refused (exit 2), an unknown account exit 1', async () => {
    expect((await s.cli('', 'user', 'password', '--email', 'x@example.com', '--password', 'on argv')).code).toBe(2)
    expect(await s.cli('a long password\n', 'user', 'password', '--email', 'nobody@example.com')).toEqual({
      code: 1,
      out: [],
      err: ['error: no account with email nobody@example.com'],
    })
  })
})

describe('user delete', () => {
  test('--yes removes the person and everything of theirs; the email can be used again', async () => {
    const a = await person('gone@example.com')
    const b = await person('stays@example.com')
    await http('POST', '/v1/captures', a.key, { url: 'https://example.com/gone' })
    await http('POST', '/v1/captures', b.key, { url: 'https://example.com/stays' })
    const deleted = await s.cli('', 'user', 'delete', '--email', 'gone@example.com', '--yes')
    expect(deleted).toEqual({ code: 0, err: [], out: [`Deleted gone@example.com (${a.id}) and everything of theirs.`] })
    expect(await count('users')).toBe(1)
    expect(await count('saved_items')).toBe(1)
    expect(await count('api_keys')).toBe(1)
    expect((await http('GET', '/v1/me', a.key)).status).toBe(401)
    expect((await http('GET', '/v1/me', b.key)).status).toBe(200)
    expect(
      (await s.cli('a long password\n', 'user', 'create', '--email', 'gone@example.com', '--password-stdin')).code,
    ).toBe(0)
  })

  test('without --yes: exit 2, nothing removed', async () => {
    await person('kept@example.com')
    expect(await s.cli('', 'user', 'delete', '--email', 'kept@example.com')).toMatchObject({
      code: 2,
      out: [],
      err: [expect.stringContaining('--yes')],
    })
    expect(await count('users')).toBe(1)
  })
})

describe('key list and key revoke', () => {
  test('lists id, label, scopes, created, last used and origin (never the key); revoke cascades to keys issued through it', async () => {
    const a = await person('keys@example.com')
    const code = (
      await (
        await http(
          'POST',
          '/connect/authorize',
          a.key,
          authorizeBody({ scopes: ['saved-items:read'], codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' }),
        )
      ).json()
    ).code
    const issued = await (
      await createServer({
        db: s.db,
        config: readConfig({ BASE_URL: BASE, DATABASE_URL: s.dbUrl }),
        clock: s.deps.clock,
        random,
        log: () => {},
      }).fetch(
        new Request(`${BASE}/connect/exchange`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client: 'chrome-extension',
            code,
            codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
          }),
        }),
        { clientIp: '127.0.0.1' },
      )
    ).json()
    const listed = await s.cli('', 'key', 'list', '--email', 'keys@example.com')
    expect(listed.code).toBe(0)
    expect(listed.out).toHaveLength(2)
    // Both keys were made in the same (test) millisecond: find each by its label.
    const rows = listed.out.map((line) => line.split('\t'))
    const personal = rows.find((row) => row[1] === 'laptop')
    const connected = rows.find((row) => row[1] === 'Chrome on my laptop')
    expect(personal).toEqual([
      expect.any(String),
      'laptop',
      'saved-items:capture,saved-items:read,account:read',
      '2026-11-22T10:00:00.000Z',
      '2026-11-22T10:00:00.000Z',
      'personal',
    ])
    expect(connected).toEqual([
      expect.any(String),
      'Chrome on my laptop',
      'saved-items:read',
      '2026-11-22T10:00:00.000Z',
      '-',
      'issued by key "laptop"',
    ])
    expect(listed.out.join('\n')).not.toContain(a.key)
    expect(listed.out.join('\n')).not.toContain(issued.apiKey)

    const revoked = await s.cli('', 'key', 'revoke', '--id', personal![0]!)
    expect(revoked).toEqual({
      code: 0,
      err: [],
      out: [`Revoked API key ${personal![0]} and the keys issued through it.`],
    })
    expect((await http('GET', '/v1/me', a.key)).status).toBe(401)
    expect((await http('GET', '/v1/saved-items', issued.apiKey)).status).toBe(401)
    expect((await s.cli('', 'key', 'list', '--email', 'keys@example.com')).out).toEqual([])
    expect(await s.cli('', 'key', 'revoke', '--id', personal![0]!)).toEqual({
      code: 1,
      out: [],
      err: [`error: no API key in force with id ${personal![0]}`],
    })
  })
})

describe('backup and restore (in process)', () => {
  test('backup writes a consistent copy; it refuses an existing file; restore keeps the current file aside', async () => {
    const a = await person('backup@example.com')
    await http('POST', '/v1/captures', a.key, { url: 'https://example.com/before' })
    const file = join(dir, `copy-${counter}.db`)
    expect(await s.cli('', 'backup', '--to', file)).toEqual({ code: 0, err: [], out: [`Backed up to ${file}.`] })
    expect((await s.cli('', 'backup', '--to', file)).code).toBe(2)
    await http('POST', '/v1/captures', a.key, { url: 'https://example.com/after' })
    s.db.$client.close()
    const restored = await s.cli('', 'restore', '--from', file)
    const target = s.dbUrl.slice('file:'.length)
    expect(restored).toEqual({
      code: 0,
      err: [],
      out: [`Restored ${file} into ${target}; the previous database is kept as ${target}.before-restore.`],
    })
    expect(existsSync(`${target}.before-restore`)).toBe(true)
    const back = await openDatabase(s.dbUrl)
    const urls = (await back.$client.execute('SELECT original_url FROM saved_items')).rows.map(
      (row) => row.original_url,
    )
    expect(urls).toEqual(['https://example.com/before'])
    const aside = await openDatabase(`file:${target}.before-restore`)
    expect((await aside.$client.execute('SELECT count(*) AS n FROM saved_items')).rows[0]!.n).toBe(2)
    back.$client.close()
    aside.$client.close()
  })

  test('restore refuses a file that is not a database, one of another application, and a newer schema', async () => {
    const junk = join(dir, 'junk.db')
    writeFileSync(junk, 'not a database at all, just text '.repeat(200))
    expect(await s.cli('', 'restore', '--from', junk)).toMatchObject({
      code: 1,
      err: [expect.stringMatching(/cannot be restored: /)],
    })
    const other = await openDatabase(`file:${join(dir, 'other.db')}`)
    other.$client.close()
    const foreign = join(dir, 'foreign.db')
    const { default: Native } = await import('libsql')
    const native = new Native(foreign)
    native.exec('CREATE TABLE notes (id INTEGER)')
    native.close()
    expect(await s.cli('', 'restore', '--from', foreign)).toMatchObject({
      code: 1,
      err: [expect.stringContaining('not a Readlater database')],
    })
    const newer = join(dir, 'newer.db')
    expect((await s.cli('', 'backup', '--to', newer)).code).toBe(0)
    const edit = new Native(newer)
    edit.exec("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('future', 99999999999999)")
    edit.close()
    expect(await s.cli('', 'restore', '--from', newer)).toMatchObject({
      code: 1,
      err: [expect.stringContaining('newer than this build')],
    })
  })

  test('backup and restore refuse a remote database with exit 2', async () => {
    const remote = { ...s.deps, config: readConfig({ DATABASE_URL: 'libsql://example.turso.io' }) }
    for (const argv of [
      ['backup', '--to', join(dir, 'r.db')],
      ['restore', '--from', join(dir, 'junk.db')],
    ]) {
      const err: string[] = []
      expect(await runCli(argv, remote, { out: () => {}, err: (line) => err.push(line) })).toBe(2)
      expect(err).toEqual([expect.stringMatching(/^error: (backup|restore) works on the embedded file database only/)])
    }
  })
})
