import { beforeAll, describe, expect, test } from 'bun:test'
import { directList } from '../../adapters/http/direct-list.ts'
import { pathOf } from '../../adapters/http/pipeline.ts'
import type { AppDeps } from '../../adapters/app/deps.ts'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { BASE, createHarness, random, type Harness } from '../helpers/harness.ts'
import { answerShape, headerNames } from '../helpers/answer-shape.ts'

// The direct list (adapters/http/direct-list.ts, docs/benchmarks.md#the-uncached-list) answers
// `GET /v1/saved-items` with an API key past Elysia's lifecycle. The app's route stays the reference: the
// same requests sent both ways get the same status, body and headers (but the request id and the rate-limit
// counts, which move with every request), and what the direct path does not take it leaves to the app
// before counting anything. Runs on the three drivers (test/http is in test:libsql and test:client).

let h: Harness
let deps: AppDeps
let key: string
let captureOnly: string
let revoked: string
let other: string
let folderId: string
let direct: ReturnType<typeof directList>

beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_MAX: '1000000', LIST_CACHE_MB: '0' } })
  const person = await h.user()
  key = await person.key()
  captureOnly = await person.key(['saved-items:capture'])
  revoked = await person.key()
  await h.db.$client.execute({
    sql: 'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?',
    args: ['2026-01-01T00:00:00.000Z', hashApiKey(revoked)],
  })
  other = await (await h.user('someone-else@example.com')).key()
  folderId = (await h.call('POST', '/v1/folders', { token: key, body: { name: 'Lectures — été ✓' } })).body.id
  for (let i = 0; i < 7; i++)
    await h.call('POST', '/v1/captures', {
      token: key,
      body: {
        url: `https://example.com/${i}`,
        tags: i % 2 ? ['ai'] : [],
        sourceName: 'Lecteur — « à lire »',
        ...(i % 3 === 0 ? { folderId } : {}),
      },
    })
  deps = { db: h.db, config: h.config, clock: h.clock, random, log: () => {} }
  direct = directList(deps)
})

