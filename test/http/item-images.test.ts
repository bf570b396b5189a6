import { describe, expect, test } from 'bun:test'
import { deleteAccount } from '../../adapters/storage/delete-account.ts'
import { pruneDeletedItems, UNDO_WINDOW_MS } from '../../adapters/storage/deleted-items.ts'
import type { NewArchivedImage } from '../../adapters/storage/item-images.ts'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { archivedImageUrl } from '../../core/reading/archived-image-url.ts'
import type { Article } from '../../core/reading/extract-article.ts'
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../core/auth/api-keys.ts'
import { insertApiKey } from '../../adapters/storage/api-keys.ts'
import { gif, png } from '../fixtures/images/images.ts'
import { BASE, createHarness, random, type Harness } from '../helpers/harness.ts'
import { userIdOf } from '../web/fixtures.ts'
import { apiKeyFor } from '../web/reader-fixtures.ts'
import { WebClient } from '../web/web-client.ts'
import { readBook } from '../core/export/epub-fixtures.ts'

// docs/reading.md#archived-images: an item's archived images served from our origin, to their owner only, by
// the web app (`{APP_URL}/items/{id}/images/{n}`, what the stored article points at) and by REST
// (`GET /v1/saved-items/{id}/images/{n}`, saved-items:read); the storage they take, and that they go with
// their item (and come back with its Undo) and with the account. On the three drivers.

