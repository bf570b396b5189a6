import { afterEach, describe, expect, test } from 'bun:test'
import { readPage } from '../fixtures/pages/read-page.ts'
import { countRows } from '../helpers/harness.ts'
import {
  cleanUp,
  restItem,
  setup,
  startWorkers,
  waitFor,
  waitForStatus,
  type Setup,
} from '../enrichment/enrichment-helpers.ts'

// docs/reading.md: the article of an item over REST — page capture, the content endpoint, progress.

afterEach(cleanUp)

const ARTICLE = new TextDecoder().decode(readPage('article'))
const URL_ = 'https://example.com/blog/streaming-html'

/** Workers whose fetch fails the test: a capture with a page must never reach the network. */
function noFetchWorkers(s: Setup): { fetches: string[] } {
  const fetches: string[] = []
  startWorkers(s, async (url) => {
    fetches.push(url)
    throw new Error(`unexpected fetch of ${url}`)
  })
  return { fetches }
}

async function captureWithPage(s: Setup, html: string, url = URL_, token = s.key) {
  const reply = await s.h.call('POST', '/v1/captures', { token, body: { url, html } })
  expect([200, 201]).toContain(reply.status)
  return reply.body.savedItem
}

/** Waits until the item's article exists (or, for a recapture, has changed from `before`). */
function contentOf(s: Setup, id: string, differentFrom?: string, token = s.key): Promise<any> {
  return waitFor(`content of ${id}`, async () => {
    const reply = await s.h.call('GET', `/v1/saved-items/${id}/content`, { token })
    return reply.status === 200 && reply.body.extractedAt !== differentFrom ? reply.body : null
  })
}

const progressRows = async (s: Setup) => countRows(s.h.db, 'reading_progress')

describe('capture with the rendered page', () => {
  test('enrichment reads the page instead of fetching: the item is enriched and has its article', async () => {
    const s = await setup()
    const { fetches } = noFetchWorkers(s)
    const item = await captureWithPage(s, ARTICLE)
    const enriched = await waitForStatus(s.h, s.key, item.id, 'enriched')
    expect(enriched.title).toBe('Parsing HTML as it streams, in TypeScript')
    const content = await contentOf(s, item.id)
    expect(fetches).toEqual([])
    expect(Object.keys(content).sort()).toEqual(
      [
        'byline',
        'extractedAt',
        'html',
        'lang',
        'progress',
        'readingMinutes',
        'savedItemId',
        'siteName',
        'text',
        'title',
        'wordCount',
      ].sort(),
    )
    expect(content.savedItemId).toBe(item.id)
    expect(content.title).toBe('Parsing HTML as it streams, in TypeScript')
    expect(content.byline).toBe('Ada Example')
    expect(content.siteName).toBe('Example Engineering')
    expect(content.lang).toBe('en')
    expect(content.wordCount).toBe(148)
    expect(content.readingMinutes).toBe(1)
    expect(content.progress).toBe(0)
    expect(content.extractedAt).toBe(s.h.clock.now().toISOString())
    // Relative links resolved against the captured URL, and marked.
    expect(content.html).toContain(
      '<a href="https://example.com/authors/ada" rel="noopener noreferrer nofollow">Ada Example</a>',
    )
    expect(content.html).not.toContain('<script')
    expect(content.text.startsWith('By Ada Example · March 14, 2025\n\nWhen someone saves a link')).toBe(true)
    // The stored page is dropped once used.
    expect(await countRows(s.h.db, 'captured_pages')).toBe(0)
    // The log line follows the stored result (the worker yields between its writes).
    const log = await waitFor('the enrichment log line', () =>
      s.h.logs.find((entry) => entry.msg === 'enrichment' && entry.itemId === item.id),
    )
    expect(log).toMatchObject({ outcome: 'enriched', source: 'page', articleWords: 148 })
  })

  test('?format=markdown answers the same object with markdown instead of html and text', async () => {
    const s = await setup()
    noFetchWorkers(s)
    const item = await captureWithPage(s, ARTICLE)
    const html = await contentOf(s, item.id)
    const reply = await s.h.call('GET', `/v1/saved-items/${item.id}/content?format=markdown`, { token: s.key })
    expect(reply.status).toBe(200)
    const { markdown, ...head } = reply.body
    const { html: _, text: __, ...htmlHead } = html
    expect(head).toEqual(htmlHead)
    expect(markdown.startsWith('By [Ada Example](https://example.com/authors/ada) · March 14, 2025\n\n')).toBe(true)
    expect(markdown).toContain('`<head>`')
    const explicit = await s.h.call('GET', `/v1/saved-items/${item.id}/content?format=html`, { token: s.key })
    expect(explicit.body).toEqual(html)
  })

  test('a recapture with html replaces the article; without html it keeps it; progress is kept', async () => {
    const s = await setup()
    noFetchWorkers(s)
    const item = await captureWithPage(s, ARTICLE)
    const first = await contentOf(s, item.id)
    // The article is stored a turn before the job is settled (the worker yields between its writes).
    await waitFor('the job to be settled', async () =>
      (await countRows(s.h.db, 'enrichment_jobs')) === 0 ? true : null,
    )
    await s.h.call('PUT', `/v1/saved-items/${item.id}/progress`, { token: s.key, body: { progress: 0.3 } })

    s.h.clock.advance(1000)
    await s.h.call('POST', '/v1/captures', { token: s.key, body: { url: URL_ } })
    expect(await countRows(s.h.db, 'enrichment_jobs')).toBe(0)
    expect((await s.h.call('GET', `/v1/saved-items/${item.id}/content`, { token: s.key })).body).toEqual({
      ...first,
      progress: 0.3,
    })
    s.h.clock.advance(1000)
    const edited = ARTICLE.replace('When someone saves a link', 'When a person keeps a link')
    const again = await captureWithPage(s, edited)
    expect(again.id).toBe(item.id)
    const second = await contentOf(s, item.id, first.extractedAt)
    expect(second.text).toContain('When a person keeps a link')
    expect(second.text).not.toContain('When someone saves a link')
    expect(second.progress).toBe(0.3)
    expect((await restItem(s.h, s.key, item.id)).enrichmentStatus).toBe('enriched')
  })

  test('a page with nothing readable: the item is enriched from it, and has no article (404 ContentNotFoundError)', async () => {
    const s = await setup()
    noFetchWorkers(s)
    const item = await captureWithPage(s, '<html><head><title>Only a title</title></head><body></body></html>')
    const enriched = await waitForStatus(s.h, s.key, item.id, 'enriched')
    expect(enriched.title).toBe('Only a title')
    const reply = await s.h.call('GET', `/v1/saved-items/${item.id}/content`, { token: s.key })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({
      _tag: 'ContentNotFoundError',
      message: expect.stringContaining(item.id),
      savedItemId: item.id,
    })
  })

  test('a body over 64 KiB is taken when it carries html, up to 5 MiB; pages over 2 MiB are cut there', async () => {
    const s = await setup()
    const big = `<html><body><article><p>${'word '.repeat(700_000)}</p></article></body></html>` // 3.5 MB
    const item = await captureWithPage(s, big)
    const [stored] = (await s.h.db.$client.execute('SELECT length(CAST(html AS BLOB)) AS bytes FROM captured_pages'))
      .rows as any[]
    expect(Number(stored.bytes)).toBe(2 * 1024 * 1024)
    noFetchWorkers(s)
    const content = await contentOf(s, item.id)
    expect(content.wordCount).toBeGreaterThan(100_000)
    expect(new TextEncoder().encode(content.html).byteLength).toBeLessThanOrEqual(1024 * 1024)
  })
})

