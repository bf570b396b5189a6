import { describe, expect, test } from 'bun:test'
import { BASE, countRows, createHarness, type Harness, type Reply } from '../helpers/harness.ts'

const SECRET = 'sk-very-secret-value-4f1c'
const LIMIT = 64 * 1024

interface World {
  h: Harness
  token: string
  itemId: string
  folderId: string
}

interface Endpoint {
  name: string
  method: string
  path(w: World): string
  valid: Record<string, unknown>
  /** Bodies that are JSON objects but do not match the schema. */
  invalid: [string, unknown][]
  /**
   * How much of a body the route reads before it can refuse it: 64 KiB, or 5 MiB for a route that takes a
   * page (`html`, docs/reading.md#page-capture), which can only tell after parsing whether a body carries one.
   */
  readsUpTo?: number
}

const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /v1/captures',
    method: 'POST',
    path: () => '/v1/captures',
    valid: { url: 'https://example.com/new-page' },
    readsUpTo: 5 * 1024 * 1024,
    invalid: [
      ['an extra field', { url: 'https://example.com/x', password: SECRET }],
      ['url missing', { sourceName: 'x' }],
      ['url a number', { url: 42 }],
      ['url null', { url: null }],
      ['url an object', { url: { href: 'https://example.com' } }],
      ['sourceName a number', { url: 'https://example.com/x', sourceName: 7 }],
      ['sourceName over 200 characters', { url: 'https://example.com/x', sourceName: 's'.repeat(201) }],
      ['captureChannel not in the enum', { url: 'https://example.com/x', captureChannel: 'carrier-pigeon' }],
      ['captureChannel a secret-looking string', { url: 'https://example.com/x', captureChannel: SECRET }],
      ['tags not an array', { url: 'https://example.com/x', tags: 'ai' }],
      ['a tag not in the enum', { url: 'https://example.com/x', tags: ['ai', 'cooking'] }],
      ['a tag that is a number', { url: 'https://example.com/x', tags: [1] }],
      ['folderId a number', { url: 'https://example.com/x', folderId: 12 }],
      ['folderId a boolean', { url: 'https://example.com/x', folderId: true }],
    ],
  },
  {
    name: 'POST /v1/saved-items/:id/read-state',
    method: 'POST',
    path: (w) => `/v1/saved-items/${w.itemId}/read-state`,
    valid: { isRead: true },
    invalid: [
      ['an extra field', { isRead: true, token: SECRET }],
      ['isRead missing', {}],
      ['isRead a string', { isRead: 'true' }],
      ['isRead a number', { isRead: 1 }],
      ['isRead null', { isRead: null }],
    ],
  },
  {
    name: 'PUT /v1/saved-items/:id/folder',
    method: 'PUT',
    path: (w) => `/v1/saved-items/${w.itemId}/folder`,
    valid: { folderId: null },
    invalid: [
      ['an extra field', { folderId: null, secret: SECRET }],
      ['folderId missing', {}],
      ['folderId a number', { folderId: 5 }],
      ['folderId an array', { folderId: ['a'] }],
    ],
  },
  {
    name: 'PUT /v1/saved-items/:id/progress',
    method: 'PUT',
    path: (w) => `/v1/saved-items/${w.itemId}/progress`,
    valid: { progress: 0.25 },
    invalid: [
      ['an extra field', { progress: 0.5, secret: SECRET }],
      ['progress missing', {}],
      ['progress a string', { progress: '0.5' }],
      ['progress over 1', { progress: 2 }],
      ['progress negative', { progress: -1 }],
    ],
  },
  {
    name: 'POST /v1/folders',
    method: 'POST',
    path: () => '/v1/folders',
    valid: { name: 'Brand new' },
    invalid: [
      ['an extra field', { name: 'X', apiKey: SECRET }],
      ['name missing', {}],
      ['name a number', { name: 3 }],
      ['name null', { name: null }],
      ['name an array', { name: ['X'] }],
    ],
  },
  {
    name: 'PATCH /v1/folders/:id',
    method: 'PATCH',
    path: (w) => `/v1/folders/${w.folderId}`,
    valid: { name: 'Renamed' },
    invalid: [
      ['an extra field', { name: 'X', apiKey: SECRET }],
      ['name missing', {}],
      ['name a boolean', { name: false }],
      ['name null', { name: null }],
    ],
  },
]

async function world(): Promise<World> {
  const h = await createHarness()
  const user = await h.user()
  const token = await user.key()
  const folder = await h.call('POST', '/v1/folders', { token, body: { name: 'Existing' } })
  const item = await h.call('POST', '/v1/captures', {
    token,
    body: { url: 'https://example.com/existing', folderId: folder.body.id },
  })
  expect(item.status).toBe(201)
  return { h, token, itemId: item.body.savedItem.id, folderId: folder.body.id }
}

