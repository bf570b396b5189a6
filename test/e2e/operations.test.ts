import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import NativeDatabase from 'libsql'
import { request, runServerCommand, startServer } from './processes.ts'

// The admin CLI as an operator runs it, against real `bun server.ts` processes (docs/operations.md).

const dir = mkdtempSync(join(tmpdir(), 'readlater-ops-e2e-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const SCOPES =
  'saved-items:capture,saved-items:read,saved-items:write,saved-items:delete,folders:read,folders:write,folders:delete,account:read'

describe('backup while serving, then restore', () => {
  test('a backup taken during a burst of captures restores to a consistent database that serves', async () => {
    const env = { DATABASE_URL: `file:${join(dir, 'live.db')}`, ENRICHMENT: 'off', RATE_LIMIT_MAX: '100000' }
    expect(
      (
        await runServerCommand(
          ['user', 'create', '--email', 'ops@example.com', '--password-stdin'],
          env,
          'a long password\n',
        )
      ).code,
    ).toBe(0)
    const key = (
      await runServerCommand(['key', 'create', '--email', 'ops@example.com', '--scopes', SCOPES, '--label', 'ops'], env)
    ).stdout.at(-1)!
    const server = await startServer(env)
    const backupFile = join(dir, 'during-burst.db')
    let captured = 0
    let stop = false
    const burst = (async () => {
      const workers = Array.from({ length: 8 }, async (_, worker) => {
        for (let i = 0; !stop; i++) {
          const reply = await request(server.url, 'POST', '/v1/captures', {
            token: key,
            body: { url: `https://example.com/burst/${worker}/${i}`, tags: ['ai'] },
          })
          expect(reply.status).toBe(201)
          captured++
        }
      })
      await Promise.all(workers)
    })()
    while (captured < 200) await Bun.sleep(10)
    const backup = await runServerCommand(['backup', '--to', backupFile], env)
    const atBackup = captured
    while (captured < atBackup + 200) await Bun.sleep(10)
    stop = true
    await burst
    await server.stop()
    expect(backup).toEqual({ code: 0, stdout: [`Backed up to ${backupFile}.`], stderr: [] })

    // Restore into a fresh data directory with the server stopped, then serve from it.
    const restoredEnv = { ...env, DATABASE_URL: `file:${join(dir, 'restored', 'readlater.db')}` }
    const restored = await runServerCommand(['restore', '--from', backupFile], restoredEnv)
    expect(restored.code).toBe(0)
    const native = new NativeDatabase(join(dir, 'restored', 'readlater.db'), { readonly: true })
    expect(native.prepare('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
    const stored = Number((native.prepare('SELECT count(*) AS n FROM saved_items').get() as { n: number }).n)
    const jobs = Number((native.prepare('SELECT count(*) AS n FROM enrichment_jobs').get() as { n: number }).n)
    native.close()
    // Every capture that had answered before the backup started is in it; none after the burst ended.
    expect(stored).toBeGreaterThanOrEqual(200)
    expect(stored).toBeLessThan(captured)
    // Each item and its job were written in one statement: a consistent copy has both or neither.
    expect(jobs).toBe(stored)

    const again = await startServer(restoredEnv)
    try {
      const list = await request(again.url, 'GET', '/v1/saved-items', { token: key })
      expect(list.status).toBe(200)
      expect(list.body.savedItems).toHaveLength(stored)
      for (const item of list.body.savedItems)
        expect(item).toMatchObject({
          id: expect.any(String),
          normalizedUrl: expect.stringMatching(/^https:\/\/example\.com\/burst\//),
          tags: ['ai'],
        })
      const write = await request(again.url, 'POST', '/v1/captures', {
        token: key,
        body: { url: 'https://example.com/after-restore' },
      })
      expect(write.status).toBe(201)
    } finally {
      await again.stop()
    }
  }, 60_000)
})

describe('configuration errors: one line on stderr, exit 2, no stack trace', () => {
  const notADir = join(dir, 'a-regular-file')
  writeFileSync(notADir, 'x')
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      'an unsupported DATABASE_URL scheme',
      { DATABASE_URL: 'postgres://user:secret@db.example/readlater' },
      /^error: DATABASE_URL must start with file:, libsql:, http: or https:, got "postgres:"$/,
    ],
    [
      'an unreachable remote database',
      { DATABASE_URL: 'http://127.0.0.1:1' },
      /^error: cannot reach the database at http:\/\/127\.0\.0\.1:1: /,
    ],
    [
      'an invalid BASE_URL',
      { BASE_URL: 'not a url' },
      /^error: BASE_URL must be an absolute http\(s\) URL, got "not a url"$/,
    ],
    [
      'a BASE_URL with a query',
      { BASE_URL: 'https://read.example.com/?x=1' },
      /^error: BASE_URL must not have a query or fragment/,
    ],
    ['an ftp APP_URL', { APP_URL: 'ftp://read.example.com' }, /^error: APP_URL must be an http\(s\) URL/],
    [
      'a data directory that cannot be created',
      { DATABASE_URL: `file:${join(notADir, 'data', 'readlater.db')}` },
      /^error: cannot create the data directory .*: ENOTDIR$/,
    ],
    [
      'a short ENCRYPTION_KEY',
      { ENCRYPTION_KEY: 'short' },
      /^error: ENCRYPTION_KEY must be at least 32 characters, got 5$/,
    ],
  ]
  for (const [name, env, message] of cases) {
    test(`${name}: the server`, async () => {
      const result = await runServerCommand([], { ENRICHMENT: 'off', PORT: '0', ...env })
      expect(result.code).toBe(2)
      expect(result.stderr).toHaveLength(1)
      expect(result.stderr[0]).toMatch(message)
      expect(result.stderr[0]).not.toContain('secret')
    }, 20_000)
    test(`${name}: the CLI`, async () => {
      const result = await runServerCommand(['user', 'list'], env)
      expect(result.code).toBe(2)
      expect(result.stderr).toEqual([expect.stringMatching(message)])
    }, 20_000)
  }
})