describe('bad input is refused and writes nothing', () => {
  const padded = (size: number) =>
    JSON.stringify({ url: 'https://example.com/padded', tags: ['ai'] }) + ' '.repeat(size)

  test('a body over 5 MiB with html: 413 PayloadTooLargeError', async () => {
    const s = await setup()
    const reply = await s.h.call('POST', '/v1/captures', {
      token: s.key,
      body: { url: URL_, html: 'x'.repeat(5 * 1024 * 1024) },
    })
    expect(reply.status).toBe(413)
    expect(reply.body._tag).toBe('PayloadTooLargeError')
    expect(await countRows(s.h.db, 'saved_items')).toBe(0)
    expect(await countRows(s.h.db, 'captured_pages')).toBe(0)
  })

  test('a body over 64 KiB without html: 413, as before', async () => {
    const s = await setup()
    const reply = await s.h.call('POST', '/v1/captures', {
      token: s.key,
      raw: padded(70 * 1024),
      headers: { 'content-type': 'application/json' },
    })
    expect(reply.status).toBe(413)
    expect(reply.body).toEqual({ _tag: 'PayloadTooLargeError', message: 'Request body is over the 64 KiB limit' })
    expect(await countRows(s.h.db, 'saved_items')).toBe(0)
  })

  test.each([
    ['a number', 42],
    ['null', null],
    ['an object', { html: '<p>x</p>' }],
    ['an array', ['<p>x</p>']],
  ])('html that is %s: 400 ValidationError', async (_, html) => {
    const s = await setup()
    const reply = await s.h.call('POST', '/v1/captures', { token: s.key, body: { url: URL_, html } })
    expect(reply.status).toBe(400)
    expect(reply.body._tag).toBe('ValidationError')
    expect(reply.body.message).toContain('html')
    expect(await countRows(s.h.db, 'saved_items')).toBe(0)
    expect(await countRows(s.h.db, 'captured_pages')).toBe(0)
  })

  test.each([
    ['over 1', { progress: 1.5 }],
    ['below 0', { progress: -0.1 }],
    ['a string', { progress: '0.5' }],
    ['null', { progress: null }],
    ['missing', {}],
    ['with an extra field', { progress: 0.5, extra: true }],
  ])('progress %s: 400 ValidationError', async (_, body) => {
    const s = await setup()
    const item = await captureWithPage(s, ARTICLE)
    const reply = await s.h.call('PUT', `/v1/saved-items/${item.id}/progress`, { token: s.key, body })
    expect(reply.status).toBe(400)
    expect(reply.body._tag).toBe('ValidationError')
    expect(await progressRows(s)).toBe(0)
  })

  test('a format other than html or markdown: 400 ValidationError', async () => {
    const s = await setup()
    const item = await captureWithPage(s, ARTICLE)
    const reply = await s.h.call('GET', `/v1/saved-items/${item.id}/content?format=pdf`, { token: s.key })
    expect(reply.status).toBe(400)
    expect(reply.body._tag).toBe('ValidationError')
  })
})

