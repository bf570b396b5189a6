import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request, runServerCommand, startServer, type ServerProcess } from './processes.ts'

// docs/enrichment.md: the queue lives in the database and survives a crash. A real `bun server.ts` is killed
// with SIGKILL while its workers are fetching; a new one on the same file finishes every job once the dead
// process's leases run out.

const dir = mkdtempSync(join(tmpdir(), 'readlater-enrich-restart-'))
const env = { DATABASE_URL: `file:${join(dir, 'db.sqlite')}`, ENRICHMENT: 'on', ENRICH_ALLOW_PRIVATE: '1' }
const requests: string[] = []
let stallFirstVisits = true
let fixtures: ReturnType<typeof Bun.serve>
let key = ''
const servers: ServerProcess[] = []

const page = (
  n: string,
) => `<!doctype html><html><head><title>Story ${n}</title><meta property="og:site_name" content="Fixture News">
<meta name="description" content="A story about databases and TypeScript."></head><body><article><p>Paragraph of story ${n}, long enough to read.</p></article></body></html>`

beforeAll(async () => {
  fixtures = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const path = new URL(req.url).pathname
      requests.push(path)
      // The first visit of each page hangs (well inside the 10 s fetch timeout) so the crash lands mid-fetch.
      if (stallFirstVisits) await new Promise((resolve) => setTimeout(resolve, 8_000))
      return new Response(page(path.split('/').pop()!), { headers: { 'content-type': 'text/html; charset=utf-8' } })
    },
  })
  expect(
    (await runServerCommand(['user', 'create', '--email', 'crash@example.com', '--password', 'a long password'], env))
      .code,
  ).toBe(0)
  const created = await runServerCommand(
    [
      'key',
      'create',
      '--email',
      'crash@example.com',
      '--scopes',
      'saved-items:capture,saved-items:read',
      '--label',
      'crash',
    ],
    env,
  )
  key = created.stdout.at(-1)!
}, 30_000)

afterAll(async () => {
  for (const server of servers) await server.stop()
  await fixtures.stop(true)
  rmSync(dir, { recursive: true, force: true })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== null) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

test('a server killed mid-enrichment leaves its jobs to the next one, which finishes them all', async () => {
  const first = await startServer(env)
  servers.push(first)
  const urls = ['one', 'two', 'three'].map((n) => `http://127.0.0.1:${fixtures.port}/stories/${n}`)
  for (const url of urls)
    expect((await request(first.url, 'POST', '/v1/captures', { token: key, body: { url } })).status).toBe(201)

  // All three are being fetched by the first server when it dies.
  await until('three fetches in flight', async () => (requests.length >= 3 ? true : null), 10_000)
  await first.crash()
  expect(requests.sort()).toEqual(['/stories/one', '/stories/three', '/stories/two'])

  stallFirstVisits = false
  const second = await startServer(env)
  servers.push(second)
  const listed = await request(second.url, 'GET', '/v1/saved-items', { token: key })
  expect(listed.body.savedItems.map((item: { enrichmentStatus: string }) => item.enrichmentStatus)).toEqual([
    'pending',
    'pending',
    'pending',
  ])

  // The dead process's leases (45 s, core/enrichment/retry-policy.ts) run out, then the new one takes the jobs over.
  const items = await until(
    'every item enriched',
    async () => {
      const reply = await request(second.url, 'GET', '/v1/saved-items', { token: key })
      const all = reply.body.savedItems as {
        enrichmentStatus: string
        title: string | null
        siteName: string | null
        tags: string[]
        originalUrl: string
      }[]
      return all.every((item) => item.enrichmentStatus === 'enriched') ? all : null
    },
    70_000,
  )
  for (const item of items) {
    const n = item.originalUrl.split('/').pop()
    expect(item).toMatchObject({ title: `Story ${n}`, siteName: 'Fixture News', enrichmentStatus: 'enriched' })
    expect(item.tags).toEqual(expect.arrayContaining(['typescript', 'backend']))
  }
  // Each page was fetched once by each server: the interrupted attempt and the one that finished.
  expect(requests.length).toBe(6)
  expect(second.stdout.some((line) => line.includes('"outcome":"enriched"'))).toBe(true)
}, 90_000)
