import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SYNC_INTERVAL_MS } from '../../adapters/app/rate-limiter.ts'
import { request, runServerCommand, startServer, type HttpReply, type ServerProcess } from './processes.ts'

// Two `bun server.ts` processes on different ports sharing ONE database file: every piece of state they
// must agree on (items, idempotency records, rate-limit counters) lives in the database.

const dir = mkdtempSync(join(tmpdir(), 'readlater-two-'))
// A one-hour window so the shared-limit test does not straddle a window boundary by chance.
const env = { DATABASE_URL: `file:${join(dir, 'shared.db')}`, RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_S: '3600' }
const email = 'two-processes@example.com'
let a: ServerProcess | undefined
let b: ServerProcess | undefined

async function newKey(label: string): Promise<string> {
  const created = await runServerCommand(
    [
      'key',
      'create',
      '--email',
      email,
      '--scopes',
      'saved-items:capture,saved-items:read,folders:read',
      '--label',
      label,
    ],
    env,
  )
  if (created.code !== 0) throw new Error(`key create failed: ${created.stderr.join('\n')}`)
  return created.stdout.at(-1)!
}

/** `count` keys, created in one CLI process each, a few at a time. */
async function newKeys(count: number, label: string): Promise<string[]> {
  const keys: string[] = []
  for (let i = 0; i < count; i += 4) {
    keys.push(
      ...(await Promise.all(Array.from({ length: Math.min(4, count - i) }, (_, j) => newKey(`${label}-${i + j}`)))),
    )
  }
  return keys
}

beforeAll(async () => {
  // Migrate the file once before two processes race to do it.
  const user = await runServerCommand(['user', 'create', '--email', email, '--password', 'a long password'], env)
  expect(user.code).toBe(0)
  ;[a, b] = await Promise.all([startServer(env), startServer(env)])
}, 30_000)

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  rmSync(dir, { recursive: true, force: true })
})

