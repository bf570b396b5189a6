/**
 * The enrichment queue's throughput: N captured items enriched by this process's workers (4 at a time,
 * as the server runs them) from a local fixture server, against a baseline in the same run: the same N
 * page fetches with the same concurrency and nothing else (no queue, no guard, no parsing, no writes).
 * Knobs: BENCH_QUEUE_ITEMS (400). Exits 1 if an item did not end `enriched`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { count, eq } from 'drizzle-orm'
import { prepareCapture } from '../core/items/capture.ts'
import { uuidv7 } from '../core/ids.ts'
import { systemClock, webRandom } from '../core/time.ts'
import { guardedFetch } from '../adapters/enrichment/guarded-fetch.ts'
import { DEFAULT_WORKER_OPTIONS, startEnrichmentWorkers } from '../adapters/jobs/enrichment-worker.ts'
import { openDatabase } from '../adapters/storage/open-database.ts'
import { upsertCapture } from '../adapters/storage/saved-items.ts'
import { savedItems, users } from '../adapters/storage/schema.ts'

const ITEMS = Number(process.env.BENCH_QUEUE_ITEMS ?? 400)
const CONCURRENCY = DEFAULT_WORKER_OPTIONS.concurrency
const PAGE = readFileSync(new URL('../test/fixtures/pages/article.html', import.meta.url))

const fixtures = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
})
const pageUrl = (n: number) => `http://127.0.0.1:${fixtures.port}/posts/${n}`

async function baseline(): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ITEMS) {
        const response = await fetch(pageUrl(next++))
        await response.arrayBuffer()
      }
    }),
  )
  return ITEMS / ((performance.now() - started) / 1000)
}

async function queue(): Promise<{ perSecond: number; enriched: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'readlater-bench-queue-'))
  const db = await openDatabase(`file:${join(dir, 'db.sqlite')}`)
  try {
    const userId = uuidv7(Date.now(), webRandom)
    await db
      .insert(users)
      .values({ id: userId, email: 'queue@bench.example', passwordHash: 'x', createdAt: new Date().toISOString() })
    for (let n = 0; n < ITEMS; n++) {
      const now = new Date()
      await upsertCapture(
        db,
        prepareCapture({ url: pageUrl(n) }, { id: uuidv7(now.getTime(), webRandom), userId, now, connectClient: null }),
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
        fetchPage: (url) => guardedFetch(url, { allowPrivate: true, userAgent: 'Readlater bench' }),
      },
      { ...DEFAULT_WORKER_OPTIONS, pollMs: 5 },
    )
    let enriched = 0
    const deadline = Date.now() + 120_000
    while ((enriched = await enrichedCount()) < ITEMS && Date.now() < deadline) await Bun.sleep(20)
    const seconds = (performance.now() - started) / 1000
    await workers.stop()
    return { perSecond: enriched / seconds, enriched }
  } finally {
    db.$client.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

await baseline() // warm-up
const raw = await baseline()
const ours = await queue()
fixtures.stop(true)
console.log('')
console.log(
  `enrichment queue, ${ITEMS} items, ${CONCURRENCY} workers, article fixture (${PAGE.byteLength} bytes) from a local server`,
)
console.log(`  queue: ${ours.perSecond.toFixed(0)} items/s enriched (claim, guarded fetch, decode, extract, store)`)
console.log(`  raw fetch of the same pages, ${CONCURRENCY} at a time: ${raw.toFixed(0)} pages/s`)
console.log(`  ratio ${(ours.perSecond / raw).toFixed(3)}`)
if (ours.enriched !== ITEMS) {
  console.log(`!!! only ${ours.enriched} of ${ITEMS} items were enriched`)
  process.exit(1)
}
