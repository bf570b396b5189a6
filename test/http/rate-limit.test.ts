import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { SharedRateLimiter, SYNC_INTERVAL_MS } from '../../adapters/app/rate-limiter.ts'
import { createHarness, TestClock, type Harness, type Reply, type TestUser } from '../helpers/harness.ts'

const env = { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_S: '60' }

let h: Harness
let person: TestUser
let token: string

beforeEach(async () => {
  h = await createHarness({ env })
  person = await h.user()
  token = await person.key()
})

function limitHeaders(reply: Reply) {
  return {
    limit: reply.headers.get('ratelimit-limit'),
    remaining: reply.headers.get('ratelimit-remaining'),
    reset: reply.headers.get('ratelimit-reset'),
    retryAfter: reply.headers.get('retry-after'),
  }
}

function expectLimited(reply: Reply): void {
  expect(reply.status).toBe(429)
  expect(reply.body).toEqual({ _tag: 'RateLimitExceeded', message: expect.any(String) })
  const headers = limitHeaders(reply)
  expect(headers.limit).toBe('3')
  expect(headers.remaining).toBe('0')
  expect(headers.retryAfter).toBe(headers.reset)
  expect(Number(headers.reset)).toBeGreaterThanOrEqual(1)
  expect(Number(headers.reset)).toBeLessThanOrEqual(60)
}

async function keyId(key: string): Promise<string> {
  const result = await h.db.$client.execute({
    sql: 'SELECT id FROM api_keys WHERE key_hash = ?',
    args: [hashApiKey(key)],
  })
  return String(result.rows[0]!.id)
}

describe('rate limit headers', () => {
  test('every authenticated response carries RateLimit-Limit/Remaining/Reset counting down, and the 4th is 429 with Retry-After', async () => {
    h.clock.advance(30_500) // 29.5 s left in the minute: Reset rounds up to 30
    const replies = [
      await h.call('GET', '/v1/folders', { token }),
      await h.call('POST', '/v1/folders', { token, body: { name: 'One' } }),
      await h.call('GET', '/v1/me', { token }),
    ]
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200])
    expect(replies.map(limitHeaders)).toEqual([
      { limit: '3', remaining: '2', reset: '30', retryAfter: null },
      { limit: '3', remaining: '1', reset: '30', retryAfter: null },
      { limit: '3', remaining: '0', reset: '30', retryAfter: null },
    ])
    h.clock.advance(9_000)
    const fourth = await h.call('POST', '/v1/folders', { token, body: { name: 'Two' } })
    expectLimited(fourth)
    expect(limitHeaders(fourth).reset).toBe('21')
    const folders = await h.db.$client.execute({ sql: 'SELECT name FROM folders WHERE user_id = ?', args: [person.id] })
    expect(folders.rows.map((row) => row.name)).toEqual(['One'])
  })

  test('error answers of authenticated calls (403, 404, 400) carry the headers too and count', async () => {
    const narrow = await person.key(['account:read'])
    const forbidden = await h.call('GET', '/v1/folders', { token: narrow })
    expect(forbidden.status).toBe(403)
    expect(limitHeaders(forbidden)).toMatchObject({ limit: '3', remaining: '2', reset: '60' })
    const notFound = await h.call('POST', '/v1/saved-items/no-such-item/read', { token })
    expect(notFound.status).toBe(404)
    expect(limitHeaders(notFound)).toMatchObject({ limit: '3', remaining: '2', reset: '60' })
    const invalid = await h.call('POST', '/v1/captures', { token, body: { url: 'ftp://example.com/file' } })
    expect(invalid.status).toBe(400)
    expect(limitHeaders(invalid)).toMatchObject({ limit: '3', remaining: '1' })
  })

  test('a 429 keeps answering 429 for the rest of the window, whatever the route or scope', async () => {
    for (let i = 0; i < 3; i++) expect((await h.call('GET', '/v1/me', { token })).status).toBe(200)
    expectLimited(await h.call('GET', '/v1/me', { token }))
    expectLimited(await h.call('POST', '/v1/captures', { token, body: { url: 'https://example.com/limited' } }))
    expectLimited(await h.call('DELETE', '/v1/folders/whatever', { token }))
    const rows = await h.db.$client.execute('SELECT count(*) AS n FROM saved_items')
    expect(Number(rows.rows[0]!.n)).toBe(0)
  })

  test('unauthenticated answers (401) and the public /health carry no RateLimit headers', async () => {
    for (const path of ['/health', '/v1/health']) {
      const reply = await h.call('GET', path)
      expect(reply.status).toBe(200)
      expect(limitHeaders(reply)).toEqual({ limit: null, remaining: null, reset: null, retryAfter: null })
    }
    const unauthorized = await h.call('GET', '/v1/folders')
    expect(unauthorized.status).toBe(401)
    expect(limitHeaders(unauthorized)).toEqual({ limit: null, remaining: null, reset: null, retryAfter: null })
    const rows = await h.db.$client.execute('SELECT count(*) AS n FROM rate_limits')
    expect(Number(rows.rows[0]!.n)).toBe(0)
  })
})