describe('two server processes on one database file', () => {
  test('listen on different ports', () => {
    expect(a!.port).not.toBe(b!.port)
  })

  test('50 concurrent captures of one URL split across both make exactly one item: one 201, the rest 200', async () => {
    // RATE_LIMIT_MAX is 5, so ten keys of the same person send five captures each.
    const keys = await newKeys(10, 'race')
    const url = 'https://example.com/two-processes/race'
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        request((i % 2 === 0 ? a : b)!.url, 'POST', '/v1/captures', {
          token: keys[Math.floor(i / 5)]!,
          body: { url, sourceName: `request ${i}` },
        }),
      ),
    )
    const statuses = replies.map((reply) => reply.status)
    expect(statuses.filter((status) => status >= 500)).toEqual([])
    expect(statuses.filter((status) => status === 201).length).toBe(1)
    expect(statuses.filter((status) => status === 200).length).toBe(49)
    const ids = new Set(replies.map((reply) => reply.body.savedItem.id))
    expect(ids.size).toBe(1)
    expect(replies.filter((reply) => reply.body.captureResult === 'created').length).toBe(1)
    for (const server of [a!, b!]) {
      const list = await request(server.url, 'GET', '/v1/saved-items', { token: (await newKeys(1, 'list'))[0]! })
      expect(list.status).toBe(200)
      expect(list.body.savedItems.map((item: { id: string }) => item.id)).toEqual([...ids])
    }
  }, 30_000)

  test('an Idempotency-Key used on A replays on B', async () => {
    const [key] = await newKeys(1, 'idempotency')
    const body = { url: 'https://example.com/two-processes/idempotent' }
    const headers = { 'idempotency-key': 'across-processes' }
    const first = await request(a!.url, 'POST', '/v1/captures', { token: key!, body, headers })
    expect(first.status).toBe(201)
    const replay = await request(b!.url, 'POST', '/v1/captures', { token: key!, body, headers })
    expect(replay.status).toBe(201)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.text).toBe(first.text)
    const conflict = await request(b!.url, 'POST', '/v1/captures', {
      token: key!,
      body: { url: 'https://example.com/other' },
      headers,
    })
    expect(conflict.status).toBe(422)
    expect(conflict.body).toEqual({ _tag: 'IdempotencyKeyReuseError', message: expect.any(String) })
  })

  test('the rate limit counts requests to both: 3 to A and 2 to B pass, the next to either is 429 (a sync interval apart)', async () => {
    let [key] = await newKeys(1, 'limit')
    const probe = await request(a!.url, 'GET', '/v1/folders', { token: (await newKeys(1, 'probe'))[0]! })
    // Guard against the window ending mid-test: wait for the next one if it is about to.
    if (Number(probe.headers.get('ratelimit-reset')) < 10) {
      await new Promise((done) => setTimeout(done, Number(probe.headers.get('ratelimit-reset')) * 1000 + 100))
      ;[key] = await newKeys(1, 'limit-again')
    }
    const passed: HttpReply[] = []
    // Each process reads the global count again once its view is SYNC_INTERVAL_MS old (docs/api.md#rate-limits).
    const spaced = async (server: ServerProcess) => {
      await Bun.sleep(SYNC_INTERVAL_MS + 20)
      return request(server.url, 'GET', '/v1/folders', { token: key! })
    }
    for (const server of [a, b, a, b, a]) passed.push(await spaced(server!))
    expect(passed.map((reply) => [reply.status, reply.headers.get('ratelimit-remaining')])).toEqual([
      [200, '4'],
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
    ])
    for (const server of [b, a]) {
      const limited = await spaced(server!)
      expect(limited.status).toBe(429)
      expect(limited.body).toEqual({ _tag: 'RateLimitExceeded', message: expect.any(String) })
      expect(limited.headers.get('ratelimit-limit')).toBe('5')
      expect(limited.headers.get('ratelimit-remaining')).toBe('0')
      expect(limited.headers.get('retry-after')).toBe(limited.headers.get('ratelimit-reset'))
    }
  }, 20_000)

  test('a concurrent burst at both: each process alone admits at most RATE_LIMIT_MAX, both together at most twice that (the documented bound for two), and the database ends with every request counted', async () => {
    const [key] = await newKeys(1, 'burst')
    const burst = (server: ServerProcess) =>
      Promise.all(Array.from({ length: 20 }, () => request(server.url, 'GET', '/v1/folders', { token: key! })))
    const [fromA, fromB] = await Promise.all([burst(a!), burst(b!)])
    const admitted = (replies: HttpReply[]) => replies.filter((reply) => reply.status === 200).length
    for (const replies of [fromA, fromB]) {
      expect(replies.every((reply) => reply.status === 200 || reply.status === 429)).toBe(true)
      expect(admitted(replies)).toBeLessThanOrEqual(5)
    }
    // Neither refuses before it has seen the limit reached, so together they admit at least the limit; one
    // of them may admit none, when its first sync already reads the other's five (a loaded run did).
    expect(admitted(fromA) + admitted(fromB)).toBeGreaterThanOrEqual(5)
    expect(admitted(fromA) + admitted(fromB)).toBeLessThanOrEqual(10)
    const db = createClient({ url: env.DATABASE_URL })
    const id = (
      await db.execute({
        sql: 'SELECT id FROM api_keys WHERE key_hash = ?',
        args: [createHash('sha256').update(key!).digest('hex')],
      })
    ).rows[0]!.id
    // Each process flushes every SYNC_INTERVAL_MS; under a loaded test run a flush can come late, so poll
    // (up to 5 s) rather than sleep one interval and read once.
    let count = 0
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await Bun.sleep(SYNC_INTERVAL_MS)) {
      const counted = await db.execute({
        sql: 'SELECT count FROM rate_limits WHERE bucket = ?',
        args: [`cred:key:${id}`],
      })
      count = Number(counted.rows[0]?.count ?? 0)
      if (count >= 40) break
    }
    db.close()
    expect(count).toBe(40)
  }, 20_000)

  test('a key revoked in the database fails on the very next request to either process', async () => {
    const [key] = await newKeys(1, 'revoke')
    expect((await request(a!.url, 'GET', '/v1/saved-items', { token: key! })).status).toBe(200)
    expect((await request(b!.url, 'GET', '/v1/saved-items', { token: key! })).status).toBe(200)
    const client = createClient({ url: env.DATABASE_URL, timeout: 5000 })
    try {
      const result = await client.execute({
        sql: 'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?',
        args: [new Date().toISOString(), createHash('sha256').update(key!).digest('hex')],
      })
      expect(result.rowsAffected).toBe(1)
    } finally {
      client.close()
    }
    for (const server of [a!, b!]) {
      const reply = await request(server.url, 'GET', '/v1/saved-items', { token: key! })
      expect(reply.status).toBe(401)
      expect(reply.body).toEqual({ _tag: 'Unauthorized', message: expect.any(String) })
      expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"')
    }
  })

  test('neither process logged a server error', () => {
    for (const server of [a!, b!]) {
      const errors = server.stdout.filter((line) => line.includes('"level":"error"'))
      expect(errors).toEqual([])
      expect(server.stderr.filter((line) => line.trim() !== '')).toEqual([])
    }
  })
})
