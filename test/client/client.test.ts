import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { archivedImageOf, createClient, ReadlaterError, type ArticleHtml } from '../../client/index.ts'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { archivedImageOf as coreArchivedImageOf, archivedImageUrl } from '../../core/reading/archived-image-url.ts'
import { png } from '../fixtures/images/images.ts'
import { createHarness, type Harness } from '../helpers/harness.ts'

// docs/embedding.md#the-client: the typed REST client over real HTTP, against a server on a real database: every call
// it makes is an operation of /openapi.json, writes carry Idempotency-Keys kept across retries, a 429 is
// retried after its Retry-After, and lists page with async iterators.

let h: Harness
let server: ReturnType<typeof Bun.serve>
let base = ''
let key = ''
/** Every request the clients sent: method, path, Idempotency-Key. */
const sent: { method: string; path: string; key: string | null }[] = []
const recording: typeof fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url)
  sent.push({
    method: init?.method ?? 'GET',
    path: url.pathname,
    key: new Headers(init?.headers).get('idempotency-key'),
  })
  return fetch(input, init)
}) as typeof fetch

beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_MAX: '100000', ENRICH_ALLOW_PRIVATE: '1' } })
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request) => h.server.fetch(request, { clientIp: '127.0.0.1' }),
  })
  base = `http://127.0.0.1:${server.port}`
  key = await (await h.user()).key()
})
afterAll(() => server.stop(true))

const client = () => createClient({ baseUrl: base, token: key, fetch: recording })

