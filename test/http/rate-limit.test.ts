import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { createHarness, type Harness, type Reply, type TestUser } from '../helpers/harness.ts'

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

  test('the counter lives in the rate_limits table, keyed by the credential', async () => {
    await h.call('GET', '/v1/folders', { token })
    await h.call('GET', '/v1/me', { token })
    const result = await h.db.$client.execute('SELECT bucket, window_start_ms, count FROM rate_limits')
    expect(result.rows.map((row) => ({ ...row }) as Record<string, unknown>)).toEqual([
      { bucket: `cred:key:${await keyId(token)}`, window_start_ms: h.clock.current, count: 2 },
    ])
    expect(JSON.stringify(result.rows)).not.toContain(token)
  })
})

describe('rate limits shared through the database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'readlater-rate-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('two servers on one database file enforce one limit: A, B, A pass, then B gets 429', async () => {
    const dbUrl = `file:${join(dir, 'shared.db')}`
    const a = await createHarness({ env, dbUrl })
    const b = await createHarness({ env, dbUrl })
    const key = await (await a.user()).key()
    const replies = [
      await a.call('GET', '/v1/folders', { token: key }),
      await b.call('GET', '/v1/folders', { token: key }),
      await a.call('GET', '/v1/folders', { token: key }),
    ]
    expect(replies.map((reply) => [reply.status, reply.headers.get('ratelimit-remaining')])).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
    ])
    const limited = await b.call('GET', '/v1/folders', { token: key })
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ _tag: 'RateLimitExceeded', message: expect.any(String) })
    expect(limited.headers.get('retry-after')).toBe(limited.headers.get('ratelimit-reset'))
    expect((await a.call('GET', '/v1/folders', { token: key })).status).toBe(429)
    a.db.$client.close()
    b.db.$client.close()
  })
})
