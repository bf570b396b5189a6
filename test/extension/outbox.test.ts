import { describe, expect, test } from 'bun:test'
import {
  backoffMs,
  FIRST_RETRY_MS,
  MAX_RETRY_MS,
  Outbox,
  type OutboxEntry,
  type OutboxStore,
  outcomeOf,
  retryAfterMs,
  type SendOutcome,
} from '../../extension/src/outbox.ts'

// docs/extension.md#retries: the outbox keeps every capture until the server has answered it for good,
// retries with the same Idempotency-Key and body, backs off, drops a refused capture and holds one the
// server answered 401 until the extension is connected again.

function memoryStore(): OutboxStore & { map: Map<string, OutboxEntry> } {
  const map = new Map<string, OutboxEntry>()
  return {
    map,
    all: async () => [...map.values()].map((entry) => structuredClone(entry)),
    get: async (key) => (map.has(key) ? structuredClone(map.get(key)!) : undefined),
    put: async (entry) => void map.set(entry.key, structuredClone(entry)),
    delete: async (key) => void map.delete(key),
  }
}

function setup(answers: (SendOutcome | Error)[]) {
  const store = memoryStore()
  const clock = { now: 1_000_000 }
  const sent: { key: string; body: string; at: number }[] = []
  let keys = 0
  const outbox = new Outbox(
    store,
    () => clock.now,
    async (entry) => {
      sent.push({ key: entry.key, body: entry.body, at: clock.now })
      const answer = answers.shift() ?? { kind: 'sent', status: 201, body: {} }
      if (answer instanceof Error) throw answer
      return answer
    },
    () => `key-${++keys}`,
  )
  const capture = (url = 'https://example.com/a') =>
    outbox.add({ body: JSON.stringify({ url }), url, withHtml: false, tabId: 7, page: true })
  return { store, clock, sent, outbox, capture }
}

const network: SendOutcome = { kind: 'retry', reason: 'the server did not answer' }
const created: SendOutcome = { kind: 'sent', status: 201, body: {} }

describe('backoff', () => {
  test('30 s, then doubling, capped at 1 hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 50].map(backoffMs)).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000,
    ])
    expect(backoffMs(1)).toBe(FIRST_RETRY_MS)
    expect(backoffMs(1000)).toBe(MAX_RETRY_MS)
  })

  test('Retry-After in seconds or as a date', () => {
    const now = Date.parse('2026-11-01T00:00:00Z')
    expect(retryAfterMs('120', now)).toBe(120_000)
    expect(retryAfterMs('Sun, 01 Nov 2026 00:01:00 GMT', now)).toBe(60_000)
    expect(retryAfterMs(null, now)).toBeUndefined()
    expect(retryAfterMs('soon', now)).toBeUndefined()
  })
})

describe('outcomeOf: what an answer means', () => {
  test('2xx sent; 401 held; 408, 429, 5xx and an in-flight 409 retried; other 4xx dropped', () => {
    const now = 0
    expect(outcomeOf(201, { savedItem: {} }, null, now).kind).toBe('sent')
    expect(outcomeOf(200, { savedItem: {} }, null, now).kind).toBe('sent')
    expect(outcomeOf(401, { _tag: 'Unauthorized', message: 'no' }, null, now)).toEqual({
      kind: 'unauthorized',
      message: 'no',
    })
    expect(outcomeOf(429, { _tag: 'RateLimitExceeded', message: 'slow' }, '7', now)).toEqual({
      kind: 'retry',
      reason: '429 slow',
      retryAfterMs: 7000,
    })
    for (const status of [408, 500, 502, 503, 504]) expect(outcomeOf(status, null, null, now).kind).toBe('retry')
    expect(outcomeOf(409, { _tag: 'IdempotencyKeyInFlightError', message: 'running' }, null, now).kind).toBe('retry')
    for (const [status, tag] of [
      [400, 'InvalidUrlError'],
      [403, 'InsufficientScopeError'],
      [404, 'FolderNotFoundError'],
      [409, 'FolderNameConflictError'],
      [413, 'PayloadTooLargeError'],
      [422, 'IdempotencyKeyReuseError'],
    ] as const)
      expect(outcomeOf(status, { _tag: tag, message: 'm' }, null, now)).toEqual({
        kind: 'rejected',
        status,
        tag,
        message: 'm',
      })
  })
})