describe('the client', () => {
  test('captures, lists page by page, moves, reads and deletes', async () => {
    const rl = client()
    const created = await rl.capture({ url: 'https://client.example/a', tags: ['typescript'] })
    expect(created.captureResult).toBe('created')
    expect(created.savedItem.normalizedUrl).toBe('https://client.example/a')
    expect((await rl.capture({ url: 'https://client.example/a' })).captureResult).toBe('updated')
    for (let i = 0; i < 6; i++) await rl.capture({ url: `https://client.example/p${i}` })
    const all: string[] = []
    for await (const item of rl.savedItems.all({ limit: 3, sort: 'oldest' })) all.push(item.normalizedUrl)
    // The test clock saves them all at one instant: same saved time, so their order is the ids'.
    expect([...all].sort()).toEqual(
      ['https://client.example/a', ...Array.from({ length: 6 }, (_, i) => `https://client.example/p${i}`)].sort(),
    )
    const page = await rl.savedItems.list({ limit: 3, sort: 'oldest' })
    expect(page.savedItems.map((item) => item.normalizedUrl)).toEqual(all.slice(0, 3))
    expect(page.nextCursor).toEqual(expect.any(String))
    const second = await rl.savedItems.list({ limit: 3, sort: 'oldest', cursor: page.nextCursor! })
    expect(second.savedItems.map((item) => item.normalizedUrl)).toEqual(all.slice(3, 6))

    const folder = await rl.folders.create('Client folder')
    expect((await rl.savedItems.move(created.savedItem.id, folder.id)).folder).toEqual(folder)
    expect((await rl.savedItems.markRead(created.savedItem.id)).isRead).toBe(true)
    expect((await rl.savedItems.setTags(created.savedItem.id, ['design', 'ai'])).tags).toEqual(['design', 'ai'])
    expect((await rl.savedItems.lookup('https://www.client.example/a/?utm_medium=x'))?.id).toBe(created.savedItem.id)
    expect(await rl.savedItems.lookup('https://client.example/never-saved')).toBeNull()
    const refused = await rl.savedItems.lookup('ftp://client.example/').catch((error: unknown) => error)
    expect(refused).toMatchObject({ status: 400, tag: 'InvalidUrlError' })
    expect((await rl.folders.list()).map((f) => f.name)).toEqual(['Client folder'])
    await rl.savedItems.delete(created.savedItem.id)
    const missing = await rl.savedItems.markRead(created.savedItem.id).catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(ReadlaterError)
    expect(missing).toMatchObject({ status: 404, tag: 'SavedItemNotFoundError' })
    expect((await rl.me()).id).toEqual(expect.any(String))
  })

  test('the changes feed and search as async iterators', async () => {
    const rl = client()
    const pages = []
    for await (const page of rl.changes()) pages.push(page)
    expect(pages.at(-1)!.hasMore).toBe(false)
    const cursor = pages.at(-1)!.cursor
    await rl.capture({ url: 'https://client.example/after-cursor' })
    const after = []
    for await (const page of rl.changes(cursor)) after.push(...page.changes)
    expect(after.map((c) => (c.kind === 'saved-item' && c.op === 'upsert' ? c.savedItem.normalizedUrl : c.id))).toEqual(
      ['https://client.example/after-cursor'],
    )
    const found = []
    for await (const result of rl.search('site:client.example', { limit: 2 }))
      found.push(result.savedItem.normalizedUrl)
    const live: string[] = []
    for await (const item of rl.savedItems.all()) live.push(item.normalizedUrl)
    // Two a page, every item of the site once: the six saved earlier and the one after the cursor.
    expect(found.length).toBe(7)
    expect([...found].sort()).toEqual([...live].sort())
  })

  test('webhooks: create (the secret once), list, test, deliveries, delete', async () => {
    const rl = client()
    const receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(null, { status: 204 }) })
    try {
      const { webhook, secret } = await rl.webhooks.create(`http://127.0.0.1:${receiver.port}/in`, [
        'saved_item.created',
      ])
      expect(secret).toStartWith('whsec_')
      expect((await rl.webhooks.list()).map((w) => w.id)).toEqual([webhook.id])
      expect(await rl.webhooks.test(webhook.id)).toMatchObject({ status: 'delivered', responseStatus: 204 })
      expect((await rl.webhooks.deliveries(webhook.id)).map((d) => d.type)).toEqual(['webhook.test'])
      await rl.webhooks.delete(webhook.id)
      expect(await rl.webhooks.list()).toEqual([])
    } finally {
      receiver.stop(true)
    }
  })

  test('every write carries an Idempotency-Key; one given is sent as is', async () => {
    const rl = client()
    sent.length = 0
    await rl.capture({ url: 'https://client.example/keyed' }, { idempotencyKey: 'my-key-1' })
    await rl.capture({ url: 'https://client.example/keyed' }, { idempotencyKey: 'my-key-1' })
    await rl.folders.create('Keyed')
    expect(sent.map((s) => s.key)).toEqual(['my-key-1', 'my-key-1', expect.stringMatching(/^[0-9a-f-]{36}$/)])
    // The same key twice: the second is the first's answer replayed, not a second capture.
    const items = []
    for await (const item of rl.savedItems.all())
      if (item.normalizedUrl === 'https://client.example/keyed') items.push(item)
    expect(items.length).toBe(1)
  })

  test('highlights: create, list for an item, list all (a page and every page), update, delete (docs/highlights.md)', async () => {
    const rl = client()
    const { savedItem } = await rl.capture({ url: 'https://client.example/highlighted' })
    await h.db.$client.execute({
      sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 6, '<p>x</p>', ?, ?)",
      args: [savedItem.id, 'One passage here. Another passage there.', savedItem.createdAt],
    })
    const first = await rl.highlights.create(savedItem.id, { quote: { exact: 'Another passage' }, note: 'Why' })
    expect(first).toMatchObject({
      savedItemId: savedItem.id,
      quote: { exact: 'Another passage', prefix: 'One passage here. ', suffix: ' there.' },
      position: { start: 18, end: 33 },
      color: 'yellow',
      note: 'Why',
    })
    const second = await rl.highlights.create(savedItem.id, { quote: { exact: 'One' }, color: 'green' })
    expect((await rl.highlights.listForItem(savedItem.id)).map((x) => x.id)).toEqual([second.id, first.id])
    const page = await rl.highlights.list({ limit: 1 })
    expect(page.highlights.length).toBe(1)
    expect(page.highlights[0]!.savedItem).toEqual({
      id: savedItem.id,
      title: null,
      normalizedUrl: savedItem.normalizedUrl,
    })
    expect(page.nextCursor).toEqual(expect.any(String))
    const all: string[] = []
    for await (const highlight of rl.highlights.all({ limit: 1 })) all.push(highlight.id)
    expect(all.sort()).toEqual([first.id, second.id].sort())
    expect((await rl.highlights.update(first.id, { color: 'pink', note: null })).note).toBeNull()
    await rl.highlights.delete(second.id)
    const missing = await rl.highlights.delete(second.id).catch((error: unknown) => error)
    expect(missing).toMatchObject({ status: 404, tag: 'HighlightNotFoundError' })
    const notThere = await rl.highlights
      .create(savedItem.id, { quote: { exact: 'not in the text' } })
      .catch((error: unknown) => error)
    expect(notThere).toMatchObject({ status: 422, tag: 'HighlightAnchorError' })
  })

  test("an article's archived images: found in its HTML, read with the bearer as a typed Blob; a missing one is ImageNotFoundError", async () => {
    const rl = client()
    const { savedItem } = await rl.capture({ url: 'https://client.example/pictures' })
    const app = h.config.appUrl
    const html = `<p>A picture.</p><p><img src="${archivedImageUrl(app, savedItem.id, 1)}" alt=""></p>`
    const bytes = png(3, 3)
    await storeArticle(
      h.db,
      savedItem.id,
      { title: 'P', byline: null, siteName: null, lang: null, html, text: 'A picture.', wordCount: 2 },
      h.clock.now().toISOString(),
      null,
      { keep: [], add: [{ n: 1, originalUrl: 'https://cdn.example/p.png', mediaType: 'image/png', bytes }] },
    )
    const article = (await rl.savedItems.content(savedItem.id)) as ArticleHtml
    const src = /src="([^"]+)"/.exec(article.html)![1]!
    const ref = archivedImageOf(src, app)
    expect(ref).toEqual({ itemId: savedItem.id, n: 1 })
    const blob = await rl.savedItems.image(ref!.itemId, ref!.n)
    expect(blob.type).toBe('image/png')
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(bytes)
    const missing = await rl.savedItems.image(savedItem.id, 2).catch((error: unknown) => error)
    expect(missing).toMatchObject({ status: 404, tag: 'ImageNotFoundError', body: { savedItemId: savedItem.id } })
    // The client's copy of the rule answers as core's does.
    for (const url of [
      src,
      `${app}/items/x/images/0`,
      `${app}/items/a%20b/images/12`,
      'https://elsewhere.example/items/x/images/1',
    ])
      expect(archivedImageOf(url, app)).toEqual(coreArchivedImageOf(url, app))
  })

  test('every call it makes is an operation of /openapi.json', async () => {
    const doc = await (await fetch(`${base}/openapi.json`)).json()
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => ({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      })),
    )
    expect(sent.length).toBeGreaterThan(0)
    const used = new Set(sent.map((s) => `${s.method} ${s.path}`))
    for (const call of used) {
      const [method, path] = call.split(' ') as [string, string]
      expect(
        operations.some((op) => op.method === method && op.pattern.test(path)),
        call,
      ).toBe(true)
    }
  })
})

