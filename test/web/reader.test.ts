import { afterEach, describe, expect, test } from 'bun:test'
import { OFFLINE_SCRIPT_ASSET } from '../../adapters/http/web/pages/offline-asset.ts'
import { HTML_HEADERS } from '../../adapters/http/web/pages/layout.ts'
import { READER_SCRIPT_VERSION } from '../../adapters/http/web/reader-script.ts'
import { cleanUp } from '../enrichment/enrichment-helpers.ts'
import { createHarness, type Harness } from '../helpers/harness.ts'
import { userIdOf } from './fixtures.ts'
import {
  apiKeyFor,
  articlePage,
  captureItem,
  contentOf,
  enrich,
  HOSTILE_ARTICLE,
  itemOf,
  storeRawArticle,
} from './reader-fixtures.ts'
import { textOf, WebClient } from './web-client.ts'

// The reader view over HTTP (docs/web.md#reader-view): what the page shows and to whom, its headers,
// the progress route the page's script posts to, and the queue's links to it.

afterEach(cleanUp)

const READER_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' https: data:; manifest-src 'self'; style-src 'self' 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

const env = { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000' }

interface Reader {
  h: Harness
  web: WebClient
  key: string
}

/** A person signed in through the pages, with an API key to check what the pages did. */
async function reader(email: string, harness?: Harness): Promise<Reader> {
  const h = harness ?? (await createHarness({ env }))
  const web = new WebClient(h)
  await web.signUp(email)
  await web.get('/')
  return { h, web, key: await apiKeyFor(h, await userIdOf(h, email)) }
}

/** An item whose article came through the real pipeline: a capture with the page, then enrichment. */
async function readableItem(r: Reader, url = 'https://notes.example.com/posts/reading'): Promise<string> {
  const page = articlePage({ title: 'On reading slowly', site: 'Field Notes', author: 'Ada Lovelace', paragraphs: 12 })
  const id = await captureItem(r.h, r.key, url, page)
  await enrich(r.h, r.key, [id])
  return id
}

const progressRows = async (h: Harness) =>
  JSON.stringify((await h.db.$client.execute('SELECT * FROM reading_progress ORDER BY item_id')).rows)

describe('GET /items/:id', () => {
  test('the owner sees the title, site, byline, reading time and the sanitized article', async () => {
    const r = await reader('owner@example.com')
    const id = await readableItem(r)
    const content = await contentOf(r.h, r.key, id)
    expect(content).toMatchObject({ title: 'On reading slowly', siteName: 'Field Notes', byline: 'Ada Lovelace' })
    expect(content.readingMinutes).toBeGreaterThan(1)

    const page = await r.web.get(`/items/${id}`)
    expect(page.status).toBe(200)
    expect(page.text).toContain('<title>On reading slowly · Readlater</title>')
    expect(page.text).toContain('<h1 lang="en">On reading slowly</h1>')
    expect(page.text).toContain('<p class="muted reader-site">Field Notes</p>')
    expect(page.text).toContain(`<p class="muted reader-byline">Ada Lovelace · ${content.readingMinutes} min read</p>`)
    // The stored article byte for byte: sanitized markup passes the page's own tag gate unchanged.
    expect(page.text).toContain(`<div class="article" lang="en">${content.html}</div>`)
    expect(textOf(page.text)).toContain('Paragraph 12. The reader view keeps a measure')
    expect(page.text).toContain(
      '<a class="button secondary" href="https://notes.example.com/posts/reading" target="_blank" rel="noopener noreferrer">Open original</a>',
    )
    expect(page.text).toContain(`<form method="post" action="/queue/items/${id}/read-state">`)
    expect(page.text).toContain('<button type="submit" class="secondary">Mark read</button>')
    // What the script needs comes as data- attributes; the only scripts are our own files (the offline one:
    // docs/web.md#offline).
    expect(page.text).toContain(
      `<article class="reader" data-item-id="${id}" data-csrf="${r.web.csrf}" data-progress="0">`,
    )
    expect(page.text.match(/<script\b[^>]*>/g)).toEqual([
      `<script src="${OFFLINE_SCRIPT_ASSET.src}" defer>`,
      `<script src="/assets/reader.js?v=${READER_SCRIPT_VERSION}" defer>`,
    ])
    expect(page.text).toContain('max-width: 70ch')
  })

  test('the CSP is exactly the reader policy, with the other page headers kept', async () => {
    const r = await reader('headers@example.com')
    const id = await readableItem(r)
    const page = await r.web.get(`/items/${id}`)
    expect(page.headers.get('content-security-policy')).toBe(READER_CSP)
    for (const [name, value] of Object.entries(HTML_HEADERS))
      if (name !== 'content-security-policy') expect(page.headers.get(name)).toBe(value)
  })

  test("another person's item and an unknown id are the same 404 page", async () => {
    const h = await createHarness({ env })
    const owner = await reader('mine@example.com', h)
    const stranger = await reader('stranger@example.com', h)
    const id = await readableItem(owner)
    const theirs = await stranger.web.get(`/items/${id}`)
    const unknown = await stranger.web.get('/items/01900000-0000-7000-8000-000000000000')
    const garbage = await stranger.web.get('/items/%E0%A4%A')
    for (const page of [theirs, unknown, garbage]) {
      expect(page.status).toBe(404)
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(textOf(page.text)).toContain('Page not found There is nothing at this address.')
    }
    expect(theirs.text).toBe(unknown.text)
    expect(theirs.text).not.toContain('On reading slowly')
  })

  test('signed out: sent to sign in, and brought back', async () => {
    const r = await reader('away@example.com')
    const id = await readableItem(r)
    const page = await new WebClient(r.h).get(`/items/${id}`)
    expect(page.status).toBe(303)
    expect(page.location).toBe(`/sign-in?next=/items/${id}`)
  })

  test('an item without an article says so, still with "Open original", and loads no script', async () => {
    const r = await reader('pending@example.com')
    const id = await captureItem(r.h, r.key, 'https://slow.example.com/not-yet')
    const page = await r.web.get(`/items/${id}`)
    expect(page.status).toBe(200)
    expect(textOf(page.text)).toContain('This item has no readable content yet.')
    expect(page.text).toContain(
      '<a class="button secondary" href="https://slow.example.com/not-yet" target="_blank" rel="noopener noreferrer">Open original</a>',
    )
    expect(page.text).toContain('Mark read</button>')
    expect(page.text).not.toContain('<script')
    expect(page.text).not.toContain('data-item-id')
    expect(page.headers.get('content-security-policy')).toBe(READER_CSP)
  })

  test('"Mark read" comes back to the item, which then offers "Mark unread"', async () => {
    const r = await reader('marks@example.com')
    const id = await readableItem(r)
    await r.web.get(`/items/${id}`)
    const marked = await r.web.post(`/queue/items/${id}/read-state`, { isRead: 'true', return: 'reader' })
    expect(marked.status).toBe(303)
    expect(marked.location).toBe(`/items/${id}`)
    expect((await itemOf(r.h, r.key, id)).isRead).toBe(true)
    const page = await r.web.get(`/items/${id}`)
    expect(page.text).toContain('<input type="hidden" name="isRead" value="false">')
    expect(page.text).toContain('Mark unread</button>')
    const unmarked = await r.web.post(`/queue/items/${id}/read-state`, { isRead: 'false', return: 'reader' })
    expect(unmarked.location).toBe(`/items/${id}`)
    expect((await itemOf(r.h, r.key, id)).isRead).toBe(false)
  })

  test('markup stored past the sanitizer becomes text, and sanitized articles are untouched', async () => {
    const r = await reader('gate@example.com')
    const id = await captureItem(r.h, r.key, 'https://hostile.example.com/')
    await storeRawArticle(r.h, id, HOSTILE_ARTICLE)
    const page = await r.web.get(`/items/${id}`)
    const article = page.text.slice(page.text.indexOf('<div class="article"'), page.text.indexOf('</article>'))
    for (const tag of ['script', 'iframe', 'link', 'meta', 'base', 'form', 'button', 'svg', 'object', 'embed'])
      expect(article).not.toMatch(new RegExp(`<${tag}[\\s>/]`, 'i'))
    expect(article).toContain('&lt;meta http-equiv="refresh"')
    expect(article).toContain('&lt;script>window.__pwned = 1&lt;/script>')
    // The allowed elements stay elements (their attributes are the CSP's to disarm).
    expect(article).toContain('<img src="x" onerror="window.__pwned = 1">')
    expect(article).toContain('<a id="js-link" href="javascript:window.__pwned = 1">x</a>')
    // Our two files (the reader's, the offline one), no other.
    expect(page.text.match(/<script\b[^>]*>/g)).toHaveLength(2)
  })
})

describe('POST /items/:id/progress', () => {
  test('saves the position: 204, no redirect, and the API reads it back; the item stays unread', async () => {
    const r = await reader('progress@example.com')
    const id = await readableItem(r)
    await r.web.get(`/items/${id}`)
    const saved = await r.web.post(`/items/${id}/progress`, { progress: '0.42' })
    expect(saved.status).toBe(204)
    expect(saved.location).toBeNull()
    expect(saved.text).toBe('')
    expect((await contentOf(r.h, r.key, id)).progress).toBe(0.42)
    expect((await itemOf(r.h, r.key, id)).isRead).toBe(false)
    // The page passes the saved position to its script.
    expect((await r.web.get(`/items/${id}`)).text).toContain('data-progress="0.42"')
  })

  test('progress 1 marks the item read', async () => {
    const r = await reader('finished@example.com')
    const id = await readableItem(r)
    await r.web.get(`/items/${id}`)
    expect((await r.web.post(`/items/${id}/progress`, { progress: '1' })).status).toBe(204)
    expect((await contentOf(r.h, r.key, id)).progress).toBe(1)
    expect((await itemOf(r.h, r.key, id)).isRead).toBe(true)
  })

  test('a wrong or missing CSRF token: 403, nothing written', async () => {
    const r = await reader('csrf-progress@example.com')
    const id = await readableItem(r)
    await r.web.get(`/items/${id}`)
    const before = await progressRows(r.h)
    for (const csrf of [null, '', 'A'.repeat(43)]) {
      const refused = await r.web.post(`/items/${id}/progress`, { progress: '0.5' }, { csrf })
      expect(refused.status).toBe(403)
      expect(textOf(refused.text)).toContain('Form expired')
      expect(refused.text).toContain(`href="/items/${id}"`)
    }
    expect(await progressRows(r.h)).toBe(before)
    expect((await contentOf(r.h, r.key, id)).progress).toBe(0)
  })

  test.each(['-0.1', '1.01', '2', '', ' ', 'abc', 'NaN', 'Infinity', '0x1', '1e0', '-0', '0.5,0.6'])(
    'progress=%p: 400, nothing written',
    async (progress) => {
      const r = await reader(`range-${Math.random()}@example.com`)
      const id = await readableItem(r)
      await r.web.get(`/items/${id}`)
      const refused = await r.web.post(`/items/${id}/progress`, { progress })
      expect(refused.status).toBe(400)
      expect(refused.text).toBe('progress must be a number from 0 to 1.')
      expect(await progressRows(r.h)).toBe('[]')
    },
  )

  test('no progress field at all: 400, nothing written', async () => {
    const r = await reader('missing-field@example.com')
    const id = await readableItem(r)
    await r.web.get(`/items/${id}`)
    expect((await r.web.post(`/items/${id}/progress`, {})).status).toBe(400)
    expect(await progressRows(r.h)).toBe('[]')
  })

  test("another person's item: 404, nothing written; signed out: 401, no redirect", async () => {
    const h = await createHarness({ env })
    const owner = await reader('owner-progress@example.com', h)
    const stranger = await reader('stranger-progress@example.com', h)
    const id = await readableItem(owner)
    const theirs = await stranger.web.post(`/items/${id}/progress`, { progress: '0.5' })
    expect(theirs.status).toBe(404)
    const nobody = new WebClient(h)
    await nobody.get('/sign-in')
    const signedOut = await nobody.post(`/items/${id}/progress`, { progress: '0.5' })
    expect(signedOut.status).toBe(401)
    expect(signedOut.location).toBeNull()
    expect(await progressRows(h)).toBe('[]')
  })
})

describe('GET /assets/reader.js', () => {
  test('our own script, cacheable for good at the version the page asks for', async () => {
    const h = await createHarness({ env })
    const web = new WebClient(h)
    const script = await web.get(`/assets/reader.js?v=${READER_SCRIPT_VERSION}`)
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(script.headers.get('x-content-type-options')).toBe('nosniff')
    expect(script.text).toContain('keepalive')
    expect(script.text).toContain("'/progress'")
    // Any other address of it is checked again: a stale page never pins an old script.
    const plain = await web.get('/assets/reader.js')
    expect(plain.headers.get('cache-control')).toBe('no-cache')
    const again = await web.request('GET', '/assets/reader.js', undefined, {
      'if-none-match': plain.headers.get('etag')!,
    })
    expect(again.status).toBe(304)
  })
})

describe('the queue', () => {
  test('links an item with an article to its reader view, and the others to their original', async () => {
    const r = await reader('queue-links@example.com')
    const readable = await readableItem(r, 'https://notes.example.com/posts/readable')
    const plain = await captureItem(r.h, r.key, 'https://plain.example.com/no-article')
    const queue = await r.web.get('/')
    // Both titles open through the queue (docs/web.md#queue), which records the visit and goes on.
    expect(queue.text).toContain(`<a class="title" href="/queue/items/${readable}/open">On reading slowly</a>`)
    expect(queue.text).toContain(
      '<a class="original" href="https://notes.example.com/posts/readable" target="_blank" rel="noreferrer">Field Notes</a>',
    )
    expect(queue.text).toContain(
      `<a class="title" href="/queue/items/${plain}/open" target="_blank" rel="noreferrer">https://plain.example.com/no-article</a>`,
    )
    expect(textOf(queue.text)).toMatch(/Field Notes · \d+ min read/)
    expect((await r.web.get(`/queue/items/${readable}/open`)).location).toBe(`/items/${readable}`)
    expect((await r.web.get(`/queue/items/${plain}/open`)).location).toBe('https://plain.example.com/no-article')
  })
})