/** Both ways: the service's fetch (direct where it takes the request) and the app alone (the reference). */
async function both(path: string, token: string | null, headers: Record<string, string> = {}) {
  const make = () =>
    new Request(`${BASE}${path}`, {
      headers: { ...headers, ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    })
  const direct = await h.server.fetch(make(), { clientIp: '127.0.0.1' })
  const reference = await h.server.app.handle(make())
  return { direct: await answerShape(direct), reference: await answerShape(reference) }
}

const takes = (path: string, token: string | null) => {
  const taking = direct(
    new Request(`${BASE}${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } }),
    pathOf(`${BASE}${path}`),
  )
  return taking === null ? Promise.resolve(false) : Promise.resolve(taking).then((rest) => rest !== null)
}

describe('the direct list answers as the app does', () => {
  const plain = () => [
    '/v1/saved-items',
    '/v1/saved-items?limit=2',
    '/v1/saved-items?limit=3&sort=oldest',
    '/v1/saved-items?sort=title&limit=2',
    `/v1/saved-items?folder=${folderId}&limit=1`,
    '/v1/saved-items?folder=none&limit=2',
    '/v1/saved-items?folder=01930000-0000-7000-8000-00000000dead',
    '/v1/saved-items?limit=0',
    '/v1/saved-items?limit=501',
    '/v1/saved-items?cursor=not-a-cursor',
    '/v1/saved-items?limit=2&cursor=WyJvbGRlc3QiLCIyMDI2Il0',
    '/v1/saved-items?sort=unread&limit=1',
  ]

  test('every plain query with a key it takes: the same answers', async () => {
    for (const path of plain()) {
      expect(await takes(path, key)).toBe(true)
      const { direct, reference } = await both(path, key)
      expect(direct).toEqual(reference)
    }
  })

  test('following the Link header page by page gives the same pages both ways', async () => {
    let path: string | null = '/v1/saved-items?limit=2'
    let pages = 0
    while (path !== null) {
      const { direct, reference } = await both(path, key)
      expect(direct).toEqual(reference)
      const link = direct.headers.find(([name]) => name === 'link')?.[1]
      path = link ? new URL(/<([^>]+)>/.exec(link)![1]!).pathname + new URL(/<([^>]+)>/.exec(link)![1]!).search : null
      pages++
    }
    expect(pages).toBe(4)
  })

  test('a key without the scope: the same 403 and challenge', async () => {
    expect(await takes('/v1/saved-items', captureOnly)).toBe(true)
    const { direct, reference } = await both('/v1/saved-items', captureOnly)
    expect(direct.status).toBe(403)
    expect(direct).toEqual(reference)
  })

  test('another person sees only their own items, the same both ways', async () => {
    const { direct, reference } = await both('/v1/saved-items', other)
    expect(JSON.parse(direct.body)).toEqual({ savedItems: [] })
    expect(direct).toEqual(reference)
  })

  test('what it does not take goes to the app, uncounted: the same answers', async () => {
    const cases: [string, string | null, Record<string, string>?][] = [
      ['/v1/saved-items', revoked],
      ['/v1/saved-items', 'rlk_not-a-key-at-all-but-shaped-like-one-aaaaaaa'],
      ['/v1/saved-items', null],
      ['/v1/saved-items', 'header.payload.signature'],
      ['/v1/saved-items?limit=abc', key],
      ['/v1/saved-items?sort=bogus', key],
      ['/v1/saved-items?sort=', key],
      ['/v1/saved-items?limit=1&limit=2', key],
      ['/v1/saved-items?unknown=1', key],
      ['/v1/saved-items?folder=a%20b', key],
      ['/v1/saved-items?folder=a+b', key],
      ['/v1/saved-items/', key],
    ]
    for (const [path, token, headers] of cases) {
      expect(await takes(path, token)).toBe(false)
      const { direct, reference } = await both(path, token, headers)
      expect(direct).toEqual(reference)
    }
  })

  test('past the credential limit: the same 429 both ways', async () => {
    const limited = await createHarness({ env: { RATE_LIMIT_MAX: '2' } })
    const token = await (await limited.user()).key()
    const ask = (viaApp: boolean) => {
      const request = new Request(`${BASE}/v1/saved-items`, { headers: { authorization: `Bearer ${token}` } })
      return viaApp ? limited.server.app.handle(request) : limited.server.fetch(request, { clientIp: '127.0.0.1' })
    }
    expect((await ask(false)).status).toBe(200)
    expect((await ask(false)).status).toBe(200)
    const direct = await ask(false)
    const reference = await ask(true)
    expect(direct.status).toBe(429)
    expect(reference.status).toBe(429)
    expect(headerNames(direct)).toEqual(headerNames(reference))
    expect((await direct.json())._tag).toBe((await reference.json())._tag)
  })
})

describe('answered at once (docs/benchmarks.md#answered-at-once)', () => {
  const ask = (path: string, token: string) =>
    h.server.handle(new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${token}` } }), {
      clientIp: '127.0.0.1',
    })
  // bun:sqlite and libsql's binding answer statements synchronously; @libsql/client with promises.
  const embedded = () => h.db.$engine !== 'client'

  test('on an embedded file the host gets the Response itself, the same answer as the app; through the client a promise of it', async () => {
    // The first request records the key's use and syncs its count: those two wait.
    await ask('/v1/saved-items', key)
    const paths = [
      '/v1/saved-items?limit=2',
      '/v1/saved-items?limit=3&sort=oldest',
      `/v1/saved-items?folder=${folderId}`,
      '/v1/saved-items?folder=none&limit=1',
      '/v1/saved-items?cursor=bm90LWEtY3Vyc29y',
      '/v1/saved-items?folder=0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    ]
    const statuses: number[] = []
    for (const path of paths) {
      const answer = ask(path, key)
      expect(answer instanceof Promise).toBe(!embedded())
      const response = await answer
      statuses.push(response.status)
      const { direct, reference } = await both(path, key)
      expect(direct).toEqual(reference)
    }
    expect(statuses).toEqual([200, 200, 200, 200, 400, 404])
  })

  test('a scope refusal is answered at once too, with its challenge', async () => {
    await ask('/v1/saved-items', captureOnly)
    const answer = ask('/v1/saved-items', captureOnly)
    expect(answer instanceof Promise).toBe(!embedded())
    const response = await answer
    expect(response.status).toBe(403)
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
  })

  test("what waits: the count's sync with the database (every 250 ms) and the key's use (a minute on)", async () => {
    await ask('/v1/saved-items', key)
    // 300 ms on: the count is synced again; the key's use was recorded less than a minute ago.
    h.clock.advance(300)
    const synced = ask('/v1/saved-items', key)
    expect(synced instanceof Promise).toBe(true)
    expect((await synced).status).toBe(200)
    expect(ask('/v1/saved-items', key) instanceof Promise).toBe(!embedded())
    // A minute on: the key's use is recorded (and the count synced) before the answer.
    h.clock.advance(60_000)
    const due = ask('/v1/saved-items', key)
    expect(due instanceof Promise).toBe(true)
    expect((await due).status).toBe(200)
    const stamped = await h.db.$client.execute({
      sql: 'SELECT last_used_at FROM api_keys WHERE key_hash = ?',
      args: [hashApiKey(key)],
    })
    expect(stamped.rows[0]![0]).toBe(h.clock.now().toISOString())
    expect(ask('/v1/saved-items', key) instanceof Promise).toBe(!embedded())
  })

  test('the promise-returning fetch stays a promise for embedders', async () => {
    const answer = h.server.fetch(
      new Request(`${BASE}/v1/saved-items`, { headers: { authorization: `Bearer ${key}` } }),
      {
        clientIp: '127.0.0.1',
      },
    )
    expect(answer instanceof Promise).toBe(true)
    expect((await answer).status).toBe(200)
  })
})
