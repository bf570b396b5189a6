import { describe, expect, test } from 'bun:test'
import { readBook } from '../core/export/epub-fixtures.ts'
import { createHarness } from '../helpers/harness.ts'
import { signedInWithKey } from './fixtures.ts'
import { captureItem, storeRawArticle } from './reader-fixtures.ts'
import { WebClient } from './web-client.ts'

// docs/web.md: "Download EPUB" in the reader view and on the queue, and Settings' EPUB export links
// (docs/import-export.md#epub), over HTTP on the three drivers (test/web is in test:libsql and test:client).

/** A download through the pages, with the session's cookies (WebClient reads bodies as text). */
async function download(web: WebClient, path: string) {
  const cookie = [...web.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  const response = await web.harness.server.fetch(
    new Request(web.origin + path, { headers: cookie ? { cookie } : {} }),
    { clientIp: web.ip },
  )
  return {
    status: response.status,
    headers: response.headers,
    location: response.headers.get('location'),
    bytes: new Uint8Array(await response.arrayBuffer()),
  }
}

/** The `href` of the link with this exact text on a page. */
function linkTo(page: string, label: string): string | null {
  for (const match of page.matchAll(/<a ([^>]*)>([^<]*)<\/a>/g)) {
    if (match[2] !== label) continue
    const href = /href="([^"]*)"/.exec(match[1]!)
    return href ? href[1]!.replace(/&amp;/g, '&') : null
  }
  return null
}

async function follow(web: WebClient, page: string, label: string) {
  const href = linkTo(page, label)
  expect(href).not.toBeNull()
  const answer = await download(web, href!)
  expect(answer.status).toBe(200)
  expect(answer.headers.get('content-type')).toBe('application/epub+zip')
  expect(answer.headers.get('content-disposition')).toStartWith('attachment; filename="')
  return { href: href!, book: readBook(answer.bytes) }
}

const titles = (book: ReturnType<typeof readBook>) => book.toc.map(([, title]) => title)

describe('reader view: "Download EPUB"', () => {
  test('an item with an article links to /items/{id}/epub, which is its book; without an article, no link', async () => {
    const { h, web, key } = await signedInWithKey('epub-reader@example.com')
    const id = await captureItem(h, key, 'https://example.com/post')
    const bare = await captureItem(h, key, 'https://example.com/bare')
    await storeRawArticle(h, id, '<p>The article &amp; its text.</p>', { title: 'A post' })
    const page = await web.get(`/items/${id}`)
    expect(page.status).toBe(200)
    expect(page.text).toContain(`<a class="button secondary" href="/items/${id}/epub" download>Download EPUB</a>`)
    const { book } = await follow(web, page.text, 'Download EPUB')
    expect(book.toc).toEqual([['chapter-001.xhtml', 'A post']])
    expect(book.text('EPUB/chapter-001.xhtml')).toContain('<p>The article &#38; its text.</p>')
    expect(linkTo((await web.get(`/items/${bare}`)).text, 'Download EPUB')).toBeNull()
  })

  test('another person’s item is the 404 page; signed out, sign in first and come back', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
    const owner = await signedInWithKey('epub-owner@example.com', h)
    const other = await signedInWithKey('epub-other@example.com', h)
    const id = await captureItem(h, owner.key, 'https://example.com/mine')
    const foreign = await download(other.web, `/items/${id}/epub`)
    expect(foreign.status).toBe(404)
    expect(foreign.headers.get('content-type')).toStartWith('text/html')
    const unknown = await download(other.web, '/items/017f22e2-79b0-7cc3-98c4-dc0c0c07398f/epub')
    expect(unknown.status).toBe(404)
    expect(new TextDecoder().decode(unknown.bytes)).toBe(new TextDecoder().decode(foreign.bytes))
    const signedOut = await download(new WebClient(h), `/items/${id}/epub`)
    expect(signedOut.status).toBe(303)
    expect(signedOut.location).toBe(`/sign-in?next=/items/${id}/epub`)
  })
})

describe('queue: "Download EPUB"', () => {
  test('the current view’s folder and state; none in the "Read" view', async () => {
    const { h, web, key } = await signedInWithKey('epub-queue@example.com')
    const folder = (await h.call('POST', '/v1/folders', { token: key, body: { name: 'Deep reads' } })).body.id
    const inFolder = await captureItem(h, key, 'https://example.com/in-folder')
    expect(
      (await h.call('PUT', `/v1/saved-items/${inFolder}/folder`, { token: key, body: { folderId: folder } })).status,
    ).toBe(200)
    h.clock.advance(1000)
    const read = await captureItem(h, key, 'https://example.com/read')
    expect((await h.call('POST', `/v1/saved-items/${read}/read`, { token: key })).status).toBe(200)
    h.clock.advance(1000)
    await captureItem(h, key, 'https://example.com/loose')

    const unread = await follow(web, (await web.get('/')).text, 'Download EPUB')
    expect(unread.href).toBe('/settings/export?format=epub&state=unread')
    expect(titles(unread.book)).toEqual(['https://example.com/loose', 'https://example.com/in-folder'])
    const all = await follow(web, (await web.get('/?state=all')).text, 'Download EPUB')
    expect(all.href).toBe('/settings/export?format=epub&state=all')
    expect(titles(all.book)).toEqual([
      'https://example.com/loose',
      'https://example.com/read',
      'https://example.com/in-folder',
    ])
    const filed = await follow(web, (await web.get(`/?state=all&folder=${folder}`)).text, 'Download EPUB')
    expect(filed.href).toBe(`/settings/export?format=epub&state=all&folder=${folder}`)
    expect(filed.book.title).toBe('Readlater: Deep reads, 2026-11-22')
    expect(titles(filed.book)).toEqual(['https://example.com/in-folder'])
    const none = await follow(web, (await web.get('/?folder=none')).text, 'Download EPUB')
    expect(titles(none.book)).toEqual(['https://example.com/loose'])
    expect(linkTo((await web.get('/?state=read')).text, 'Download EPUB')).toBeNull()
  })

  test('a folder of another person’s is the 404 page; a bad state the refused page', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
    const owner = await signedInWithKey('epub-folder-owner@example.com', h)
    const other = await signedInWithKey('epub-folder-other@example.com', h)
    const folder = (await h.call('POST', '/v1/folders', { token: owner.key, body: { name: 'Mine' } })).body.id
    const foreign = await download(other.web, `/settings/export?format=epub&folder=${folder}`)
    expect(foreign.status).toBe(404)
    expect(foreign.headers.get('content-type')).toStartWith('text/html')
    const bad = await download(other.web, '/settings/export?format=epub&state=read')
    expect(bad.status).toBe(400)
    expect(bad.headers.get('content-type')).toStartWith('text/html')
  })
})

describe('settings: EPUB export links', () => {
  test('"Export unread as EPUB" and "Export all as EPUB" download the books', async () => {
    const { h, web, key } = await signedInWithKey('epub-settings@example.com')
    const read = await captureItem(h, key, 'https://example.com/read')
    expect((await h.call('POST', `/v1/saved-items/${read}/read`, { token: key })).status).toBe(200)
    h.clock.advance(1000)
    await captureItem(h, key, 'https://example.com/unread')
    const settings = (await web.get('/settings')).text
    expect(titles((await follow(web, settings, 'Export unread as EPUB')).book)).toEqual(['https://example.com/unread'])
    expect(titles((await follow(web, settings, 'Export all as EPUB')).book)).toEqual([
      'https://example.com/unread',
      'https://example.com/read',
    ])
  })
})