async function snapshot(w: World) {
  return {
    savedItems: await countRows(w.h.db, 'saved_items'),
    folders: await countRows(w.h.db, 'folders'),
    idempotencyKeys: await countRows(w.h.db, 'idempotency_keys'),
    items: (await w.h.call('GET', '/v1/saved-items', { token: w.token })).body.savedItems,
    folderList: (await w.h.call('GET', '/v1/folders', { token: w.token })).body.folders,
  }
}

/** Sends a request, with an Idempotency-Key, checks the exact error body and that nothing was written. */
async function expectRejected(
  w: World,
  endpoint: Endpoint,
  init: { raw?: BodyInit; body?: unknown; headers?: Record<string, string> },
  status: number,
  tag: string,
): Promise<Reply> {
  const before = await snapshot(w)
  w.h.clock.advance(1000)
  const reply = await w.h.call(endpoint.method, endpoint.path(w), {
    token: w.token,
    ...init,
    headers: { 'idempotency-key': `bad-${crypto.randomUUID()}`, ...init.headers },
  })
  expect({ status: reply.status, tag: reply.body?._tag }).toEqual({ status, tag })
  expect(Object.keys(reply.body).sort()).toEqual(['_tag', 'message'])
  expect(typeof reply.body.message).toBe('string')
  expect(reply.body.message.length).toBeGreaterThan(0)
  expect(reply.text).not.toContain(SECRET)
  expect(reply.text).not.toContain(w.token)
  expect(await snapshot(w)).toEqual(before)
  return reply
}

for (const endpoint of ENDPOINTS) {
  describe(`${endpoint.name}: bad input`, () => {
    test('the valid body is accepted (control)', async () => {
      const w = await world()
      const reply = await w.h.call(endpoint.method, endpoint.path(w), { token: w.token, body: endpoint.valid })
      expect([200, 201]).toContain(reply.status)
    })

    test.each([
      ['truncated JSON', '{"a":'],
      ['a bare word', 'hello'],
      ['single quotes', "{'name':'x'}"],
      ['a trailing comma', '{"name":"x",}'],
      ['an empty body', ''],
    ])('malformed JSON (%s) answers 400 ValidationError', async (_name, raw) => {
      const w = await world()
      await expectRejected(
        w,
        endpoint,
        { raw, headers: { 'content-type': 'application/json' } },
        400,
        'ValidationError',
      )
    })

    test.each([
      ['text/plain', 'text/plain'],
      ['a form', 'application/x-www-form-urlencoded'],
      ['multipart', 'multipart/form-data; boundary=x'],
      ['xml', 'application/xml'],
    ])('a JSON body sent as %s answers 415 UnsupportedMediaTypeError', async (_name, type) => {
      const w = await world()
      await expectRejected(
        w,
        endpoint,
        { raw: JSON.stringify(endpoint.valid), headers: { 'content-type': type } },
        415,
        'UnsupportedMediaTypeError',
      )
    })

    test('a body without a content type answers 415 UnsupportedMediaTypeError', async () => {
      const w = await world()
      await expectRejected(
        w,
        endpoint,
        { raw: new Blob([JSON.stringify(endpoint.valid)]) },
        415,
        'UnsupportedMediaTypeError',
      )
    })

    test('a form-encoded body answers 415 UnsupportedMediaTypeError', async () => {
      const w = await world()
      const form = new URLSearchParams(Object.entries(endpoint.valid).map(([k, v]) => [k, String(v)]))
      await expectRejected(
        w,
        endpoint,
        { raw: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        415,
        'UnsupportedMediaTypeError',
      )
    })

    test('a body over 64 KiB answers 413 PayloadTooLargeError', async () => {
      const w = await world()
      const raw = JSON.stringify({ ...endpoint.valid, pad: 'x'.repeat(LIMIT) })
      await expectRejected(
        w,
        endpoint,
        { raw, headers: { 'content-type': 'application/json' } },
        413,
        'PayloadTooLargeError',
      )
    })

    test('a body over 64 KiB with a lying small Content-Length answers 413', async () => {
      const w = await world()
      const raw = JSON.stringify({ ...endpoint.valid, pad: 'x'.repeat(LIMIT) })
      await expectRejected(
        w,
        endpoint,
        { raw, headers: { 'content-type': 'application/json', 'content-length': '20' } },
        413,
        'PayloadTooLargeError',
      )
    })

    test('a chunked stream body over 64 KiB answers 413', async () => {
      const w = await world()
      const chunk = new TextEncoder().encode(' '.repeat(8 * 1024))
      // Past what the route reads by more than 64 KiB: it must stop reading before the stream ends.
      const chunks = Math.ceil(((endpoint.readsUpTo ?? LIMIT) + LIMIT) / chunk.byteLength)
      let sent = 0
      const raw = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode(JSON.stringify(endpoint.valid)))
          if (sent >= chunks) return controller.close()
          controller.enqueue(chunk)
          sent++
        },
      })
      await expectRejected(
        w,
        endpoint,
        { raw, headers: { 'content-type': 'application/json' } },
        413,
        'PayloadTooLargeError',
      )
      expect(sent).toBeLessThan(chunks)
    })

    test('a body of exactly 64 KiB is not too large', async () => {
      const w = await world()
      const json = JSON.stringify(endpoint.valid)
      const raw = json + ' '.repeat(LIMIT - new TextEncoder().encode(json).byteLength)
      expect(new TextEncoder().encode(raw).byteLength).toBe(LIMIT)
      const reply = await w.h.call(endpoint.method, endpoint.path(w), {
        token: w.token,
        raw,
        headers: { 'content-type': 'application/json' },
      })
      expect([200, 201]).toContain(reply.status)
    })

    test.each([
      ['an array', []],
      ['an array of the valid body', null],
      ['a string', 'hello'],
      ['a number', 42],
      ['null', 'null-literal'],
      ['true', true],
    ])('JSON that is %s answers 400 ValidationError', async (name, value) => {
      const w = await world()
      const raw =
        name === 'an array of the valid body'
          ? JSON.stringify([endpoint.valid])
          : value === 'null-literal'
            ? 'null'
            : JSON.stringify(value)
      await expectRejected(
        w,
        endpoint,
        { raw, headers: { 'content-type': 'application/json' } },
        400,
        'ValidationError',
      )
    })

    test.each(endpoint.invalid)('a body with %s answers 400 ValidationError', async (_name, body) => {
      const w = await world()
      await expectRejected(w, endpoint, { body }, 400, 'ValidationError')
    })
  })
}