describe('rate limit buckets', () => {
  test('are per credential: a second key of the same person has its own bucket', async () => {
    const second = await person.key()
    for (let i = 0; i < 3; i++) expect((await h.call('GET', '/v1/folders', { token })).status).toBe(200)
    expectLimited(await h.call('GET', '/v1/folders', { token }))
    const other = await h.call('GET', '/v1/folders', { token: second })
    expect(other.status).toBe(200)
    expect(limitHeaders(other)).toMatchObject({ limit: '3', remaining: '2' })
  })

  test('a new window starts a new count', async () => {
    for (let i = 0; i < 3; i++) await h.call('GET', '/v1/folders', { token })
    expectLimited(await h.call('GET', '/v1/folders', { token }))
    h.clock.advance(59_999)
    const lastMoment = await h.call('GET', '/v1/folders', { token })
    expectLimited(lastMoment)
    expect(limitHeaders(lastMoment).reset).toBe('1')
    h.clock.advance(1)
    const next = await h.call('GET', '/v1/folders', { token })
    expect(next.status).toBe(200)
    expect(limitHeaders(next)).toEqual({ limit: '3', remaining: '2', reset: '60', retryAfter: null })
  })

  test('the counter lives in the rate_limits table, keyed by the credential: the first request writes it, the rest within SYNC_INTERVAL_MS are written back by the flush', async () => {
    const counted = async () =>
      (await h.db.$client.execute('SELECT bucket, window_start_ms, count FROM rate_limits')).rows.map(
        (row) => ({ ...row }) as Record<string, unknown>,
      )
    const bucket = `cred:key:${await keyId(token)}`
    await h.call('GET', '/v1/folders', { token })
    await h.call('GET', '/v1/me', { token })
    expect(await counted()).toEqual([{ bucket, window_start_ms: h.clock.current, count: 1 }])
    await Bun.sleep(SYNC_INTERVAL_MS + 100)
    const rows = await counted()
    expect(rows).toEqual([{ bucket, window_start_ms: h.clock.current, count: 2 }])
    expect(JSON.stringify(rows)).not.toContain(token)
  })
})

describe('rate limits shared through the database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'readlater-rate-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('two servers on one database file enforce one limit: A, B, A pass, then B and A get 429, each a sync interval apart', async () => {
    const dbUrl = `file:${join(dir, 'shared.db')}`
    // One clock for both: each call comes a sync interval later, so each reads the global count.
    const clock = new TestClock()
    const a = await createHarness({ env, dbUrl, clock })
    const b = await createHarness({ env, dbUrl, clock })
    const key = await (await a.user()).key()
    const replies: Reply[] = []
    const call = async (server: Harness) => {
      clock.advance(SYNC_INTERVAL_MS)
      const reply = await server.call('GET', '/v1/folders', { token: key })
      replies.push(reply)
      return reply
    }
    for (const server of [a, b, a]) await call(server)
    expect(replies.map((reply) => [reply.status, reply.headers.get('ratelimit-remaining')])).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
    ])
    const limited = await call(b)
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ _tag: 'RateLimitExceeded', message: expect.any(String) })
    expect(limited.headers.get('retry-after')).toBe(limited.headers.get('ratelimit-reset'))
    expect((await call(a)).status).toBe(429)
    a.db.$client.close()
    b.db.$client.close()
  })

  test('within one sync interval, B admits at most what A counted since its last sync (the documented bound), and one process alone refuses request RATE_LIMIT_MAX + 1', async () => {
    const dbUrl = `file:${join(dir, 'bound.db')}`
    const clock = new TestClock()
    const a = await createHarness({ env, dbUrl, clock })
    const b = await createHarness({ env, dbUrl, clock })
    const key = await (await a.user()).key()
    const statuses = async (server: Harness, n: number) => {
      const out: number[] = []
      for (let i = 0; i < n; i++) out.push((await server.call('GET', '/v1/folders', { token: key })).status)
      return out
    }
    // A alone is exact: its first request writes 1, the next two count in memory, the fourth is refused.
    expect(await statuses(a, 4)).toEqual([200, 200, 200, 429])
    // B reads the database on its first request: at least A's first request, at most all four if A's flush
    // already ran. What B admits is bounded by what A counted since its last sync (3), and B itself is exact.
    const fromB = await statuses(b, 4)
    const admittedByB = fromB.filter((status) => status === 200).length
    expect(admittedByB).toBeLessThanOrEqual(2)
    expect(fromB.slice(admittedByB).every((status) => status === 429)).toBe(true)
    // After both flushed and a sync interval passed, each reads the global count and refuses.
    await Bun.sleep(SYNC_INTERVAL_MS + 100)
    clock.advance(SYNC_INTERVAL_MS)
    expect(await statuses(a, 1)).toEqual([429])
    expect(await statuses(b, 1)).toEqual([429])
    const [row] = (await a.db.$client.execute("SELECT count FROM rate_limits WHERE bucket LIKE 'cred:%'")).rows
    expect(Number(row!.count)).toBe(10)
    a.db.$client.close()
    b.db.$client.close()
  })
})

describe('SharedRateLimiter', () => {
  test('forgets a bucket a sync interval after its last request, so credentials seen once are not kept', async () => {
    const h = await createHarness({ env })
    const clock = new TestClock()
    const limiter = new SharedRateLimiter(h.db, clock, () => {})
    for (let i = 0; i < 20; i++) await limiter.hit(`cred:once-${i}`, { limit: 3, windowSeconds: 60 })
    expect(limiter.size).toBe(20)
    clock.advance(SYNC_INTERVAL_MS)
    await Bun.sleep(SYNC_INTERVAL_MS + 100)
    expect(limiter.size).toBe(0)
    // Forgetting loses nothing: the counts are in the database, and the next request reads them back.
    expect((await limiter.hit('cred:once-0', { limit: 3, windowSeconds: 60 })).remaining).toBe(1)
  })
})
