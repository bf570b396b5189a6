import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readPage } from '../fixtures/pages/read-page.ts'
import { DENO_SERVER, request, runServerCommand, startServer, type ServerProcess } from './processes.ts'

// Deno-portable, not just in name: the same server.ts served by Deno.serve on the same database file
// the Bun CLI wrote, with per-IP limits fed by Deno's remote address.

const dir = mkdtempSync(join(tmpdir(), 'readlater-deno-'))
// Enrichment on: a capture with its page is read without any fetch (docs/reading.md#page-capture).
const env = { DATABASE_URL: `file:${join(dir, 'x.db')}`, IP_RATE_LIMIT_MAX: '2', ENRICHMENT: 'on' }
let server: ServerProcess | undefined
let key: string

beforeAll(async () => {
  expect(
    (await runServerCommand(['user', 'create', '--email', 'deno@example.com', '--password', 'a long password'], env))
      .code,
  ).toBe(0)
  const created = await runServerCommand(
    [
      'key',
      'create',
      '--email',
      'deno@example.com',
      '--scopes',
      'saved-items:capture,saved-items:read',
      '--label',
      'deno',
    ],
    env,
  )
  key = created.stdout.at(-1)!
  server = await startServer(env, DENO_SERVER)
}, 60_000)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('deno run server.ts', () => {
  test('serves the API: capture, recapture, list, 401 and 403 answer as on Bun', async () => {
    const first = await request(server!.url, 'POST', '/v1/captures', {
      token: key,
      body: { url: 'https://www.example.com/deno/?utm_source=x' },
    })
    expect(first.status).toBe(201)
    expect(first.body.savedItem.normalizedUrl).toBe('https://example.com/deno')
    const again = await request(server!.url, 'POST', '/v1/captures', {
      token: key,
      body: { url: 'https://example.com/deno' },
    })
    expect(again.status).toBe(200)
    expect(again.body.savedItem.id).toBe(first.body.savedItem.id)
    const list = await request(server!.url, 'GET', '/v1/saved-items', { token: key })
    expect(list.body.savedItems.map((item: { id: string }) => item.id)).toEqual([first.body.savedItem.id])
    expect((await request(server!.url, 'GET', '/v1/saved-items')).status).toBe(401)
    expect((await request(server!.url, 'GET', '/v1/folders', { token: key })).status).toBe(403)
  })

  test("a capture with the page gets its article from Deno's extraction thread, as HTML and Markdown", async () => {
    const html = new TextDecoder().decode(readPage('article'))
    const saved = await request(server!.url, 'POST', '/v1/captures', {
      token: key,
      body: { url: 'https://example.com/deno-article', html },
    })
    expect(saved.status).toBe(201)
    const path = `/v1/saved-items/${saved.body.savedItem.id}/content`
    let content = await request(server!.url, 'GET', path, { token: key })
    for (let i = 0; i < 300 && content.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      content = await request(server!.url, 'GET', path, { token: key })
    }
    expect(content.status).toBe(200)
    expect(content.body.byline).toBe('Ada Example')
    expect(content.body.wordCount).toBe(148)
    const markdown = await request(server!.url, 'GET', `${path}?format=markdown`, { token: key })
    expect(markdown.body.markdown).toStartWith('By [Ada Example](https://example.com/authors/ada)')
  }, 30_000)

  test('per-IP limits see the client address (IP_RATE_LIMIT_MAX=2)', async () => {
    const body = { client: 'raycast', code: 'c'.repeat(43), codeVerifier: 'v'.repeat(43) }
    const statuses = []
    for (let i = 0; i < 3; i++)
      statuses.push((await request(server!.url, 'POST', '/connect/exchange', { body })).status)
    expect(statuses).toEqual([400, 400, 429])
  })

  test('the web app and OAuth metadata are served too', async () => {
    expect((await request(server!.url, 'GET', '/sign-in')).status).toBe(200)
    const metadata = await request(server!.url, 'GET', '/.well-known/oauth-authorization-server/api/auth')
    expect(metadata.body.issuer).toBe(`${server!.base}/api/auth`)
  })
})