describe('retries', () => {
  test('a 429 is retried after its Retry-After with the same Idempotency-Key, and then succeeds', async () => {
    const limited = await createHarness({ env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_S: '1' } })
    const limitedKey = await (await limited.user()).key()
    const attempts: { status: number; key: string | null }[] = []
    const rl = createClient({
      baseUrl: 'http://localhost:3000',
      token: limitedKey,
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        const response = await limited.server.fetch(new Request(String(input), init), { clientIp: '127.0.0.1' })
        attempts.push({ status: response.status, key: new Headers(init?.headers).get('idempotency-key') })
        // The service's clock is the test's: the wait the client makes is the window passing.
        if (response.status === 429) limited.clock.advance(Number(response.headers.get('retry-after')) * 1000)
        return response
      }) as typeof fetch,
    })
    await rl.capture({ url: 'https://retry.example/1' })
    await rl.capture({ url: 'https://retry.example/2' })
    const third = await rl.capture({ url: 'https://retry.example/3' })
    expect(third.captureResult).toBe('created')
    const last = attempts.slice(2)
    expect(last[0]!.status).toBe(429)
    expect(last.at(-1)!.status).toBe(201)
    expect(new Set(last.map((a) => a.key)).size).toBe(1)
  }, 10_000)

  test('gives up after maxRetries with the typed 429', async () => {
    let calls = 0
    const rl = createClient({
      baseUrl: 'http://localhost:3000',
      token: 'rl_x',
      maxRetries: 2,
      fetch: (async () => {
        calls++
        return new Response(JSON.stringify({ _tag: 'RateLimitExceeded', message: 'slow down' }), {
          status: 429,
          headers: { 'retry-after': '0', 'content-type': 'application/json' },
        })
      }) as unknown as typeof fetch,
    })
    const error = await rl.me().catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 429, tag: 'RateLimitExceeded', message: 'slow down' })
    expect(calls).toBe(3)
  })
})