const env = { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000', ENRICHMENT: 'off' }
const IMMUTABLE = 'private, max-age=31536000, immutable'
const RED = png(4, 3)
const GIF = gif()

interface Person {
  h: Harness
  web: WebClient
  key: string
  userId: string
}

async function person(email: string, harness?: Harness): Promise<Person> {
  const h = harness ?? (await createHarness({ env }))
  const web = new WebClient(h)
  await web.signUp(email)
  const userId = await userIdOf(h, email)
  return { h, web, key: await apiKeyFor(h, userId), userId }
}

/**
 * A saved item whose article points at two archived images, stored as enrichment stores them: under the
 * service's address, or under `app` (an address the service had when they were archived).
 */
async function itemWithImages(
  p: Person,
  url = 'https://pictures.example/post',
  app = p.h.config.appUrl,
): Promise<string> {
  const reply = await p.h.call('POST', '/v1/captures', { token: p.key, body: { url } })
  expect(reply.status).toBe(201)
  const id: string = reply.body.savedItem.id
  const article: Article = {
    title: 'Pictures',
    byline: null,
    siteName: null,
    lang: 'en',
    html: `<p>Two pictures.</p><p><img src="${archivedImageUrl(app, id, 1)}" alt="red"><img src="${archivedImageUrl(app, id, 2)}" alt="gif"></p>`,
    text: 'Two pictures.',
    wordCount: 2,
  }
  const add: NewArchivedImage[] = [
    { n: 1, originalUrl: 'https://cdn.example/red.png', mediaType: 'image/png', bytes: RED },
    { n: 2, originalUrl: 'https://cdn.example/a.gif', mediaType: 'image/gif', bytes: GIF },
  ]
  expect(await storeArticle(p.h.db, id, article, p.h.clock.now().toISOString(), null, { keep: [], add })).toBe(true)
  return id
}

async function rest(h: Harness, key: string | null, path: string) {
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` }
  const response = await h.server.fetch(new Request(`${BASE}${path}`, { headers }), { clientIp: '127.0.0.1' })
  const bytes = new Uint8Array(await response.arrayBuffer())
  const text = new TextDecoder().decode(bytes)
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    json: text.startsWith('{') ? JSON.parse(text) : null,
  }
}

async function count(h: Harness, table: string, itemId?: string): Promise<number> {
  const result = await h.db.$client.execute({
    sql: `SELECT count(*) AS n FROM ${table}${itemId ? ' WHERE item_id = ?' : ''}`,
    args: itemId ? [itemId] : [],
  })
  return Number(result.rows[0]!.n)
}

describe('GET /v1/saved-items/{id}/images/{n}', () => {
  test('the owner gets the bytes with the sniffed type, nosniff and a year of private, immutable caching', async () => {
    const p = await person('rest-owner@example.com')
    const id = await itemWithImages(p)
    for (const [n, bytes, type] of [
      [1, RED, 'image/png'],
      [2, GIF, 'image/gif'],
    ] as const) {
      const reply = await rest(p.h, p.key, `/v1/saved-items/${id}/images/${n}`)
      expect(reply.status).toBe(200)
      expect(reply.bytes).toEqual(bytes)
      expect(reply.headers.get('content-type')).toBe(type)
      expect(reply.headers.get('content-length')).toBe(String(bytes.length))
      expect(reply.headers.get('cache-control')).toBe(IMMUTABLE)
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff')
      expect(reply.headers.get('set-cookie')).toBeNull()
    }
  })

  test('another person’s item: 404 SavedItemNotFoundError, as for an id that does not exist', async () => {
    const owner = await person('rest-mine@example.com')
    const other = await person('rest-other@example.com', owner.h)
    const id = await itemWithImages(owner)
    for (const path of [
      `/v1/saved-items/${id}/images/1`,
      '/v1/saved-items/017f22e2-79b0-7cc3-98c4-dc0c0c07398f/images/1',
    ]) {
      const reply = await other.h.call('GET', path, { token: other.key })
      expect(reply.status).toBe(404)
      expect(reply.body).toEqual({
        _tag: 'SavedItemNotFoundError',
        message: expect.any(String),
        savedItemId: path.split('/')[3],
      })
    }
  })

  test('a number the item has no image of: 404 ImageNotFoundError naming the item', async () => {
    const p = await person('rest-missing@example.com')
    const id = await itemWithImages(p)
    for (const n of ['3', '0', '01', '-1', 'x', '1.0', '99999999999']) {
      const reply = await p.h.call('GET', `/v1/saved-items/${id}/images/${n}`, { token: p.key })
      expect({ n, status: reply.status, body: reply.body }).toEqual({
        n,
        status: 404,
        body: { _tag: 'ImageNotFoundError', message: expect.any(String), savedItemId: id },
      })
    }
  })

  test('needs saved-items:read: without it 403 with the step-up challenge; without a credential 401', async () => {
    const p = await person('rest-scope@example.com')
    const id = await itemWithImages(p)
    const key = generateApiKey(random)
    await insertApiKey(p.h.db, {
      id: crypto.randomUUID(),
      userId: p.userId,
      keyHash: hashApiKey(key),
      prefix: apiKeyDisplayPrefix(key),
      label: 'no read',
      scopes: ['saved-items:write'],
      createdAt: p.h.clock.now().toISOString(),
    })
    const refused = await p.h.call('GET', `/v1/saved-items/${id}/images/1`, { token: key })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ _tag: 'InsufficientScopeError', requiredScope: 'saved-items:read' })
    expect((await p.h.call('GET', `/v1/saved-items/${id}/images/1`)).status).toBe(401)
  })
})

describe('GET {APP_URL}/items/{id}/images/{n}', () => {
  test('the signed-in owner gets the image the article points at, with the same headers', async () => {
    const p = await person('web-owner@example.com')
    const id = await itemWithImages(p)
    const content = await p.h.call('GET', `/v1/saved-items/${id}/content`, { token: p.key })
    const srcs = [...content.body.html.matchAll(/src="([^"]+)"/g)].map((match) => match[1])
    expect(srcs).toEqual([`${p.h.config.appUrl}/items/${id}/images/1`, `${p.h.config.appUrl}/items/${id}/images/2`])
    const response = await p.h.server.fetch(
      new Request(srcs[0], { headers: { cookie: [...p.web.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } }),
      { clientIp: '127.0.0.1' },
    )
    expect(response.status).toBe(200)
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(RED)
    expect(response.headers.get('content-type')).toBe('image/png')
    expect(response.headers.get('cache-control')).toBe(IMMUTABLE)
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('set-cookie')).toBeNull()
  })

  test('another person’s image, a missing number and an unknown item: the 404 page', async () => {
    const owner = await person('web-mine@example.com')
    const other = await person('web-other@example.com', owner.h)
    const id = await itemWithImages(owner)
    for (const [who, path] of [
      [other, `/items/${id}/images/1`],
      [owner, `/items/${id}/images/3`],
      [owner, `/items/${id}/images/abc`],
      [owner, '/items/017f22e2-79b0-7cc3-98c4-dc0c0c07398f/images/1'],
    ] as const) {
      const page = await who.web.get(path)
      expect({ path, status: page.status }).toEqual({ path, status: 404 })
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(page.text).toContain('Page not found')
    }
  })

  test('signed out: to sign-in, never the image', async () => {
    const p = await person('web-signed-out@example.com')
    const id = await itemWithImages(p)
    const stranger = new WebClient(p.h)
    const page = await stranger.get(`/items/${id}/images/1`)
    expect(page.status).toBe(303)
    expect(page.location).toStartWith('/sign-in')
    expect(page.text).not.toContain('PNG')
  })
})

describe('after the service moves (a new APP_URL)', () => {
  test('an article archived under an earlier address reads with its images at the current one, everywhere', async () => {
    const p = await person('moved@example.com')
    const earlier = 'http://localhost:3000/readlater'
    const id = await itemWithImages(p, 'https://pictures.example/moved', earlier)
    const here = [1, 2].map((n) => `${p.h.config.appUrl}/items/${id}/images/${n}`)
    expect(p.h.config.appUrl).not.toBe(earlier)
    // The content endpoint's HTML and Markdown (MCP's read_saved_item says the same Markdown).
    const html = await p.h.call('GET', `/v1/saved-items/${id}/content`, { token: p.key })
    expect([...html.body.html.matchAll(/src="([^"]+)"/g)].map((match) => match[1])).toEqual(here)
    expect(html.body.html).not.toContain(earlier)
    const markdown = await p.h.call('GET', `/v1/saved-items/${id}/content?format=markdown`, { token: p.key })
    expect([...markdown.body.markdown.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((match) => match[1])).toEqual(here)
    // The reader view, whose images load from the service's own origin.
    const page = await p.web.get(`/items/${id}`)
    expect(page.status).toBe(200)
    expect([...page.text.matchAll(/<img[^>]* src="([^"]+)"/g)].map((match) => match[1])).toEqual(here)
    // The book carries the images themselves.
    const book = await rest(p.h, p.key, `/v1/saved-items/${id}/epub`)
    expect(book.status).toBe(200)
    const read = readBook(book.bytes)
    expect(read.files['EPUB/images/image-001-1.png']).toEqual(RED)
    expect(read.files['EPUB/images/image-001-2.gif']).toEqual(GIF)
  })

  test('the stored article is not rewritten: a read changes nothing', async () => {
    const p = await person('moved-twice@example.com')
    const earlier = 'https://old.example.org'
    const id = await itemWithImages(p, 'https://pictures.example/twice', earlier)
    const stored = async () =>
      (await p.h.db.$client.execute({ sql: 'SELECT html FROM item_contents WHERE item_id = ?', args: [id] })).rows[0]!
        .html
    const before = await stored()
    await p.h.call('GET', `/v1/saved-items/${id}/content`, { token: p.key })
    expect(await stored()).toBe(before)
    expect(String(before)).toContain(`${earlier}/items/${id}/images/1`)
  })
})

describe('the images go with their item', () => {
  test('deleting through REST removes them', async () => {
    const p = await person('delete-rest@example.com')
    const id = await itemWithImages(p)
    expect(await count(p.h, 'item_images', id)).toBe(2)
    expect((await p.h.call('DELETE', `/v1/saved-items/${id}`, { token: p.key })).status).toBe(204)
    expect(await count(p.h, 'item_images', id)).toBe(0)
    expect((await rest(p.h, p.key, `/v1/saved-items/${id}/images/1`)).status).toBe(404)
  })

  test('the web delete keeps them with the Undo copy; Undo brings them back byte for byte; past the window they are gone', async () => {
    const p = await person('delete-undo@example.com')
    const id = await itemWithImages(p)
    await p.web.get('/')
    expect((await p.web.post(`/queue/items/${id}/delete`, {})).status).toBe(303)
    expect(await count(p.h, 'item_images', id)).toBe(0)
    expect(await count(p.h, 'deleted_item_images', id)).toBe(2)
    expect((await p.web.get(`/items/${id}/images/1`)).status).toBe(404)
    await p.web.get('/')
    expect((await p.web.post(`/queue/items/${id}/restore`, {})).location).toBe('/?done=restored')
    expect(await count(p.h, 'deleted_item_images', id)).toBe(0)
    const back = await rest(p.h, p.key, `/v1/saved-items/${id}/images/2`)
    expect(back.status).toBe(200)
    expect(back.bytes).toEqual(GIF)
    expect(back.headers.get('content-type')).toBe('image/gif')

    // Deleted again and left: maintenance drops the copy, and its images with it.
    await p.web.get('/')
    await p.web.post(`/queue/items/${id}/delete`, {})
    expect(await count(p.h, 'deleted_item_images', id)).toBe(2)
    await pruneDeletedItems(p.h.db, p.h.clock.now().getTime() + UNDO_WINDOW_MS + 1)
    expect(await count(p.h, 'deleted_item_images')).toBe(0)
    expect(await count(p.h, 'item_images')).toBe(0)
  })

  test('deleting the account leaves no image anywhere', async () => {
    const p = await person('delete-account@example.com')
    const other = await person('delete-account-other@example.com', p.h)
    const kept = await itemWithImages(other)
    await itemWithImages(p, 'https://pictures.example/a')
    const undone = await itemWithImages(p, 'https://pictures.example/b')
    await p.web.get('/')
    await p.web.post(`/queue/items/${undone}/delete`, {})
    expect(await count(p.h, 'deleted_item_images')).toBe(2)
    expect(await deleteAccount(p.h.db, p.userId)).toBe(true)
    expect(await count(p.h, 'deleted_item_images')).toBe(0)
    const left = await p.h.db.$client.execute('SELECT DISTINCT item_id, user_id FROM item_images')
    expect(left.rows.map((row) => [row.item_id, row.user_id])).toEqual([[kept, other.userId]])
  })
})

describe('storage per person', () => {
  test('Settings says how much the archived images take', async () => {
    const p = await person('settings-storage@example.com')
    const empty = await p.web.get('/settings')
    expect(empty.text).toContain('Storage: 0 MB of archived images')
    const bytes = png(1, 1, { padTo: 12_345_678 })
    const reply = await p.h.call('POST', '/v1/captures', { token: p.key, body: { url: 'https://big.example/' } })
    const id = reply.body.savedItem.id
    const article: Article = {
      title: null,
      byline: null,
      siteName: null,
      lang: null,
      html: '<p>x</p>',
      text: 'x',
      wordCount: 1,
    }
    await storeArticle(p.h.db, id, article, p.h.clock.now().toISOString(), null, {
      keep: [],
      add: [{ n: 1, originalUrl: 'https://big.example/a.png', mediaType: 'image/png', bytes }],
    })
    await itemWithImages(p)
    const page = await p.web.get('/settings')
    const mb = ((12_345_678 + RED.length + GIF.length) / 1_000_000).toFixed(1)
    expect(mb).toBe('12.3')
    expect(page.text).toContain(`Storage: ${mb} MB of archived images`)
    // Another person's images are theirs.
    const other = await person('settings-storage-other@example.com', p.h)
    expect((await other.web.get('/settings')).text).toContain('Storage: 0 MB of archived images')
  })
})
