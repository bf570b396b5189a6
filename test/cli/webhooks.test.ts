import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli, type CliDeps } from '../../adapters/cli/run-cli.ts'
import { readConfig } from '../../adapters/config.ts'
import { createServer } from '../../adapters/http/app.ts'
import { openDatabase } from '../../adapters/storage/open-database.ts'
import { BASE, TestClock, random } from '../helpers/harness.ts'

// docs/operations.md#admin-cli: `webhook list` and `webhook delete`, on a real database file.

const dir = mkdtempSync(join(tmpdir(), 'readlater-cli-webhooks-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('webhook list shows each webhook without its secret or query; webhook delete removes it', async () => {
  const dbUrl = `file:${join(dir, 'hooks.db')}`
  const db = await openDatabase(dbUrl)
  const clock = new TestClock()
  const deps: CliDeps = {
    openDb: async () => db,
    config: readConfig({ DATABASE_URL: dbUrl }),
    clock,
    random,
    readStdin: async () => 'a long password\n',
    readFile: async () => new Uint8Array(),
  }
  const cli = async (...argv: string[]) => {
    const out: string[] = []
    const err: string[] = []
    const code = await runCli(argv, deps, { out: (line) => out.push(line), err: (line) => err.push(line) })
    return { code, out, err }
  }
  expect((await cli('user', 'create', '--email', 'hooks@example.com', '--password-stdin')).code).toBe(0)
  const key = (
    await cli(
      'key',
      'create',
      '--email',
      'hooks@example.com',
      '--scopes',
      'webhooks:manage,saved-items:capture',
      '--label',
      'h',
    )
  ).out.at(-1)!
  const server = createServer({
    db,
    config: readConfig({ BASE_URL: BASE, DATABASE_URL: dbUrl }),
    clock,
    random,
    log: () => {},
  })
  const call = (method: string, path: string, body?: unknown) =>
    server.fetch(
      new Request(BASE + path, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
  const created = await (
    await call('POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/in?token=s3cret',
      events: ['saved_item.created'],
    })
  ).json()
  await call('POST', '/v1/captures', { url: 'https://a.example/' })

  const listed = await cli('webhook', 'list', '--email', 'hooks@example.com')
  expect(listed.code).toBe(0)
  expect(listed.out).toEqual([
    [
      created.webhook.id,
      'https://hooks.example.com/in?…',
      'saved_item.created',
      clock.now().toISOString(),
      'enabled',
      '1 waiting',
      'last -',
    ].join('\t'),
  ])
  expect(listed.out.join('\n')).not.toContain('s3cret')
  expect(listed.out.join('\n')).not.toContain(created.secret.slice(6))

  const missing = await cli('webhook', 'delete', '--email', 'hooks@example.com', '--id', 'nope')
  expect(missing.code).toBe(1)
  expect(missing.err).toEqual(['error: hooks@example.com has no webhook with id nope'])
  expect((await cli('webhook', 'list', '--email', 'nobody@example.com')).code).toBe(1)
  expect((await cli('webhook', 'delete', '--email', 'hooks@example.com')).code).toBe(2)

  const deleted = await cli('webhook', 'delete', '--email', 'hooks@example.com', '--id', created.webhook.id)
  expect(deleted.code).toBe(0)
  expect((await cli('webhook', 'list', '--email', 'hooks@example.com')).out).toEqual([])
  expect(Number((await db.$client.execute('SELECT count(*) AS n FROM webhook_deliveries')).rows[0]!.n)).toBe(0)
})
