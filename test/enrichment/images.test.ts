import { afterEach, describe, expect, test } from 'bun:test'
import type { GuardedFetchOptions } from '../../adapters/enrichment/guarded-fetch.ts'
import { refreshArticles } from '../../adapters/app/reading.ts'
import { archiveImages } from '../../adapters/jobs/archive-images.ts'
import { deleteItemKeepingUndo, restoreDeletedItem } from '../../adapters/storage/deleted-items.ts'
import { archivedImageOf } from '../../core/reading/archived-image-url.ts'
import { articleImageSources } from '../../core/reading/article-images.ts'
import { articleText } from '../../core/reading/article-text.ts'
import { gif, HTML_PAGE, png, SVG_WITH_SCRIPT, WEBP_LOSSLESS } from '../fixtures/images/images.ts'
import { BASE, type Harness } from '../helpers/harness.ts'
import {
  archiving,
  capture,
  cleanUp,
  fetcher,
  htmlPage,
  redirectTo,
  setup,
  startWorkers,
  waitFor,
  waitForLogs,
  waitForStatus,
  type Setup,
} from './enrichment-helpers.ts'

// docs/enrichment.md#images and docs/reading.md#archived-images: enrichment fetches an article's images through
// the address guard, keeps those whose bytes are one of the five raster formats within the size caps, stores
// them apart from the item, and points the stored article at our copies; an image that fails keeps its URL.
// Every test here runs on the three drivers (package.json's test:libsql and test:client).

afterEach(cleanUp)

const MiB = 1024 * 1024
const PUBLIC_IP = '93.184.216.34'
const PROSE =
  'Readers keep the article itself, not only a link to it, so that it can still be read long after the original page ' +
  'moved behind a paywall, changed its address, or disappeared from the web altogether.'

