import { describe, expect, test } from 'bun:test'
import { ipLimitOf } from '../../adapters/http/guard.ts'
import { createHarness } from '../helpers/harness.ts'

// The per-IP limits are route options (the guard's `ipLimit`, docs/api.md#rate-limits): the table below is
// read off the built app's routes, and each limited route refuses in its own format, before its body is
// read, in a bucket of its own.

const LIMITED = [
  'GET /api/auth/oauth2/authorize page',
  'GET /connect page',
  'POST /api/auth/oauth2/consent page',
  'POST /api/auth/oauth2/register oauth',
  'POST /api/auth/oauth2/revoke oauth',
  'POST /api/auth/oauth2/token oauth',
  'POST /connect page',
  'POST /connect/exchange api',
  'POST /sign-in page',
  'POST /sign-up page',
]

const MESSAGE = /^Rate limit of 1 requests per 60 s exceeded; retry in \d+ s$/

describe('per-IP limited routes', () => {
  test('the routes that state an ipLimit are exactly the documented endpoints', async () => {
    const h = await createHarness()
    const routes = (
      h.server.app as unknown as { routes: { method: string; path: string; hooks?: { transform?: unknown } }[] }
    ).routes
    const limited = routes.flatMap((route) => {
      const format = ipLimitOf(route)
      return format ? [`${route.method} ${route.path} ${format}`] : []
    })
    expect(limited.sort()).toEqual(LIMITED)
  })

  test('each refuses its second request in its own format, with the RateLimit headers, before reading the body', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1' } })
    // Past the limit even a body over every cap is refused by the limit, not by its size.
    const huge = 'x'.repeat(6 * 1024 * 1024)
    for (const entry of LIMITED) {
      const [method, path, format] = entry.split(' ') as [string, string, string]
      const body = method === 'POST' ? { raw: huge, headers: { 'content-type': 'application/json' } } : {}
      const first = await h.call(method, path, { ...(method === 'POST' ? { raw: '{}' } : {}), unchecked: true })
      expect({
        entry,
        limit: first.headers.get('ratelimit-limit'),
        remaining: first.headers.get('ratelimit-remaining'),
      }).toEqual({ entry, limit: '1', remaining: '0' })
      const refused = await h.call(method, path, { ...body, unchecked: true })
      expect({
        entry,
        status: refused.status,
        retryAfter: refused.headers.get('retry-after'),
        reset: refused.headers.get('ratelimit-reset'),
        cache: refused.headers.get('cache-control'),
        requestId: refused.headers.get('x-request-id') !== null,
      }).toEqual({
        entry,
        status: 429,
        retryAfter: expect.stringMatching(/^\d+$/),
        reset: refused.headers.get('retry-after'),
        cache: 'no-store',
        requestId: true,
      })
      if (format === 'api')
        expect(refused.body).toEqual({ _tag: 'RateLimitExceeded', message: expect.stringMatching(MESSAGE) })
      if (format === 'oauth') {
        expect(refused.body).toEqual({
          error: 'rate_limit_exceeded',
          error_description: expect.stringMatching(MESSAGE),
        })
        expect(refused.headers.get('content-type')).toStartWith('application/json')
      }
      if (format === 'page') {
        expect(refused.headers.get('content-type')).toStartWith('text/html')
        expect(refused.text).toContain('Too many attempts')
      }
    }
    const buckets = await h.db.$client.execute("SELECT bucket, count FROM rate_limits WHERE bucket LIKE 'ip:%'")
    // A bucket is a path's: GET and POST /connect (the connect page and its form) share one, 2 requests each.
    const perPath = new Map<string, number>()
    for (const entry of LIMITED) perPath.set(entry.split(' ')[1]!, (perPath.get(entry.split(' ')[1]!) ?? 0) + 2)
    expect(buckets.rows.map((row) => `${row.bucket} ${row.count}`).sort()).toEqual(
      [...perPath].map(([path, count]) => `ip:${path}:127.0.0.1 ${count}`).sort(),
    )
  })
})