describe('content and progress', () => {
  test('content: 404 SavedItemNotFoundError for an unknown id; ContentNotFoundError while pending', async () => {
    const s = await setup()
    const unknown = await s.h.call('GET', '/v1/saved-items/nope/content', { token: s.key })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({
      _tag: 'SavedItemNotFoundError',
      message: 'No saved item with id "nope"',
      savedItemId: 'nope',
    })
    const item = await captureWithPage(s, ARTICLE)
    const pending = await s.h.call('GET', `/v1/saved-items/${item.id}/content`, { token: s.key })
    expect(pending.status).toBe(404)
    expect(pending.body._tag).toBe('ContentNotFoundError')
  })

  test("another person's item: 404 SavedItemNotFoundError for its content and its progress, nothing written", async () => {
    const s = await setup()
    noFetchWorkers(s)
    const item = await captureWithPage(s, ARTICLE)
    await contentOf(s, item.id)
    const other = await (await s.h.user()).key()
    const read = await s.h.call('GET', `/v1/saved-items/${item.id}/content`, { token: other })
    expect(read.status).toBe(404)
    expect(read.body._tag).toBe('SavedItemNotFoundError')
    const markdown = await s.h.call('GET', `/v1/saved-items/${item.id}/content?format=markdown`, { token: other })
    expect(markdown.status).toBe(404)
    const write = await s.h.call('PUT', `/v1/saved-items/${item.id}/progress`, {
      token: other,
      body: { progress: 0.9 },
    })
    expect(write.status).toBe(404)
    expect(write.body._tag).toBe('SavedItemNotFoundError')
    expect(await progressRows(s)).toBe(0)
  })

  test('progress is saved and read back; 1 also marks the item read; unknown ids are 404', async () => {
    const s = await setup()
    noFetchWorkers(s)
    const item = await captureWithPage(s, ARTICLE)
    await contentOf(s, item.id)
    s.h.clock.advance(5000)
    const saved = await s.h.call('PUT', `/v1/saved-items/${item.id}/progress`, {
      token: s.key,
      body: { progress: 0.42 },
    })
    expect(saved.status).toBe(200)
    expect(saved.body).toEqual({ savedItemId: item.id, progress: 0.42, updatedAt: s.h.clock.now().toISOString() })
    expect((await s.h.call('GET', `/v1/saved-items/${item.id}/content`, { token: s.key })).body.progress).toBe(0.42)
    expect((await restItem(s.h, s.key, item.id)).isRead).toBe(false)

    const done = await s.h.call('PUT', `/v1/saved-items/${item.id}/progress`, { token: s.key, body: { progress: 1 } })
    expect(done.status).toBe(200)
    const read = await restItem(s.h, s.key, item.id)
    expect(read.isRead).toBe(true)
    expect(read.updatedAt).toBe(s.h.clock.now().toISOString())
    expect(await progressRows(s)).toBe(1)

    const unknown = await s.h.call('PUT', '/v1/saved-items/nope/progress', { token: s.key, body: { progress: 0.5 } })
    expect(unknown.status).toBe(404)
    expect(unknown.body._tag).toBe('SavedItemNotFoundError')
  })

  test('progress may be set before there is an article, and deleting the item deletes its article and progress', async () => {
    const s = await setup()
    const item = await captureWithPage(s, ARTICLE)
    const early = await s.h.call('PUT', `/v1/saved-items/${item.id}/progress`, { token: s.key, body: { progress: 0 } })
    expect(early.status).toBe(200)
    noFetchWorkers(s)
    expect((await contentOf(s, item.id)).progress).toBe(0)
    expect(await countRows(s.h.db, 'item_contents')).toBe(1)
    await s.h.call('DELETE', `/v1/saved-items/${item.id}`, { token: s.key })
    expect(await countRows(s.h.db, 'item_contents')).toBe(0)
    expect(await progressRows(s)).toBe(0)
  })
})