/** An article page whose paragraphs hold `images` (sources as written), with enough prose to be an article. */
function articleWith(images: readonly string[], title = 'Pictures of things'): string {
  const body = images.map((src, i) => `<p>${i}. ${PROSE} <img src="${src}" alt="picture ${i}"></p>`).join('\n')
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><article><h1>${title}</h1>
<p>${PROSE}</p>${body}<p>${PROSE}</p></article></body></html>`
}

const image = (bytes: Uint8Array<ArrayBuffer>, type: string) => (): Response =>
  new Response(bytes, { headers: { 'content-type': type } })

/** A body sent in chunks, with no Content-Length: the cap must hold while reading. */
const streamed = (bytes: Uint8Array<ArrayBuffer>, type: string) => (): Response =>
  new Response(
    new ReadableStream({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 256 * 1024) controller.enqueue(bytes.slice(at, at + 256 * 1024))
        controller.close()
      },
    }),
    { headers: { 'content-type': type } },
  )

async function content(h: Harness, key: string, id: string): Promise<{ html: string; text: string }> {
  const reply = await h.call('GET', `/v1/saved-items/${id}/content`, { token: key })
  expect(reply.status).toBe(200)
  return reply.body
}

/** An archived image through the REST endpoint: status, headers and bytes. */
async function restImage(h: Harness, key: string, id: string, n: number | string) {
  const response = await h.server.fetch(
    new Request(`${BASE}/v1/saved-items/${id}/images/${n}`, { headers: { authorization: `Bearer ${key}` } }),
    { clientIp: '127.0.0.1' },
  )
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
}

const imageRows = async (h: Harness, itemId: string) =>
  (
    await h.db.$client.execute({
      sql: 'SELECT n, original_url, media_type, size, user_id FROM item_images WHERE item_id = ? ORDER BY n',
      args: [itemId],
    })
  ).rows.map((row) => ({
    n: Number(row.n),
    originalUrl: String(row.original_url),
    mediaType: String(row.media_type),
    size: Number(row.size),
    userId: String(row.user_id),
  }))

/** Enriches one captured page with image archiving open to the fixture server (ENRICH_ALLOW_PRIVATE=1). */
async function enrichOpen(s: Setup, url: string): Promise<string> {
  const item = await capture(s.h, s.key, url)
  startWorkers(s, fetcher({ allowPrivate: true }), { images: archiving(s.h, { allowPrivate: true }) })
  await waitForStatus(s.h, s.key, item.id, 'enriched')
  await waitForLogs(s.h, item.id, 1)
  return item.id
}

describe('archiving an article’s images', () => {
  test('images are archived and the article points at our copies; what is not an image keeps its URL', async () => {
    const s = await setup()
    const o = s.fixtures.origin
    const red = png(40, 20)
    const blue = png(30, 30, { rgb: [20, 60, 200] })
    s.fixtures.route('/img/red.png', image(red, 'image/png'))
    // The bytes decide: a PNG served as anything is a PNG.
    s.fixtures.route('/img/blue', image(blue, 'application/octet-stream'))
    s.fixtures.route('/img/anim.gif', image(gif(), 'image/gif'))
    s.fixtures.route('/img/a.webp', image(WEBP_LOSSLESS, 'image/webp'))
    s.fixtures.route('/img/fake.png', image(HTML_PAGE, 'image/png'))
    s.fixtures.route('/img/evil.svg', image(SVG_WITH_SCRIPT, 'image/svg+xml'))
    s.fixtures.route('/img/bomb.png', image(png(1, 1, { declared: [100_000, 100_000] }), 'image/png'))
    s.fixtures.route('/img/big.png', image(png(1, 1, { padTo: 5 * MiB + 1 }), 'image/png'))
    s.fixtures.route('/img/big-streamed.png', streamed(png(1, 1, { padTo: 5 * MiB + 1 }), 'image/png'))
    s.fixtures.route('/img/at-cap.png', image(png(2, 2, { padTo: 5 * MiB }), 'image/png'))
    const sources = [
      '/img/red.png',
      '/img/fake.png',
      '/img/blue',
      '/img/evil.svg',
      '/img/anim.gif',
      '/img/bomb.png',
      '/img/a.webp',
      '/img/big.png',
      '/img/big-streamed.png',
      '/img/missing.png',
      '/img/at-cap.png',
      '/img/red.png',
    ]
    s.fixtures.route('/post', () => htmlPage(articleWith(sources)))
    const id = await enrichOpen(s, `${o}/post`)

    const rows = await imageRows(s.h, id)
    expect(rows.map(({ n, originalUrl, mediaType, size }) => ({ n, originalUrl, mediaType, size }))).toEqual([
      { n: 1, originalUrl: `${o}/img/red.png`, mediaType: 'image/png', size: red.length },
      { n: 2, originalUrl: `${o}/img/blue`, mediaType: 'image/png', size: blue.length },
      { n: 3, originalUrl: `${o}/img/anim.gif`, mediaType: 'image/gif', size: gif().length },
      { n: 4, originalUrl: `${o}/img/a.webp`, mediaType: 'image/webp', size: WEBP_LOSSLESS.length },
      { n: 5, originalUrl: `${o}/img/at-cap.png`, mediaType: 'image/png', size: 5 * MiB },
    ])
    const owner = (await s.h.db.$client.execute('SELECT id FROM users')).rows[0]!.id
    expect(rows.every((row) => row.userId === owner)).toBe(true)

    const article = await content(s.h, s.key, id)
    const app = s.h.config.appUrl
    expect(articleImageSources(article.html)).toEqual([
      `${app}/items/${id}/images/1`,
      `${o}/img/fake.png`,
      `${app}/items/${id}/images/2`,
      `${o}/img/evil.svg`,
      `${app}/items/${id}/images/3`,
      `${o}/img/bomb.png`,
      `${app}/items/${id}/images/4`,
      `${o}/img/big.png`,
      `${o}/img/big-streamed.png`,
      `${o}/img/missing.png`,
      `${app}/items/${id}/images/5`,
    ])
    // Both <img> of the same source point at its one copy.
    expect(article.html.split(`src="${app}/items/${id}/images/1"`).length - 1).toBe(2)
    // Images are no text: the text is the article's alone, so highlights stay anchored.
    expect(article.text).toBe(articleText(article.html))
    expect(article.text).not.toContain('picture')

    // Each source was asked for once, the repeated one too.
    expect(s.fixtures.count('/img/red.png')).toBe(1)
    const [line] = await waitForLogs(s.h, id, 1)
    expect(line).toMatchObject({ outcome: 'enriched', imagesAdded: 5, imagesKept: 0, imagesFailed: 6 })
    // The log names no image URL.
    expect(JSON.stringify(s.h.logs)).not.toContain('/img/')

    for (const [n, bytes, type] of [
      [1, red, 'image/png'],
      [2, blue, 'image/png'],
      [4, WEBP_LOSSLESS, 'image/webp'],
    ] as const) {
      const served = await restImage(s.h, s.key, id, n)
      expect(served.status).toBe(200)
      expect(served.headers.get('content-type')).toBe(type)
      expect(served.headers.get('cache-control')).toBe('private, max-age=31536000, immutable')
      expect(served.headers.get('x-content-type-options')).toBe('nosniff')
      expect(served.bytes).toEqual(bytes)
    }
  })

  test('an item keeps at most 20 MiB of images: what would pass it keeps its URL', async () => {
    const s = await setup()
    const o = s.fixtures.origin
    const sources = [1, 2, 3, 4, 5].map((i) => `/img/${i}.png`)
    for (const [i, source] of sources.entries())
      s.fixtures.route(source, image(png(1, 1, { rgb: [i, i, i], padTo: Math.round(4.5 * MiB) }), 'image/png'))
    s.fixtures.route('/post', () => htmlPage(articleWith(sources)))
    const id = await enrichOpen(s, `${o}/post`)
    const rows = await imageRows(s.h, id)
    expect(rows).toHaveLength(4)
    expect(rows.reduce((sum, row) => sum + row.size, 0)).toBeLessThanOrEqual(20 * MiB)
    const kept = new Set(rows.map((row) => row.originalUrl))
    const left = sources.map((source) => `${o}${source}`).filter((url) => !kept.has(url))
    expect(left).toHaveLength(1)
    expect(articleImageSources((await content(s.h, s.key, id)).html)).toContain(left[0]!)
  })

  test('at most 50 images an item: the first 50 of the article; the rest are not even fetched', async () => {
    const s = await setup()
    const o = s.fixtures.origin
    const sources = Array.from({ length: 55 }, (_, i) => `/img/${i}.png`)
    for (const [i, source] of sources.entries())
      s.fixtures.route(source, image(png(1, 1, { rgb: [i, 0, 0] }), 'image/png'))
    s.fixtures.route('/post', () => htmlPage(articleWith(sources)))
    const id = await enrichOpen(s, `${o}/post`)
    const rows = await imageRows(s.h, id)
    expect(rows.map((row) => row.originalUrl)).toEqual(sources.slice(0, 50).map((source) => `${o}${source}`))
    expect(rows.map((row) => row.n)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    for (const source of sources.slice(50)) expect(s.fixtures.count(source)).toBe(0)
    const stored = articleImageSources((await content(s.h, s.key, id)).html)
    expect(stored.slice(50)).toEqual(sources.slice(50).map((source) => `${o}${source}`))
  })

  test('extracting again keeps what is archived (no second fetch, same number), adds the new, drops the gone', async () => {
    const s = await setup()
    const o = s.fixtures.origin
    s.fixtures.route('/img/a.png', image(png(5, 5), 'image/png'))
    s.fixtures.route('/img/b.png', image(png(6, 6), 'image/png'))
    s.fixtures.route('/img/c.png', image(png(7, 7), 'image/png'))
    s.fixtures.route('/post', () => htmlPage(articleWith([])))
    const url = `${o}/post`
    const id = await enrichOpen(s, url)
    // The first extraction had no images (the page below is the one captured again).
    expect(await imageRows(s.h, id)).toEqual([])
    const recapture = async (sources: string[]) => {
      const before = (await waitForLogs(s.h, id, 1)).length
      const reply = await s.h.call('POST', '/v1/captures', {
        token: s.key,
        body: { url, html: articleWith(sources.map((source) => `${o}${source}`)) },
      })
      expect(reply.status).toBe(200)
      await waitForLogs(s.h, id, before + 1)
    }
    await recapture(['/img/a.png', '/img/b.png'])
    expect((await imageRows(s.h, id)).map((row) => [row.n, row.originalUrl])).toEqual([
      [1, `${o}/img/a.png`],
      [2, `${o}/img/b.png`],
    ])
    await recapture(['/img/c.png', '/img/b.png'])
    expect((await imageRows(s.h, id)).map((row) => [row.n, row.originalUrl])).toEqual([
      [2, `${o}/img/b.png`],
      [3, `${o}/img/c.png`],
    ])
    expect([s.fixtures.count('/img/a.png'), s.fixtures.count('/img/b.png'), s.fixtures.count('/img/c.png')]).toEqual([
      1, 1, 1,
    ])
    const app = s.h.config.appUrl
    expect(articleImageSources((await content(s.h, s.key, id)).html)).toEqual([
      `${app}/items/${id}/images/3`,
      `${app}/items/${id}/images/2`,
    ])
    // An article without images keeps none.
    await recapture([])
    expect(await imageRows(s.h, id)).toEqual([])
    // A number is never given to another picture: a browser may hold /images/1 (cached as immutable) with a.png.
    s.fixtures.route('/img/d.png', image(png(8, 8), 'image/png'))
    await recapture(['/img/d.png', '/img/a.png'])
    expect((await imageRows(s.h, id)).map((row) => [row.n, row.originalUrl])).toEqual([
      [4, `${o}/img/d.png`],
      [5, `${o}/img/a.png`],
    ])
    // Nor after the item is deleted in the web queue and put back by its Undo.
    const owner = await s.h.db.$client.execute({ sql: 'SELECT user_id FROM saved_items WHERE id = ?', args: [id] })
    const userId = String(owner.rows[0]!.user_id)
    expect(await deleteItemKeepingUndo(s.h.db, userId, id, Date.now())).not.toBeNull()
    expect(await restoreDeletedItem(s.h.db, userId, id, Date.now())).toBe('restored')
    await recapture(['/img/b.png'])
    expect((await imageRows(s.h, id)).map((row) => [row.n, row.originalUrl])).toEqual([[6, `${o}/img/b.png`]])
    await recapture([])
    expect(await deleteItemKeepingUndo(s.h.db, userId, id, Date.now())).not.toBeNull()
    expect(await restoreDeletedItem(s.h.db, userId, id, Date.now())).toBe('restored')
    await recapture(['/img/c.png'])
    expect((await imageRows(s.h, id)).map((row) => [row.n, row.originalUrl])).toEqual([[7, `${o}/img/c.png`]])
  })

  test('an article still shows its images after its site is gone', async () => {
    const s = await setup()
    const o = s.fixtures.origin
    const bytes = png(12, 8)
    s.fixtures.route('/img/only.png', image(bytes, 'image/png'))
    s.fixtures.route('/post', () => htmlPage(articleWith(['/img/only.png'])))
    const id = await enrichOpen(s, `${o}/post`)
    // The site goes away: everything the article needs is served from here.
    await cleanUp()
    await expect(fetch(`${o}/img/only.png`)).rejects.toThrow()
    const article = await content(s.h, s.key, id)
    const [src] = articleImageSources(article.html)
    const copy = archivedImageOf(src!, s.h.config.appUrl)
    expect(copy).toEqual({ itemId: id, n: 1 })
    const served = await restImage(s.h, s.key, id, copy!.n)
    expect(served.status).toBe(200)
    expect(served.bytes).toEqual(bytes)
  })
})

describe('items enriched before archiving', () => {
  test('get their images on articles refresh, and their highlights stay where they were', async () => {
    const s = await setup()
    const o = s.fixtures.origin
    const bytes = png(20, 10)
    s.fixtures.route('/img/late.png', image(bytes, 'image/png'))
    s.fixtures.route('/post', () => htmlPage(articleWith(['/img/late.png', '/img/late.png'])))
    const item = await capture(s.h, s.key, `${o}/post`)
    // Enriched as before this feature: the article keeps its images' URLs.
    const before = startWorkers(s, fetcher({ allowPrivate: true }))
    await waitForStatus(s.h, s.key, item.id, 'enriched')
    await before.stop()
    const old = await content(s.h, s.key, item.id)
    expect(articleImageSources(old.html)).toEqual([`${o}/img/late.png`])
    expect(s.fixtures.count('/img/late.png')).toBe(0)
    const highlight = await s.h.call('POST', `/v1/saved-items/${item.id}/highlights`, {
      token: s.key,
      body: { quote: { exact: 'changed its address' }, note: 'kept' },
    })
    expect(highlight.status).toBe(201)

    const owner = String((await s.h.db.$client.execute('SELECT user_id FROM saved_items')).rows[0]!.user_id)
    expect(await refreshArticles(s.h, owner)).toBe(1)
    const lines = (await waitForLogs(s.h, item.id, 1)).length
    startWorkers(s, fetcher({ allowPrivate: true }), { images: archiving(s.h, { allowPrivate: true }) })
    await waitForLogs(s.h, item.id, lines + 1)

    const now = await content(s.h, s.key, item.id)
    expect(articleImageSources(now.html)).toEqual([`${s.h.config.appUrl}/items/${item.id}/images/1`])
    expect((await restImage(s.h, s.key, item.id, 1)).bytes).toEqual(bytes)
    expect(now.text).toBe(old.text)
    const listed = await s.h.call('GET', `/v1/saved-items/${item.id}/highlights`, { token: s.key })
    expect(listed.body.highlights).toEqual([highlight.body.highlight])
  })
})

describe('within the job', () => {
  test('images not fetched by the deadline keep their URLs, and the run ends at it', async () => {
    const s = await setup()
    const o = s.fixtures.origin
    s.fixtures.route('/img/quick.png', image(png(2, 2), 'image/png'))
    // Answers headers, then never sends the body.
    s.fixtures.route(
      '/img/stuck.png',
      () => new Response(new ReadableStream({ start() {} }), { headers: { 'content-type': 'image/png' } }),
    )
    const item = await capture(s.h, s.key, `${o}/elsewhere`)
    const started = performance.now()
    const result = await archiveImages(
      s.h.db,
      archiving(s.h, { allowPrivate: true }),
      item.id,
      [`${o}/img/stuck.png`, `${o}/img/quick.png`],
      started + 500,
    )
    expect(performance.now() - started).toBeLessThan(5_000)
    expect([...result.copies.keys()]).toEqual([`${o}/img/quick.png`])
    expect(result.set.add.map((image) => [image.n, image.originalUrl])).toEqual([[1, `${o}/img/quick.png`]])
    expect(result.log).toMatchObject({ imagesAdded: 1, imagesFailed: 1 })
  })
})

describe('the address guard holds for images (ENRICH_ALLOW_PRIVATE unset)', () => {
  test('a redirect to loopback, a name resolving to a private address and a loopback URL are refused; the page’s own images are archived', async () => {
    const s = await setup()
    const port = s.fixtures.port
    const good = png(9, 9)
    const sent: (string | null)[] = []
    s.fixtures.route('/img/good.png', (request) => {
      sent.push(request.headers.get('cookie'), request.headers.get('referer'))
      return image(good, 'image/png')()
    })
    s.fixtures.route('/img/to-loopback.png', () => redirectTo('http://127.0.0.1/secret.png?key=k3y'))
    s.fixtures.route('/img/to-port.png', () => redirectTo(`http://127.0.0.1:${port}/secret.png?key=k3y`))
    s.fixtures.route('/secret.png', image(png(3, 3), 'image/png'))
    s.fixtures.route('/post', () =>
      htmlPage(
        articleWith([
          'https://news.example/img/good.png',
          'https://news.example/img/to-loopback.png',
          'https://news.example/img/to-port.png',
          'https://intranet.example/secret.png',
          `http://127.0.0.1:${port}/secret.png`,
          'http://[::1]/secret.png',
        ]),
      ),
    )
    // news.example is public and served by the fixture server; intranet.example resolves to a private address;
    // anything else would go out as in production, and is recorded in `leaked`.
    const leaked: string[] = []
    const lookup = async (hostname: string): Promise<string[]> =>
      hostname === 'news.example' ? [PUBLIC_IP] : hostname === 'intranet.example' ? ['10.1.2.3'] : ['127.0.0.1']
    const fetchAddress: NonNullable<GuardedFetchOptions['fetchAddress']> = (url, address, init) => {
      if (address === PUBLIC_IP) {
        const headers = new Headers(init.headers)
        headers.set('host', url.host)
        return fetch(`${s.fixtures.origin}${url.pathname}${url.search}`, { ...init, headers })
      }
      leaked.push(`${address} ${url.href}`)
      return fetch(url, init)
    }
    const guard = { allowPrivate: false, lookup, fetchAddress }
    const item = await capture(s.h, s.key, 'https://news.example/post')
    startWorkers(s, fetcher(guard), { images: archiving(s.h, guard) })
    await waitForStatus(s.h, s.key, item.id, 'enriched')
    await waitForLogs(s.h, item.id, 1)

    expect(leaked).toEqual([])
    expect(s.fixtures.count('/secret.png')).toBe(0)
    expect((await imageRows(s.h, item.id)).map((row) => row.originalUrl)).toEqual(['https://news.example/img/good.png'])
    // The images that failed keep their URLs: https ones still load while their site serves them.
    expect(articleImageSources((await content(s.h, s.key, item.id)).html)).toEqual([
      `${s.h.config.appUrl}/items/${item.id}/images/1`,
      'https://news.example/img/to-loopback.png',
      'https://news.example/img/to-port.png',
      'https://intranet.example/secret.png',
      `http://127.0.0.1:${port}/secret.png`,
      'http://[::1]/secret.png',
    ])
    // No cookie ever goes with an image request, nor a Referer; the log names no URL.
    expect(sent).toEqual([null, null])
    const written = JSON.stringify(s.h.logs)
    for (const secret of ['secret.png', 'k3y', '/img/']) expect(written).not.toContain(secret)
  })

  test('images never fail the enrichment: a page whose every image fails is enriched with its article', async () => {
    const s = await setup()
    s.fixtures.route('/post', () => htmlPage(articleWith(['/img/gone.png', '/img/gone2.png'])))
    const id = await enrichOpen(s, `${s.fixtures.origin}/post`)
    expect(await imageRows(s.h, id)).toEqual([])
    const article = await content(s.h, s.key, id)
    expect(articleImageSources(article.html)).toEqual([
      `${s.fixtures.origin}/img/gone.png`,
      `${s.fixtures.origin}/img/gone2.png`,
    ])
    await waitFor('the log line', () => (s.h.logs.some((line) => line.itemId === id) ? true : null))
  })
})