describe('JSON content types', () => {
  test.each([
    'application/json; charset=utf-8',
    'Application/JSON',
    'APPLICATION/JSON; charset=UTF-8',
    'application/json ; charset=utf-8',
    'application/merge-patch+json',
  ])('%s is accepted as JSON', async (type) => {
    const w = await world()
    const reply = await w.h.call('POST', '/v1/captures', {
      token: w.token,
      raw: JSON.stringify({ url: 'https://example.com/typed' }),
      headers: { 'content-type': type },
    })
    expect(reply.status).toBe(201)
    expect(reply.body.savedItem.normalizedUrl).toBe('https://example.com/typed')
  })
})

describe('Idempotency-Key on a rejected body', () => {
  test('a body that fails validation leaves the key free for the corrected request', async () => {
    const w = await world()
    const headers = { 'idempotency-key': 'fix-and-retry' }
    const bad = await w.h.call('POST', '/v1/captures', { token: w.token, headers, body: { url: 5 } })
    expect(bad.status).toBe(400)
    expect(bad.body._tag).toBe('ValidationError')
    expect(await countRows(w.h.db, 'idempotency_keys')).toBe(0)
    const fixed = await w.h.call('POST', '/v1/captures', {
      token: w.token,
      headers,
      body: { url: 'https://example.com/fixed' },
    })
    expect(fixed.status).toBe(201)
    const replay = await w.h.call('POST', '/v1/captures', {
      token: w.token,
      headers,
      body: { url: 'https://example.com/fixed' },
    })
    expect(replay.status).toBe(201)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body).toEqual(fixed.body)
  })
})

describe('validation messages', () => {
  test('name the offending field without echoing its value', async () => {
    const w = await world()
    const extra = await w.h.call('POST', '/v1/captures', {
      token: w.token,
      body: { url: 'https://example.com/x', password: SECRET },
    })
    expect(extra.body.message).toContain('password')
    const enumValue = await w.h.call('POST', '/v1/captures', {
      token: w.token,
      body: { url: 'https://example.com/x', captureChannel: SECRET },
    })
    expect(enumValue.body.message).toContain('captureChannel')
    expect(enumValue.body.message).not.toContain(SECRET)
  })
})

describe('unknown routes', () => {
  test.each([
    ['GET', '/v1/nope'],
    ['GET', '/v2/saved-items'],
    ['POST', '/v1/saved-items'],
    ['GET', '/v1/saved-items/some-id/open'],
    ['GET', '/nothing-here'],
  ])('%s %s answers 404 RouteNotFoundError', async (method, path) => {
    const h = await createHarness()
    const token = await (await h.user()).key()
    const reply = await h.call(method, path, { token })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'RouteNotFoundError', message: expect.any(String) })
  })

  test.each([
    ['GET', '/v1/folders/'],
    ['GET', '/v1/saved-items/'],
    ['POST', '/v1/captures/'],
    ['GET', '/v1/me/'],
    ['POST', '/v1/saved-items/some-id/read/'],
  ])(
    '%s %s (a trailing slash) answers 404 RouteNotFoundError, not 401, to a valid credential',
    async (method, path) => {
      const h = await createHarness()
      const token = await (await h.user()).key()
      const reply = await h.call(method, path, {
        token,
        body: method === 'POST' ? { url: 'https://example.com/slash' } : undefined,
      })
      expect(reply.status).toBe(404)
      expect(reply.body).toEqual({ _tag: 'RouteNotFoundError', message: expect.any(String) })
      expect(await countRows(h.db, 'saved_items')).toBe(0)
    },
  )

  test('an unknown route answers 404 RouteNotFoundError without credentials too', async () => {
    const h = await createHarness()
    const reply = await h.call('GET', '/v1/definitely-not-a-route')
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'RouteNotFoundError', message: expect.any(String) })
  })
})