describe('Outbox', () => {
  test('keeps a capture before sending it, and forgets it once sent', async () => {
    const { store, outbox, capture, sent } = setup([created])
    const entry = await capture()
    expect(store.map.has(entry.key)).toBe(true)
    const attempt = await outbox.attempt(entry.key)
    expect(attempt!.outcome).toEqual(created)
    expect(sent).toHaveLength(1)
    expect(store.map.size).toBe(0)
    expect(await outbox.nextWake()).toBeNull()
  })

  test('a network error keeps it, backs off, and the retry carries the same key and body', async () => {
    const { store, clock, outbox, capture, sent } = setup([network, new Error('fetch failed'), network, created])
    const entry = await capture()
    await outbox.attempt(entry.key)
    let kept = store.map.get(entry.key)!
    expect(kept.attempts).toBe(1)
    expect(kept.nextAttemptAt).toBe(clock.now + 30_000)
    expect(await outbox.nextWake()).toBe(clock.now + 30_000)

    // Not due yet: the alarm's flush sends nothing.
    clock.now += 29_999
    expect(await outbox.flush('due')).toEqual([])
    clock.now += 1
    expect((await outbox.flush('due'))[0]!.outcome.kind).toBe('retry') // a thrown error is a retry too
    kept = store.map.get(entry.key)!
    expect(kept.attempts).toBe(2)
    expect(kept.nextAttemptAt).toBe(clock.now + 60_000)
    expect(kept.lastError).toBe('fetch failed')

    clock.now += 60_000
    await outbox.flush('due')
    expect(store.map.get(entry.key)!.nextAttemptAt).toBe(clock.now + 120_000)
    clock.now += 120_000
    await outbox.flush('due')
    expect(store.map.size).toBe(0)

    expect(sent.map((s) => s.key)).toEqual([entry.key, entry.key, entry.key, entry.key])
    expect(new Set(sent.map((s) => s.body)).size).toBe(1)
  })

  test('flush "now" (start-up, after a success) sends before the backoff is over, but not before Retry-After', async () => {
    const { store, clock, outbox, capture } = setup([network, { kind: 'retry', reason: '429', retryAfterMs: 600_000 }])
    const a = await capture('https://example.com/a')
    const b = await capture('https://example.com/b')
    await outbox.attempt(a.key)
    await outbox.attempt(b.key)
    clock.now += 1000
    const flushed = await outbox.flush('now')
    expect(flushed.map((f) => f.entry.key)).toEqual([a.key])
    expect(store.map.has(b.key)).toBe(true)
    expect(store.map.get(b.key)!.nextAttemptAt).toBe(clock.now - 1000 + 600_000)
    clock.now += 600_000
    expect((await outbox.flush('now')).map((f) => f.entry.key)).toEqual([b.key])
    expect(store.map.size).toBe(0)
  })

  test('a Retry-After longer than the backoff is the wait', async () => {
    const { store, clock, outbox, capture } = setup([{ kind: 'retry', reason: '429', retryAfterMs: 90_000 }])
    const entry = await capture()
    await outbox.attempt(entry.key)
    expect(store.map.get(entry.key)!.nextAttemptAt).toBe(clock.now + 90_000)
  })

  test('a refusal (other 4xx) drops it: sending again would get the same answer', async () => {
    const { store, outbox, capture } = setup([
      { kind: 'rejected', status: 400, tag: 'InvalidUrlError', message: 'bad' },
    ])
    const entry = await capture()
    expect((await outbox.attempt(entry.key))!.outcome.kind).toBe('rejected')
    expect(store.map.size).toBe(0)
  })

  test('a 401 holds it, whatever the clock, until release() after reconnecting; then it goes with its key', async () => {
    const { store, clock, outbox, capture, sent } = setup([{ kind: 'unauthorized', message: 'revoked' }, created])
    const entry = await capture()
    await outbox.attempt(entry.key)
    expect(store.map.get(entry.key)!.held).toBe(true)
    expect(await outbox.nextWake()).toBeNull()
    clock.now += 10 * MAX_RETRY_MS
    expect(await outbox.flush('due')).toEqual([])
    expect(await outbox.flush('now')).toEqual([])
    await outbox.release()
    expect(await outbox.nextWake()).toBe(clock.now)
    await outbox.flush('due')
    expect(store.map.size).toBe(0)
    expect(sent.map((s) => s.key)).toEqual([entry.key, entry.key])
  })

  test('one capture is never sent twice at once; oldest first', async () => {
    const store = memoryStore()
    let release!: () => void
    const gate = new Promise<void>((done) => (release = done))
    const order: string[] = []
    let keys = 0
    const outbox = new Outbox(
      store,
      () => 5,
      async (entry) => {
        order.push(entry.url)
        if (entry.url.endsWith('first')) await gate
        return created
      },
      () => `k${++keys}`,
    )
    const first = await outbox.add({
      body: '{}',
      url: 'https://e.com/first',
      withHtml: false,
      tabId: null,
      page: false,
    })
    const running = outbox.attempt(first.key)
    expect((await outbox.attempt(first.key))!.outcome).toEqual({ kind: 'busy' })
    release()
    await running
    expect(await outbox.attempt(first.key)).toBeNull() // gone: already sent
    expect(order).toEqual(['https://e.com/first'])

    const clock = { now: 10 }
    const ordered = new Outbox(
      store,
      () => clock.now,
      async (entry) => (order.push(entry.url), network),
      () => `o${++keys}`,
    )
    await ordered.add({ body: '{}', url: 'https://e.com/1', withHtml: false, tabId: null, page: false })
    clock.now = 20
    await ordered.add({ body: '{}', url: 'https://e.com/2', withHtml: false, tabId: null, page: false })
    order.length = 0
    await ordered.flush('now')
    expect(order).toEqual(['https://e.com/1', 'https://e.com/2'])
  })

  test('clear() forgets everything (Disconnect)', async () => {
    const { store, outbox, capture } = setup([])
    await capture('https://example.com/1')
    await capture('https://example.com/2')
    expect(await outbox.clear()).toBe(2)
    expect(store.map.size).toBe(0)
  })
})
