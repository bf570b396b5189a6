/**
 * Archived images (docs/reading.md#archived-images): the same N article pages, each with 20 images, enriched
 * by this process's workers (4 at a time, as the server runs them) from a local fixture server, once without
 * image archiving and once with it (the production wiring: every image through the guarded fetch, sniffed,
 * stored, the article pointed at the copies on the extraction thread), on fresh databases in one run.
 * Reports both rates, their ratio, and the bytes the images took. Knobs: BENCH_IMAGES_ITEMS (100),
 * BENCH_IMAGES_PER_PAGE (20). Exits 1 if an item did not end `enriched` or an image was not archived.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { count, eq, sum } from 'drizzle-orm'
import { prepareCapture } from '../core/items/capture.ts'
import { uuidv7 } from '../core/ids.ts'
import { systemClock, webRandom } from '../core/time.ts'
import { archivedImageUrl } from '../core/reading/archived-image-url.ts'
import { guardedFetch } from '../adapters/enrichment/guarded-fetch.ts'
import { fetchImage } from '../adapters/enrichment/image-fetch.ts'
import type { ImageArchiving } from '../adapters/jobs/archive-images.ts'
import { DEFAULT_WORKER_OPTIONS, startEnrichmentWorkers } from '../adapters/jobs/enrichment-worker.ts'
import { openDatabase } from '../adapters/storage/open-database.ts'
import { upsertCapture } from '../adapters/storage/saved-items.ts'
import { itemImages, savedItems, users } from '../adapters/storage/schema.ts'
import { png } from '../test/fixtures/images/images.ts'
import { fmt, printTable } from './lib/tables.ts'

const ITEMS = Number(process.env.BENCH_IMAGES_ITEMS ?? 100)
const PER_PAGE = Number(process.env.BENCH_IMAGES_PER_PAGE ?? 20)
const CONCURRENCY = DEFAULT_WORKER_OPTIONS.concurrency
const PROSE =
  'Readers keep the article itself, not only a link to it, so that it can still be read long after the original page ' +
  'moved behind a paywall, changed its address, or disappeared from the web altogether. '

// Photos of a typical article's size (a 160 × 120 PNG stored uncompressed is 58 KB), each one distinct.
const IMAGES = Array.from({ length: PER_PAGE }, (_, i) => png(160, 120, { rgb: [i * 12, 80, 200 - i * 8] }))
const page = (n: number): string =>
  `<!doctype html><html lang="en"><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1>${Array.from(
    { length: PER_PAGE },
    (_, i) => `<p>${PROSE.repeat(3)}</p><figure><img src="/img/${n}/${i}.png" alt="figure ${i}"></figure>`,
  ).join('')}</article></body></html>`

const fixtures = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    const path = new URL(request.url).pathname
    const image = /^\/img\/\d+\/(\d+)\.png$/.exec(path)
    if (image) return new Response(IMAGES[Number(image[1])], { headers: { 'content-type': 'image/png' } })
    const post = /^\/posts\/(\d+)$/.exec(path)
    if (post) return new Response(page(Number(post[1])), { headers: { 'content-type': 'text/html; charset=utf-8' } })
    return new Response('not here', { status: 404 })
  },
})
const pageUrl = (run: string, n: number) => `http://127.0.0.1:${fixtures.port}/posts/${n}?run=${run}`
const APP = 'http://localhost:3000'
const guard = { allowPrivate: true, userAgent: 'Readlater bench' }

interface Run {
  perSecond: number
  enriched: number
  images: number
  imageBytes: number
  fileBytes: number
}

async function enrich(label: string, images: ImageArchiving | undefined): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'readlater-bench-images-'))
  const file = join(dir, 'db.sqlite')
  const db = await openDatabase(`file:${file}`)
  try {
    const userId = uuidv7(Date.now(), webRandom)
    await db
      .insert(users)
      .values({ id: userId, email: 'images@bench.example', passwordHash: 'x', createdAt: new Date().toISOString() })
    for (let n = 0; n < ITEMS; n++) {
      const now = new Date()
      await upsertCapture(
        db,
        prepareCapture(
          { url: pageUrl(label, n) },
          { id: uuidv7(now.getTime(), webRandom), userId, now, connectClient: null },
        ),
      )
    }
    const enrichedCount = async () => {
      const [row] = await db.select({ n: count() }).from(savedItems).where(eq(savedItems.enrichmentStatus, 'enriched'))
      return row?.n ?? 0
    }
    const started = performance.now()
    const workers = startEnrichmentWorkers(
      {
        db,
        clock: systemClock,
        log: () => {},
        fetchPage: (url) => guardedFetch(url, guard),
        ...(images ? { images } : {}),
      },
      { ...DEFAULT_WORKER_OPTIONS, pollMs: 5 },
    )
    let enriched = 0
    const deadline = Date.now() + 300_000
    while ((enriched = await enrichedCount()) < ITEMS && Date.now() < deadline) await Bun.sleep(10)
    const seconds = (performance.now() - started) / 1000
    await workers.stop()
    const [stored] = await db.select({ n: count(), bytes: sum(itemImages.size) }).from(itemImages)
    db.$client.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    return {
      perSecond: enriched / seconds,
      enriched,
      images: stored?.n ?? 0,
      imageBytes: Number(stored?.bytes ?? 0),
      fileBytes: statSync(file).size,
    }
  } finally {
    db.$client.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const archiving: ImageArchiving = {
  fetchImage: (url, limits) => fetchImage(url, guard, limits),
  urlOf: (itemId, n) => archivedImageUrl(APP, itemId, n),
}

await enrich('warm-up', archiving) // threads, JIT and the fixture server warmed, on a database thrown away
const without = await enrich('without', undefined)
const withImages = await enrich('with', archiving)
fixtures.stop(true)

const mb = (bytes: number) => (bytes / 1_000_000).toFixed(1)
const pageBytes = new TextEncoder().encode(page(0)).byteLength
console.log('')
console.log(
  `archived images, ${ITEMS} article pages (${(pageBytes / 1024).toFixed(0)} KiB) of ${PER_PAGE} images (${(IMAGES[0]!.byteLength / 1024).toFixed(0)} KiB PNGs) each, ${CONCURRENCY} workers, from a local server`,
)
printTable(
  ['enrichment', 'items/s', 'ms an item', 'images stored', 'MB of images', 'database file MB'],
  [
    ['without archiving', without],
    ['with archiving', withImages],
  ].map(([name, run]) => {
    const r = run as Run
    return [
      name as string,
      fmt(r.perSecond, 1),
      fmt(1000 / r.perSecond, 1),
      String(r.images),
      mb(r.imageBytes),
      mb(r.fileBytes),
    ]
  }),
)
console.log(
  `  with ÷ without: ${(without.perSecond / withImages.perSecond).toFixed(2)}x the time an item; ${mb(withImages.imageBytes / ITEMS)} MB of images an item (fetched through the guard, sniffed, stored with the article; the article rewritten to point at them)`,
)
if (without.enriched !== ITEMS || withImages.enriched !== ITEMS) {
  console.log(`!!! only ${without.enriched} and ${withImages.enriched} of ${ITEMS} items were enriched`)
  process.exit(1)
}
if (withImages.images !== ITEMS * PER_PAGE) {
  console.log(`!!! ${withImages.images} of ${ITEMS * PER_PAGE} images were archived`)
  process.exit(1)
}