describe('unexpected failures', () => {
  test('a database failure answers 500 InternalError without stack or SQL, and logs one error line without params', async () => {
    const h = await createHarness()
    const token = await (await h.user()).key()
    await h.db.$client.execute('DROP TABLE saved_items')
    const url = `https://example.com/private-${SECRET}`
    h.logs.length = 0
    const reply = await h.call('POST', '/v1/captures', {
      token,
      body: { url, sourceName: 'Leaky source' },
      headers: { 'idempotency-key': 'k-500' },
    })
    expect(reply.status).toBe(500)
    expect(reply.body).toEqual({ _tag: 'InternalError', message: expect.any(String) })
    for (const leak of ['saved_items', 'SQLITE', 'insert', 'at ', SECRET, 'Leaky source', '.ts:']) {
      expect(reply.text.toLowerCase()).not.toContain(leak.toLowerCase())
    }
    const requestLines = h.logs.filter((l) => l.msg === 'request' && l.path === '/v1/captures')
    expect(requestLines).toHaveLength(1)
    expect(requestLines[0]).toMatchObject({ level: 'error', method: 'POST', path: '/v1/captures', status: 500 })
    const logged = JSON.stringify(h.logs)
    expect(logged).not.toContain(SECRET)
    expect(logged).not.toContain('Leaky source')
    expect(logged).not.toContain('params')
    expect(logged).not.toContain(token)
    expect(logged).not.toContain('example.com/private')
    expect(h.logs.some((l) => l.level === 'error' && String(l.error).includes('no such table'))).toBe(true)
    expect(await countRows(h.db, 'idempotency_keys')).toBe(0)
  })

  test('a failure in a list answers 500 InternalError too', async () => {
    const h = await createHarness()
    const token = await (await h.user()).key()
    await h.db.$client.execute('DROP TABLE saved_items')
    const reply = await h.call('GET', '/v1/saved-items', { token })
    expect(reply.status).toBe(500)
    expect(reply.body).toEqual({ _tag: 'InternalError', message: expect.any(String) })
    expect(h.logs.some((l) => l.level === 'error' && l.status === 500)).toBe(true)
  })

  test('a stored value outside the response schema is refused by the database, so the list never answers with one', async () => {
    const h = await createHarness()
    const token = await (await h.user()).key()
    const created = await h.call('POST', '/v1/captures', { token, body: { url: 'https://example.com/corrupt' } })
    // Plain SQL, past every check of the app: the schema's triggers refuse it (docs/api.md#data-rules).
    await expect(
      h.db.$client.execute({
        sql: "UPDATE saved_items SET type = 'hologram' WHERE id = ?",
        args: [created.body.savedItem.id],
      }),
    ).rejects.toThrow(/a value outside the API schema/)
    const reply = await h.call('GET', '/v1/saved-items', { token })
    expect(reply.status).toBe(200)
    expect(reply.body.savedItems).toEqual([created.body.savedItem])
    expect(reply.text).not.toContain('hologram')
  })

  test('a stored value JSON cannot hold (a BLOB in a text column) makes the list answer 500 InternalError, the value never sent', async () => {
    const h = await createHarness()
    const token = await (await h.user()).key()
    const created = await h.call('POST', '/v1/captures', { token, body: { url: 'https://example.com/blob' } })
    // A text column keeps a BLOB as it is; SQLite's json_object refuses it, so the page fails whole (docs/api.md#data-rules).
    await h.db.$client.execute({
      sql: 'UPDATE saved_items SET title = ? WHERE id = ?',
      args: [new Uint8Array([0x68, 0x6f, 0x6c, 0x6f]), created.body.savedItem.id],
    })
    const reply = await h.call('GET', '/v1/saved-items', { token })
    expect(reply.status).toBe(500)
    expect(reply.body).toEqual({ _tag: 'InternalError', message: expect.any(String) })
    expect(reply.text).not.toContain('holo')
    expect(h.logs.some((l) => l.level === 'error')).toBe(true)
  })
})

test('BASE is where the harness sends requests', () => {
  expect(BASE).toBe('http://localhost:3000')
})
