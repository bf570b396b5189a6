import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENDPOINT_RULES } from '../http/endpoint-table.ts'
import { runServerCommand, startServer, type ServerProcess } from './processes.ts'

// Regression for an unauthenticated denial of service: 32 KB of `[` once blocked the server for 15 s and
// took 2 GB while the framework pretty-printed the rejected value (docs/api.md#hostile-input). The server
// runs without NODE_ENV=production here on purpose: the guard alone must stop such bodies.

const dir = mkdtempSync(join(tmpdir(), 'readlater-nesting-'))
const env = { DATABASE_URL: `file:${join(dir, 'x.db')}`, ENRICHMENT: 'off', IP_RATE_LIMIT_MAX: '1000' }
// Unclosed, and balanced (valid JSON 16,384 levels deep, which is what took seconds before).
const BODIES = { unclosed: '['.repeat(64 * 1024), balanced: '['.repeat(16 * 1024) + ']'.repeat(16 * 1024) }
let server: ServerProcess
let key: string

/** Every route that takes a JSON body: the guard's table, plus client registration. */
const JSON_ROUTES = [
  ...ENDPOINT_RULES.filter((rule) => rule.jsonBody).map((rule) => ({
    method: rule.method,
    path: rule.pattern.replace(':id', '01900000-0000-7000-8000-000000000000'),
  })),
  { method: 'POST', path: '/api/auth/oauth2/register' },
]

beforeAll(async () => {
  server = await startServer(env)
  const email = 'nesting@example.com'
  expect(
    (await runServerCommand(['user', 'create', '--email', email, '--password', 'a long password'], env)).code,
  ).toBe(0)
  const scopes =
    'saved-items:capture,saved-items:read,saved-items:write,saved-items:delete,folders:read,folders:write,folders:delete,account:read,webhooks:manage'
  key = (
    await runServerCommand(['key', 'create', '--email', email, '--scopes', scopes, '--label', 'k'], env)
  ).stdout.at(-1)!
}, 20_000)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function post(method: string, path: string, payload: string): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now()
  const response = await fetch(server.url + path, {
    method,
    body: payload,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  })
  const body = await response.json()
  return { status: response.status, body, ms: performance.now() - started }
}

describe('deeply nested "[" on every JSON route', () => {
  test('the route table lists them all (new JSON routes are covered automatically)', () => {
    expect(JSON_ROUTES.map((r) => `${r.method} ${r.path.replace(/\/0190[^/]+/, '/:id')}`).sort()).toEqual([
      'PATCH /v1/folders/:id',
      'PATCH /v1/highlights/:id',
      'POST /api/auth/oauth2/register',
      'POST /connect/authorize',
      'POST /connect/exchange',
      'POST /mcp',
      'POST /v1/captures',
      'POST /v1/folders',
      'POST /v1/saved-items/:id/highlights',
      'POST /v1/saved-items/:id/read-state',
      'POST /v1/webhooks',
      'PUT /v1/saved-items/:id/folder',
      'PUT /v1/saved-items/:id/progress',
      'PUT /v1/saved-items/:id/tags',
    ])
  })

  for (const [shape, nested] of Object.entries(BODIES))
    for (const route of JSON_ROUTES) {
      test(`${route.method} ${route.path}, ${shape}: 400 at once, and /health answers meanwhile`, async () => {
        const attack = post(route.method, route.path, nested)
        const healthStarted = performance.now()
        const health = await fetch(`${server.url}/health`)
        const healthMs = performance.now() - healthStarted
        const reply = await attack
        expect(health.status).toBe(200)
        if (route.path.startsWith('/api/auth/')) {
          expect(reply).toMatchObject({
            status: 400,
            body: { error: 'invalid_client_metadata', error_description: 'The body is nested deeper than 32 levels' },
          })
        } else {
          expect(reply).toMatchObject({
            status: 400,
            body: { _tag: 'ValidationError', message: 'body: nested deeper than 32 levels' },
          })
        }
        // Loose bounds on a shared machine; before the fix one such request took 14.7 s.
        expect(reply.ms).toBeLessThan(1500)
        expect(healthMs).toBeLessThan(1500)
      })
    }

  test('the server stays small after all of them', async () => {
    const pid = server.pid
    const status = await Bun.file(`/proc/${pid}/status`).text()
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? '0')
    expect(rssKiB).toBeGreaterThan(0)
    expect(rssKiB).toBeLessThan(600 * 1024)
  })
})
