import { afterEach, describe, expect, test } from 'bun:test'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { archivedImageUrl } from '../../core/reading/archived-image-url.ts'
import {
  archiving,
  capture,
  cleanUp,
  fetcher,
  htmlPage,
  setup,
  startWorkers,
  waitForLogs,
  waitForStatus,
} from '../enrichment/enrichment-helpers.ts'
import { EPUB_MAX_ITEMS } from '../../adapters/app/epub.ts'
import { IMAGES, readBook } from '../core/export/epub-fixtures.ts'
import { BASE, createHarness, type Harness } from '../helpers/harness.ts'

// docs/import-export.md#epub: GET /v1/saved-items/{id}/epub and GET /v1/export?format=epub, on the three
// drivers (test/http is in test:libsql and test:client). test/epub/epubcheck.test.ts runs epubcheck on them.

const env = { env: { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000' } }

interface Person {
  h: Harness
  id: string
  key: string
}

async function person(h: Harness): Promise<Person> {
  const user = await h.user()
  return { h, id: user.id, key: await user.key() }
}

async function save(p: Person, url: string, body: Record<string, unknown> = {}): Promise<string> {
  const reply = await p.h.call('POST', '/v1/captures', { token: p.key, body: { url, ...body } })
  expect([200, 201]).toContain(reply.status)
  return reply.body.savedItem.id
}

async function giveArticle(h: Harness, itemId: string, html: string, fields: { title?: string; lang?: string } = {}) {
  const article = {
    title: fields.title ?? null,
    byline: 'Ada Example',
    siteName: 'Example',
    lang: fields.lang ?? 'en',
    html,
    text: 'text',
    wordCount: 2000,
  }
  expect(await storeArticle(h.db, itemId, article, h.clock.now().toISOString(), null)).toBe(true)
}

/** An archived image of the item, as enrichment stores one (docs/reading.md#archived-images). */
async function storeImage(h: Harness, itemId: string, n: number, bytes: Uint8Array) {
  await h.db.$client.execute({
    sql: `INSERT INTO item_images (item_id, n, user_id, original_url, media_type, size, created_at, bytes)
      SELECT id, ?, user_id, 'https://example.com/image', 'image/png', ?, ?, ? FROM saved_items WHERE id = ?`,
    args: [n, bytes.byteLength, h.clock.now().toISOString(), bytes, itemId],
  })
}

/** A download's answer with its bytes (h.call reads a body as text). */
async function download(p: Person, path: string, token = p.key) {
  const response = await p.h.server.fetch(
    new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${token}` } }),
    {
      clientIp: '127.0.0.1',
    },
  )
  const bytes = new Uint8Array(await response.arrayBuffer())
  return { status: response.status, headers: response.headers, bytes }
}

async function book(p: Person, path: string) {
  const answer = await download(p, path)
  expect(answer.status).toBe(200)
  expect(answer.headers.get('content-type')).toBe('application/epub+zip')
  expect(answer.headers.get('cache-control')).toBe('no-store')
  return { ...answer, read: readBook(answer.bytes) }
}

const titles = (read: ReturnType<typeof readBook>) => read.toc.map(([, title]) => title)

describe('GET /v1/saved-items/{id}/epub', () => {
  test('the owner gets the item as a book named after its title; its article is the chapter', async () => {
    const h = await createHarness(env)
    const p = await person(h)
    const id = await save(p, 'https://example.com/rust?a=1&b=2')
    await giveArticle(h, id, '<h2>Memory</h2><p>Rust &amp; <em>safety</em><br>at last.</p>', {
      title: 'Rust: "memory safety"',
    })
    const { headers, read } = await book(p, `/v1/saved-items/${id}/epub`)
    expect(headers.get('content-disposition')).toBe('attachment; filename="Rust memory safety.epub"')
    expect(read.spine).toEqual(['chapter-001'])
    expect(read.toc).toEqual([['chapter-001.xhtml', 'Rust: "memory safety"']])
    expect(read.identifier).toBe(`urn:uuid:${id}`)
    expect(read.title).toBe('Rust: "memory safety"')
    const page = read.text('EPUB/chapter-001.xhtml')
    expect(page).toContain('<h1 class="title">Rust: "memory safety"</h1>')
    expect(page).toContain('<p class="meta">Example · Ada Example · 9 min read</p>')
    expect(page).toContain('<a href="https://example.com/rust?a=1&#38;b=2">example.com/rust?a=1&#38;b=2</a>')
    expect(page).toContain(
      '<div class="article">\n<h2>Memory</h2><p>Rust &#38; <em>safety</em><br/>at last.</p>\n</div>',
    )
    // The same item again is the same book (readers keep books by identifier).
    expect((await book(p, `/v1/saved-items/${id}/epub`)).read.identifier).toBe(`urn:uuid:${id}`)
  })

  test('a title that is not ASCII: filename= an ASCII twin, filename* the name itself', async () => {
    const h = await createHarness(env)
    const p = await person(h)
    const id = await save(p, 'https://example.com/tokyo')
    await giveArticle(h, id, '<p>x</p>', { title: 'Café – 東京 😀 / notes' })
    const { headers } = await book(p, `/v1/saved-items/${id}/epub`)
    expect(headers.get('content-disposition')).toBe(
      `attachment; filename="Cafe notes.epub"; filename*=UTF-8''${encodeURIComponent('Café – 東京 😀 notes.epub')}`,
    )
  })

  test('an item without an article is a book of its title, its link and "No article was extracted"', async () => {
    const h = await createHarness(env)
    const p = await person(h)
    const id = await save(p, 'https://example.com/report.pdf')
    const { read, headers } = await book(p, `/v1/saved-items/${id}/epub`)
    expect(headers.get('content-disposition')).toBe('attachment; filename="example.com report.pdf.epub"')
    const page = read.text('EPUB/chapter-001.xhtml')
    expect(page).toContain('<h1 class="title">https://example.com/report.pdf</h1>')
    expect(page).toContain('No article was extracted from this page')
  })

  test('another person’s item and an unknown id are 404 SavedItemNotFoundError; the scope is saved-items:read', async () => {
    const h = await createHarness(env)
    const owner = await person(h)
    const other = await person(h)
    const id = await save(owner, 'https://example.com/mine')
    for (const [who, path] of [
      [other, `/v1/saved-items/${id}/epub`],
      [owner, '/v1/saved-items/017f22e2-79b0-7cc3-98c4-dc0c0c07398f/epub'],
    ] as const) {
      const reply = await h.call('GET', path, { token: who.key })
      expect(reply.status).toBe(404)
      expect(reply.body._tag).toBe('SavedItemNotFoundError')
    }
    const narrow = await (await h.user()).key(['saved-items:write'])
    const refused = await h.call('GET', `/v1/saved-items/${id}/epub`, { token: narrow })
    expect(refused.status).toBe(403)
    expect(refused.body.requiredScope).toBe('saved-items:read')
  })

  test('an image of another person’s item, or one the item has no copy of, is its alt text', async () => {
    const h = await createHarness(env)
    const p = await person(h)
    const other = await person(h)
    const id = await save(p, 'https://example.com/pictures')
    const foreign = await save(other, 'https://example.com/theirs')
    const app = h.config.appUrl
    await giveArticle(
      h,
      id,
      `<p><img src="${archivedImageUrl(app, id, 1)}" alt="mine"><img src="${archivedImageUrl(app, foreign, 1)}" alt="theirs"><img src="${archivedImageUrl(app, id, 2)}" alt="no copy"></p>`,
    )
    // Stored after the article: storing an article keeps only the images it was given.
    await storeImage(h, foreign, 1, IMAGES.png)
    await storeImage(h, id, 1, IMAGES.gif)
    const read = (await book(p, `/v1/saved-items/${id}/epub`)).read
    expect(read.manifest.filter((item) => item.mediaType.startsWith('image/')).map((item) => item.href)).toEqual([
      'images/image-001-1.gif',
    ])
    expect(read.text('EPUB/chapter-001.xhtml')).toContain(
      '<img src="images/image-001-1.gif" alt="mine"/><span class="image-alt">[theirs]</span><span class="image-alt">[no copy]</span>',
    )
  })
})

describe('archived images in a book (docs/import-export.md#epub-images)', () => {
  afterEach(cleanUp)

  test('an enriched article’s archived PNG, JPEG, GIF and WebP are in its book after its site is gone; one not archived is its alt text', async () => {
    const s = await setup()
    const o = s.fixtures.origin
    const served = {
      '/img/a.png': IMAGES.png,
      '/img/b.jpg': IMAGES.jpeg,
      '/img/c.gif': IMAGES.gif,
      '/img/d.webp': IMAGES.webp,
    }
    for (const [path, bytes] of Object.entries(served))
      s.fixtures.route(path, () => new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } }))
    const sources = [...Object.keys(served), '/img/missing.png']
    const prose =
      'A paragraph long enough for the extractor to take this page for an article worth keeping to read later on.'
    const page = `<!doctype html><html lang="en"><head><title>Pictures</title></head><body><article><h1>Pictures</h1>
<p>${prose}</p>${sources.map((src, i) => `<p>${i}. ${prose} <img src="${src}" alt="picture ${i}"></p>`).join('\n')}<p>${prose}</p></article></body></html>`
    s.fixtures.route('/post', () => htmlPage(page))
    const item = await capture(s.h, s.key, `${o}/post`)
    startWorkers(s, fetcher({ allowPrivate: true }), { images: archiving(s.h, { allowPrivate: true }) })
    await waitForStatus(s.h, s.key, item.id, 'enriched')
    await waitForLogs(s.h, item.id, 1)
    // The site goes away: the book is made from what is stored.
    await cleanUp()
    const read = (await book({ h: s.h, id: '', key: s.key }, `/v1/saved-items/${item.id}/epub`)).read
    expect(
      read.manifest
        .filter((entry) => entry.mediaType.startsWith('image/'))
        .map((entry) => [entry.href, entry.mediaType, entry.fallback]),
    ).toEqual([
      ['images/image-001-1.png', 'image/png', null],
      ['images/image-001-2.jpg', 'image/jpeg', null],
      ['images/image-001-3.gif', 'image/gif', null],
      ['images/image-001-4.webp', 'image/webp', 'image-001-4-fallback'],
      ['images/image-001-4-fallback.svg', 'image/svg+xml', null],
    ])
    expect(read.files['EPUB/images/image-001-1.png']).toEqual(IMAGES.png)
    expect(read.files['EPUB/images/image-001-2.jpg']).toEqual(IMAGES.jpeg)
    expect(read.files['EPUB/images/image-001-3.gif']).toEqual(IMAGES.gif)
    expect(read.files['EPUB/images/image-001-4.webp']).toEqual(IMAGES.webp)
    const chapter = read.text('EPUB/chapter-001.xhtml')
    expect(chapter).toContain('<img src="images/image-001-1.png" alt="picture 0"/>')
    expect(chapter).toContain('<span class="image-alt">[picture 4]</span>')
    expect(chapter).not.toContain(`${o}/img`)
  })
})

describe('GET /v1/export?format=epub', () => {
  /** A person with a folder of three items (one read, one without an article), two items in none. */
  async function library(h: Harness) {
    const p = await person(h)
    const folder = (await h.call('POST', '/v1/folders', { token: p.key, body: { name: 'Deep reads' } })).body.id
    const ids: Record<string, string> = {}
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      h.clock.advance(1000)
      ids[name] = await save(
        p,
        `https://example.com/${name}`,
        ['a', 'b', 'c'].includes(name) ? { folderId: folder } : {},
      )
      if (name !== 'c') await giveArticle(h, ids[name]!, `<p>Article ${name}</p>`, { title: `Article ${name}` })
    }
    expect((await h.call('POST', `/v1/saved-items/${ids.b}/read`, { token: p.key })).status).toBe(200)
    return { p, folder, ids }
  }

  test('unread by default, newest saved first, one chapter each, titled "Readlater: Unread, <date>"', async () => {
    const h = await createHarness(env)
    const { p } = await library(h)
    const { headers, read } = await book(p, '/v1/export?format=epub')
    expect(headers.get('content-disposition')).toBe('attachment; filename="Readlater Unread, 2026-11-22.epub"')
    expect(read.title).toBe('Readlater: Unread, 2026-11-22')
    expect(titles(read)).toEqual(['Article e', 'Article d', 'https://example.com/c', 'Article a'])
    expect(read.spine).toEqual(['nav', 'chapter-001', 'chapter-002', 'chapter-003', 'chapter-004'])
    expect(read.text('EPUB/chapter-003.xhtml')).toContain('No article was extracted')
    expect(read.identifier).toMatch(/^urn:uuid:[0-9a-f-]{36}$/)
  })

  test('folder and state select the items; saving again moves an item to the front', async () => {
    const h = await createHarness(env)
    const { p, folder } = await library(h)
    expect(titles((await book(p, `/v1/export?format=epub&folder=${folder}`)).read)).toEqual([
      'https://example.com/c',
      'Article a',
    ])
    const all = (await book(p, `/v1/export?format=epub&folder=${folder}&state=all`)).read
    expect(all.title).toBe('Readlater: Deep reads, 2026-11-22')
    expect(titles(all)).toEqual(['https://example.com/c', 'Article b', 'Article a'])
    expect((await book(p, `/v1/export?format=epub&folder=${folder}`)).read.title).toBe(
      'Readlater: Deep reads (unread), 2026-11-22',
    )
    const none = (await book(p, '/v1/export?format=epub&folder=none&state=all')).read
    expect(none.title).toBe('Readlater: No folder, 2026-11-22')
    expect(titles(none)).toEqual(['Article e', 'Article d'])
    expect((await book(p, '/v1/export?format=epub&state=all')).read.title).toBe('Readlater: All items, 2026-11-22')
    h.clock.advance(1000)
    await save(p, 'https://example.com/a')
    expect(titles((await book(p, '/v1/export?format=epub')).read)).toEqual([
      'Article a',
      'Article e',
      'Article d',
      'https://example.com/c',
    ])
  })

  test('nothing selected is a book saying so; another person’s items are never in it', async () => {
    const h = await createHarness(env)
    await library(h)
    const empty = await person(h)
    const read = (await book(empty, '/v1/export?format=epub')).read
    expect(titles(read)).toEqual(['Readlater: Unread, 2026-11-22'])
    expect(read.text('EPUB/chapter-001.xhtml')).toContain('There are no unread items here.')
  })

  test('an unknown or another person’s folder is 404 FolderNotFoundError; a bad state, or folder and state with another format, 400', async () => {
    const h = await createHarness(env)
    const { folder } = await library(h)
    const other = await person(h)
    // An empty value is an absent one (an emptied form field).
    expect((await download(other, '/v1/export?format=epub&state=&folder=')).status).toBe(200)
    expect((await download(other, '/v1/export?format=json&state=')).status).toBe(200)
    for (const path of [`/v1/export?format=epub&folder=${folder}`, '/v1/export?format=epub&folder=nope']) {
      const reply = await h.call('GET', path, { token: other.key })
      expect(reply.status).toBe(404)
      expect(reply.body).toMatchObject({ _tag: 'FolderNotFoundError' })
    }
    for (const path of [
      '/v1/export?format=epub&state=read',
      '/v1/export?format=json&state=all',
      '/v1/export?format=csv&folder=none',
      '/v1/export?folder=none',
    ]) {
      const reply = await h.call('GET', path, { token: other.key })
      expect([path, reply.status]).toEqual([path, 400])
      expect(reply.body._tag).toBe('ValidationError')
    }
  })

  test('the scopes of every export: saved-items:read and folders:read', async () => {
    const h = await createHarness(env)
    for (const [scopes, missing] of [
      [['saved-items:read'], 'folders:read'],
      [['folders:read'], 'saved-items:read'],
    ] as const) {
      const key = await (await h.user()).key(scopes)
      const reply = await h.call('GET', '/v1/export?format=epub', { token: key })
      expect(reply.status).toBe(403)
      expect(reply.body.requiredScope).toBe(missing)
    }
  })

  test(`at most ${EPUB_MAX_ITEMS} items, the newest saved; the contents page says the rest were left out`, async () => {
    const h = await createHarness(env)
    const p = await person(h)
    const total = EPUB_MAX_ITEMS + 3
    // Saved as the capture path saves them, in one statement: 503 captures one by one would take the time
    // of the test.
    const now = Date.parse('2026-11-22T10:00:00.000Z')
    await h.db.$client.execute({
      sql: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags, enrichment_status, capture_channel, is_read, last_saved_at, created_at, updated_at)
        SELECT printf('017f22e2-79b0-7cc3-98c4-%012d', i), ?, 'https://example.com/' || i, 'https://example.com/' || i, 'example.com', 'Item ' || i, 'article', '[]', 'enriched', 'api', 0,
          strftime('%Y-%m-%dT%H:%M:%fZ', ? / 1000.0 + i, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', ? / 1000.0, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', ? / 1000.0, 'unixepoch')
        FROM n`,
      args: [total, p.id, now, now, now],
    })
    const listed = await h.call('GET', '/v1/saved-items?limit=1', { token: p.key })
    expect(listed.body.savedItems[0].title).toBe(`Item ${total}`)
    const read = (await book(p, '/v1/export?format=epub')).read
    expect(read.toc.length).toBe(EPUB_MAX_ITEMS)
    expect(read.toc[0]).toEqual(['chapter-001.xhtml', `Item ${total}`])
    expect(read.toc.at(-1)).toEqual([`chapter-${EPUB_MAX_ITEMS}.xhtml`, 'Item 4'])
    expect(read.text('EPUB/nav.xhtml')).toContain(
      `<p class="notice">This book holds the ${EPUB_MAX_ITEMS} most recently saved of these items; older ones are not in it.</p>`,
    )
    // Exactly at the cap, nothing is said.
    await h.db.$client.execute({
      sql: "DELETE FROM saved_items WHERE title IN ('Item 1', 'Item 2', 'Item 3')",
      args: [],
    })
    expect((await book(p, '/v1/export?format=epub')).read.text('EPUB/nav.xhtml')).not.toContain('notice')
  })

  test('streamed: the response starts before the book is made, and a client that goes away stops it', async () => {
    const h = await createHarness(env)
    const { p } = await library(h)
    const response = await h.server.fetch(
      new Request(`${BASE}/v1/export?format=epub&state=all`, { headers: { authorization: `Bearer ${p.key}` } }),
      { clientIp: '127.0.0.1' },
    )
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value!.subarray(30, 58))).toBe('mimetypeapplication/epub+zip')
    await reader.cancel()
    // The whole book, read to the end by another request, is whole.
    const again = await download(p, '/v1/export?format=epub&state=all')
    expect(readBook(again.bytes).toc.length).toBe(5)
  })

  test('OpenAPI: the format enum has epub, with folder and state; the item route names its media type', async () => {
    const h = await createHarness()
    const doc = await (await h.server.fetch(new Request(`${BASE}/openapi.json`))).json()
    const operation = doc.paths['/v1/export'].get
    const parameter = (name: string) => operation.parameters.find((p: any) => p.name === name)
    expect(parameter('format').schema.enum).toEqual(['json', 'netscape', 'csv', 'markdown', 'epub'])
    expect(parameter('state').schema.enum).toEqual(['unread', 'all'])
    expect(parameter('folder').schema.type).toBe('string')
    expect(Object.keys(operation.responses)).toContain('404')
    expect(Object.keys(operation.responses['200'].content)).toContain('application/epub+zip')
    const item = doc.paths['/v1/saved-items/{id}/epub'].get
    expect(Object.keys(item.responses['200'].content)).toEqual(['application/epub+zip'])
    expect(item.security.map((s: any) => Object.values(s)[0])).toContainEqual(['saved-items:read'])
  })
})
