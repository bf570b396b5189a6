/**
 * `bun bench/reading.ts`: the reading feature (docs/reading.md), each number beside a baseline measured in
 * the same run (the ratio is what to compare; this machine is noisy):
 *
 *   1. extraction, in this process: extractArticle() (Readability on linkedom, then sanitize, plain text and
 *      word count) against bare `new Readability(parseHTML(html).document).parse()` on the same HTML, for
 *      the fixture article and a ~1 MiB article built from it (bench/article-pages.ts); and articleMarkdown()
 *      on each article's sanitized HTML. Median and p90 of interleaved runs.
 *   2. the content endpoint against the item list, over HTTP (`bun server.ts`, temp database, one person
 *      with BENCH_READING_ITEMS items, 50 of them with an article of realistic size):
 *      GET /v1/saved-items/:id/content (cycling ids), the same with ?format=markdown, and
 *      GET /v1/saved-items?limit=50, closed loop, BENCH_CONCURRENCY connections, each beside raw Bun.serve
 *      (bench/raw-server.ts) sending the replies recorded from ours, measured just before it. The load
 *      comes from wrk when it is installed (pinned to its own core), else the JavaScript generator
 *      (bench/lib/drive.ts, as bench/run.ts).
 *   3. list latency while enrichment chews through 2 MiB pages: GET /v1/saved-items?limit=50 open loop at
 *      BENCH_READING_RATE req/s (latency from when each was due), in three windows of the same run: with
 *      nothing to enrich (the baseline); after BENCH_READING_BACKLOG captures carrying a 2 MiB page were
 *      queued (`html`, so enrichment fetches nothing), while the server enriches them; and the same with one
 *      more such capture every BENCH_READING_CAPTURE_MS. Target: list p99 under 50 ms while enriching.
 *
 * Knobs: BENCH_READING_RUNS (200 runs on the fixture), BENCH_READING_LARGE_RUNS (11 on the 1 MiB page),
 * BENCH_CONCURRENCY (32), BENCH_DURATION_S (4), BENCH_WARMUP_S (1), BENCH_READING_ITEMS (2000),
 * BENCH_READING_RATE (500), BENCH_READING_WINDOW_S (5), BENCH_READING_BACKLOG (20), BENCH_READING_CAPTURE_MS
 * (500; 0 skips the third window), BENCH_READING_PIN (1; 0 leaves the server unpinned, so its extraction
 * thread may use the other core), BENCH_READING_PROFILE (a directory: the server runs under `--cpu-prof-md`
 * and writes its profile there when it exits). Writes a JSON results file in the temp directory. Exits 1
 * if a measured request failed, or an enriched page has no content.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readability } from '@mozilla/readability'
import { inArray } from 'drizzle-orm'
import { parseHTML } from 'linkedom'
import { uuidv7 } from '../core/ids.ts'
import { prepareCapture } from '../core/items/capture.ts'
import { articleText } from '../core/reading/article-text.ts'
import { extractArticle } from '../core/reading/extract-article.ts'
import { articleMarkdown } from '../core/reading/markdown.ts'
import { countWords } from '../core/reading/reading-time.ts'
import { sanitizeArticle } from '../core/reading/sanitize-article.ts'
import { webRandom } from '../core/time.ts'
import { atomically, openDatabase, type Database } from '../adapters/storage/open-database.ts'
import { enrichmentJobs, itemContents, savedItems } from '../adapters/storage/schema.ts'
import { articlePage, FIXTURE_ARTICLE } from './article-pages.ts'
import { drive, generatorName, rawMix, startRawServer, type RecordedReply } from './lib/drive.ts'
import { runFixedRate, type LoadResult } from './lib/load.ts'
import type { WrkRequest } from './lib/wrk.ts'
import {
  createPersonWithKey,
  envNumber,
  pinCores,
  rssBytes,
  runBench,
  SERVER,
  startServer,
  stopAll,
  type Server,
} from './lib/processes.ts'
import { percentile } from './lib/stats.ts'
import { fmt, log, machine, printTable, reportFailures, writeResults } from './lib/tables.ts'

const RUNS = Math.round(envNumber('BENCH_READING_RUNS', 200))
const LARGE_RUNS = Math.round(envNumber('BENCH_READING_LARGE_RUNS', 11))
const CONCURRENCY = Math.round(envNumber('BENCH_CONCURRENCY', 32))
const DURATION_MS = envNumber('BENCH_DURATION_S', 4) * 1000
const WARMUP_MS = envNumber('BENCH_WARMUP_S', 1) * 1000
const ITEMS = Math.round(envNumber('BENCH_READING_ITEMS', 2000))
const CONTENT_ITEMS = 50
const RATE = envNumber('BENCH_READING_RATE', 500)
const WINDOW_MS = envNumber('BENCH_READING_WINDOW_S', 5) * 1000
const BACKLOG = Math.round(envNumber('BENCH_READING_BACKLOG', 20))
// 0: no captures during the window, only the backlog queued before it.
const CAPTURE_EVERY_MS = process.env.BENCH_READING_CAPTURE_MS === '0' ? 0 : envNumber('BENCH_READING_CAPTURE_MS', 500)
// 0: leave the server unpinned (its extraction thread may then use the load generator's core).
const PIN = process.env.BENCH_READING_PIN !== '0'
const PROFILE_DIR = process.env.BENCH_READING_PROFILE
const P99_TARGET_MS = 50

const PAGE_URL = 'https://blog.example.com/posts/streaming-html-parser'
/** A realistic article: about 2,000 words (the page around it about 18 KB). */
const REALISTIC_PAGE_BYTES = 18 * 1024
const LARGE_PAGE_BYTES = 1024 * 1024
/** Just under the 2 MiB enrichment reads, so the whole page is read. */
const HUGE_PAGE_BYTES = 2 * 1024 * 1024 - 4096

const workDir = mkdtempSync(join(tmpdir(), 'readlater-bench-reading-'))
const databaseUrl = `file:${join(workDir, 'bench.db')}`
const serverEnv: Record<string, string> = {
  DATABASE_URL: databaseUrl,
  DATABASE_AUTH_TOKEN: '',
  RATE_LIMIT_MAX: '100000000',
  LOG_LEVEL: 'silent',
  // On: part 3 measures the API while it enriches. Every seeded job is deleted before the server starts,
  // and every capture carries its page, so enrichment never fetches anything.
  ENRICHMENT: 'on',
}

// ---------------------------------------------------------------------------------------------------------
// 1. Extraction, in this process

interface Stats {
  medianMs: number
  p90Ms: number
  runs: number
}
const stats = (samples: number[]): Stats => {
  const sorted = Float64Array.from(samples).sort()
  return { medianMs: percentile(sorted, 50), p90Ms: percentile(sorted, 90), runs: samples.length }
}

/** Times each function `runs` times, interleaved (one of each per round, order rotating), after `warmup` rounds. */
function timeInterleaved(fns: Record<string, () => unknown>, runs: number, warmup: number): Record<string, Stats> {
  const names = Object.keys(fns)
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
  for (let round = 0; round < warmup + runs; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!
      const start = performance.now()
      fns[name]!()
      const ms = performance.now() - start
      if (round >= warmup) samples[name]!.push(ms)
    }
  }
  return Object.fromEntries(names.map((name) => [name, stats(samples[name]!)]))
}

interface ExtractionResult {
  page: string
  pageBytes: number
  articleHtmlBytes: number
  words: number
  ours: Stats
  bareReadability: Stats
  /** ours ÷ bare, medians */
  ratio: number
  /** Parts of ours after Readability, timed alone on Readability's output. */
  sanitize: Stats
  textAndCount: Stats
  markdown: Stats
  markdownBytes: number
}

function measureExtraction(page: string, html: string, runs: number, warmup: number): ExtractionResult {
  const article = extractArticle(html, PAGE_URL)
  const readable = new Readability(parseHTML(html).document as unknown as Document).parse()
  if (!article || !readable?.content) throw new Error(`${page}: no article extracted`)
  const whole = timeInterleaved(
    {
      ours: () => extractArticle(html, PAGE_URL),
      bare: () => new Readability(parseHTML(html).document as unknown as Document).parse(),
    },
    runs,
    warmup,
  )
  const parts = timeInterleaved(
    {
      sanitize: () => sanitizeArticle(readable.content!, PAGE_URL),
      textAndCount: () => countWords(articleText(article.html)),
      markdown: () => articleMarkdown(article.html),
    },
    runs,
    warmup,
  )
  return {
    page,
    pageBytes: Buffer.byteLength(html),
    articleHtmlBytes: Buffer.byteLength(article.html),
    words: article.wordCount,
    ours: whole.ours!,
    bareReadability: whole.bare!,
    ratio: whole.ours!.medianMs / whole.bare!.medianMs,
    sanitize: parts.sanitize!,
    textAndCount: parts.textAndCount!,
    markdown: parts.markdown!,
    markdownBytes: Buffer.byteLength(articleMarkdown(article.html)),
  }
}

// ---------------------------------------------------------------------------------------------------------
// 2. and 3. Over HTTP

/**
 * `total` enriched items for one person by direct SQL, every `total / 50`th with an article of realistic
 * size (extracted here from its own generated page, so the 50 differ); then every enrichment job is
 * deleted, so the server's enrichment has nothing to fetch. Returns the ids of the items with an article.
 */
async function seed(db: Database, userId: string, total: number): Promise<string[]> {
  const start = Date.now() - total * 60_000
  const rows = Array.from({ length: total }, (_, i) => {
    const now = new Date(start + i * 60_000)
    return prepareCapture(
      { url: `https://site${i % 97}.example.com/posts/${i}-some-article-slug`, sourceName: 'bench' },
      { id: uuidv7(now.getTime(), webRandom), userId, now, connectClient: null },
    ).row
  })
  const every = Math.max(1, Math.floor(total / CONTENT_ITEMS))
  const withContent = rows.filter((_, i) => i % every === 0).slice(0, CONTENT_ITEMS)
  const contents = withContent.map((row, n) => {
    const article = extractArticle(articlePage(REALISTIC_PAGE_BYTES, n * 3), PAGE_URL)
    if (!article) throw new Error('the generated article page has no article')
    return {
      itemId: row.id,
      title: article.title,
      byline: article.byline,
      siteName: article.siteName,
      lang: article.lang,
      wordCount: article.wordCount,
      html: article.html,
      text: article.text,
      extractedAt: new Date().toISOString(),
    }
  })
  const statements = []
  for (let i = 0; i < rows.length; i += 500) statements.push(db.insert(savedItems).values(rows.slice(i, i + 500)))
  for (let i = 0; i < contents.length; i += 10)
    statements.push(db.insert(itemContents).values(contents.slice(i, i + 10)))
  statements.push(db.update(savedItems).set({ enrichmentStatus: 'enriched' }))
  statements.push(db.delete(enrichmentJobs))
  const [first, ...rest] = statements
  await atomically(db, [first!, ...rest])
  return withContent.map((row) => row.id)
}

interface HttpScenario {
  name: string
  description: string
  result: LoadResult
  /** Raw `Bun.serve` sending the same replies, measured just before. */
  raw: LoadResult
  responseBytes: number
  /** req/s ÷ raw Bun.serve's req/s, same run */
  ratioToRaw: number
  /** req/s ÷ the list's req/s, same run */
  ratioToList: number
}

interface ListWindow {
  name: string
  startedAt: string
  list: LoadResult
  capturesSent: number
  /** Captured pages already enriched when the window began, and enriched during it. */
  enrichedBefore: number
  enrichedDuring: number
  rssPeakMiB: number
}

interface CaptureStream {
  sent: number
  latenciesMs: number[]
  failures: string[]
}

async function main(): Promise<number> {
  const started = performance.now()
  log(`readlater reading bench: ${machine()}`)
  const pinning = PIN ? pinCores() : 'not pinned (BENCH_READING_PIN=0)'
  log(pinning)

  // 1. Extraction.
  const largePage = articlePage(LARGE_PAGE_BYTES)
  log(`extraction: fixture ${RUNS} runs, 1 MiB page ${LARGE_RUNS} runs`)
  const extraction = [
    measureExtraction('fixture article', FIXTURE_ARTICLE, RUNS, 30),
    measureExtraction('1 MiB article', largePage, LARGE_RUNS, 2),
  ]

  // 2. The server, a person with items, 50 of them with an article.
  const reader = await createPersonWithKey(serverEnv, 'reader@bench.example', [
    'saved-items:read',
    'saved-items:capture',
  ])
  const db = await openDatabase(databaseUrl)
  const seedStart = performance.now()
  const contentIds = await seed(db, reader.userId, ITEMS)
  log(
    `seeded ${ITEMS} items, ${contentIds.length} with an article, in ${((performance.now() - seedStart) / 1000).toFixed(2)} s`,
  )
  const serverArgs = PROFILE_DIR ? ['--cpu-prof-md', '--cpu-prof-dir', PROFILE_DIR, SERVER] : [SERVER]
  const server: Server = await startServer('readlater', serverArgs, serverEnv)
  if (PROFILE_DIR) profiled = server
  log(`server up: ${server.url} (pid ${server.process.pid})${PROFILE_DIR ? `, profiling into ${PROFILE_DIR}` : ''}`)
  let peakRss = 0
  let phaseRss = 0
  const rssTimer = setInterval(() => {
    const rss = rssBytes(server.process.pid) ?? 0
    peakRss = Math.max(peakRss, rss)
    phaseRss = Math.max(phaseRss, rss)
  }, 100)

  const auth: RequestInit = { headers: { authorization: `Bearer ${reader.key}` } }
  const listPath = '/v1/saved-items?limit=50'
  const listUrl = `${server.url}${listPath}`
  const contentPath = (n: number, markdown: boolean) =>
    `/v1/saved-items/${contentIds[n % contentIds.length]}/content${markdown ? '?format=markdown' : ''}`
  const contentUrl = (n: number, markdown: boolean) => `${server.url}${contentPath(n, markdown)}`

  // Probes: each scenario answers what it should, and its replies become the raw baseline's bodies.
  const replies: Record<string, RecordedReply> = {}
  const probe = async (url: string, rawPath: string, check: (body: any) => string | null): Promise<number> => {
    const response = await fetch(url, auth)
    const text = await response.text()
    if (response.status !== 200) throw new Error(`probe ${url}: ${response.status} ${text.slice(0, 300)}`)
    const problem = check(JSON.parse(text))
    if (problem) throw new Error(`probe ${url}: ${problem}`)
    replies[rawPath] = { status: response.status, body: text }
    return Buffer.byteLength(text)
  }
  const listBytes = await probe(listUrl, '/list', (b) =>
    b.savedItems?.length === 50 ? null : `${b.savedItems?.length} items, expected 50`,
  )
  const isArticle = (b: any) =>
    b.html && b.text && b.wordCount > 1000 ? null : `not an article: ${JSON.stringify(b).slice(0, 200)}`
  const isMarkdown = (b: any) =>
    b.markdown && !('html' in b) ? null : `not Markdown: ${JSON.stringify(b).slice(0, 200)}`
  // Every article's reply, so raw Bun.serve sends each request the bytes ours does.
  const contentSizes: number[] = []
  const markdownSizes: number[] = []
  for (let n = 0; n < contentIds.length; n++) {
    contentSizes.push(await probe(contentUrl(n, false), `/content/${n}`, isArticle))
    markdownSizes.push(await probe(contentUrl(n, true), `/markdown/${n}`, isMarkdown))
  }
  const mean = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) / values.length)
  const raw = await startRawServer(workDir, replies)

  const headers = { authorization: `Bearer ${reader.key}` }
  const get = (path: string): [WrkRequest, number] => [{ method: 'GET', path, headers, expect: 200 }, 1]
  const runTag = Date.now().toString(36)
  /** Raw Bun.serve first, then ours, back to back, so both see the same background load. */
  const measure = async (name: string, mix: [WrkRequest, number][], rawPaths: string[]) => {
    const options = { connections: CONCURRENCY, durationS: DURATION_MS / 1000, warmupS: WARMUP_MS / 1000 }
    const rawResult = await drive(raw.url, rawMix(mix, rawPaths), { ...options, seed: `${runTag}${name}-raw` })
    const ours = await drive(server.url, mix, { ...options, seed: `${runTag}${name}` })
    log(`${name}: ${ours.rps.toFixed(0)} req/s vs raw ${rawResult.rps.toFixed(0)} req/s`)
    return { ours, raw: rawResult }
  }
  const articles = contentIds.map((_, n) => n)
  const listRun = await measure('list', [get(listPath)], ['/list'])
  const contentRun = await measure(
    'content',
    articles.map((n) => get(contentPath(n, false))),
    articles.map((n) => `/content/${n}`),
  )
  const markdownRun = await measure(
    'content-markdown',
    articles.map((n) => get(contentPath(n, true))),
    articles.map((n) => `/markdown/${n}`),
  )
  const scenario = (
    name: string,
    description: string,
    run: { ours: LoadResult; raw: LoadResult },
    responseBytes: number,
  ): HttpScenario => ({
    name,
    description,
    result: run.ours,
    raw: run.raw,
    responseBytes,
    ratioToRaw: run.ours.rps / run.raw.rps,
    ratioToList: run.ours.rps / listRun.ours.rps,
  })
  const http: HttpScenario[] = [
    scenario('list', `GET /v1/saved-items?limit=50 (${ITEMS} items, page cache on)`, listRun, listBytes),
    scenario(
      'content',
      `GET /v1/saved-items/:id/content, cycling over ${contentIds.length} articles (bytes: their mean)`,
      contentRun,
      mean(contentSizes),
    ),
    scenario(
      'content-markdown',
      "the same with ?format=markdown (turndown on the server's Markdown thread, per request)",
      markdownRun,
      mean(markdownSizes),
    ),
  ]
  const httpRssMiB = Math.round(phaseRss / 1024 / 1024)

  // 3. List latency, open loop, without and then with an enrichment backlog of 2 MiB pages.
  const hugePage = articlePage(HUGE_PAGE_BYTES)
  const hugePageJson = JSON.stringify(hugePage)
  const captureBody = (n: number) =>
    `{"url":${JSON.stringify(`https://news.bench.example/${runTag}/long-read-${n}`)},"sourceName":"bench","html":${hugePageJson}}`
  const captureInit = (n: number): RequestInit => ({
    method: 'POST',
    headers: { authorization: `Bearer ${reader.key}`, 'content-type': 'application/json' },
    body: captureBody(n),
  })
  const listOpenLoop = () =>
    runFixedRate({
      rate: RATE,
      warmupMs: WARMUP_MS,
      durationMs: WINDOW_MS,
      expect: [200],
      request: () => ({ url: listUrl, init: auth }),
    })

  const captured: string[] = []
  const stream: CaptureStream = { sent: 0, latenciesMs: [], failures: [] }
  const capture = async (): Promise<void> => {
    const n = stream.sent++
    const sent = performance.now()
    try {
      const response = await fetch(`${server.url}/v1/captures`, captureInit(n))
      const text = await response.text()
      stream.latenciesMs.push(performance.now() - sent)
      if (response.status !== 201) stream.failures.push(`capture ${n}: ${response.status} ${text.slice(0, 200)}`)
      else captured.push((JSON.parse(text) as { savedItem: { id: string } }).savedItem.id)
    } catch (error) {
      stream.failures.push(`capture ${n}: ${String(error)}`)
    }
  }
  /** Which of the captured items are enriched, read from the database (no request to the server). */
  const enrichedOf = async (ids: string[]): Promise<Set<string>> =>
    ids.length === 0
      ? new Set()
      : new Set(
          (
            await db
              .select({ id: savedItems.id, status: savedItems.enrichmentStatus })
              .from(savedItems)
              .where(inArray(savedItems.id, ids))
          )
            .filter((row) => row.status === 'enriched')
            .map((row) => row.id),
        )
  /** One open-loop list run (warm-up included), with a capture every `captureEveryMs` (0: none) meanwhile. */
  const listWindow = async (name: string, captureEveryMs: number): Promise<ListWindow> => {
    phaseRss = 0
    const before = await enrichedOf(captured)
    const sentBefore = stream.sent
    const startedAt = new Date().toISOString()
    const start = performance.now()
    const end = start + WARMUP_MS + WINDOW_MS
    const streaming = (async () => {
      const inFlight: Promise<void>[] = []
      for (let next = start; captureEveryMs > 0 && next < end; next += captureEveryMs) {
        await Bun.sleep(Math.max(0, next - performance.now()))
        inFlight.push(capture())
      }
      await Promise.all(inFlight)
    })()
    const list = await listOpenLoop()
    const after = await enrichedOf(captured)
    await streaming
    log(`list at ${RATE}/s, ${name}: p99 ${list.p99Ms.toFixed(2)} ms`)
    return {
      name,
      startedAt,
      list,
      capturesSent: stream.sent - sentBefore,
      enrichedBefore: before.size,
      enrichedDuring: [...after].filter((id) => !before.has(id)).length,
      rssPeakMiB: Math.round(phaseRss / 1024 / 1024),
    }
  }

  const windows: ListWindow[] = [await listWindow('nothing to enrich', 0)]
  const backlogStart = performance.now()
  for (let i = 0; i < BACKLOG; i++) await capture()
  log(
    `queued ${BACKLOG} captures with a ${(Buffer.byteLength(hugePage) / 1024 / 1024).toFixed(2)} MiB page in ${((performance.now() - backlogStart) / 1000).toFixed(2)} s`,
  )
  windows.push(await listWindow('enriching the backlog', 0))
  if (CAPTURE_EVERY_MS > 0)
    windows.push(await listWindow(`enriching + a capture every ${CAPTURE_EVERY_MS} ms`, CAPTURE_EVERY_MS))
  clearInterval(rssTimer)

  // Every page enriched by now must have its article.
  const enriched = await enrichedOf(captured)
  const contentStatuses: Record<string, number> = {}
  const words: number[] = []
  for (const id of enriched) {
    const response = await fetch(`${server.url}/v1/saved-items/${id}/content`, auth)
    const text = await response.text()
    contentStatuses[response.status] = (contentStatuses[response.status] ?? 0) + 1
    if (response.status === 200) words.push((JSON.parse(text) as { wordCount: number }).wordCount)
  }
  db.$client.close()

  const idle = windows[0]!
  const enriching = windows[1]!
  const held = enriching.list.p99Ms < P99_TARGET_MS
  const captureSorted = Float64Array.from(stream.latenciesMs).sort()

  // Report.
  console.log('')
  console.log('1. Extraction, in-process (ms per call, interleaved runs; ratio = extractArticle ÷ bare Readability)')
  printTable(
    [
      'page',
      'KiB',
      'words',
      'ours p50',
      'ours p90',
      'bare p50',
      'bare p90',
      'ratio',
      'sanitize p50',
      'text+count p50',
      'markdown p50',
      'markdown p90',
    ],
    extraction.map((e) => [
      e.page,
      fmt(e.pageBytes / 1024, 0),
      String(e.words),
      fmt(e.ours.medianMs, 2),
      fmt(e.ours.p90Ms, 2),
      fmt(e.bareReadability.medianMs, 2),
      fmt(e.bareReadability.p90Ms, 2),
      fmt(e.ratio, 2),
      fmt(e.sanitize.medianMs, 2),
      fmt(e.textAndCount.medianMs, 2),
      fmt(e.markdown.medianMs, 2),
      fmt(e.markdown.p90Ms, 2),
    ]),
  )
  console.log(
    `  ours = extractArticle (shape check, linkedom, Readability, sanitize, cap, text, count); bare = new Readability(parseHTML(html).document).parse()`,
  )
  console.log(
    `  sanitize, text+count and markdown timed alone on Readability's output / our sanitized HTML; runs: fixture ${RUNS}, 1 MiB ${LARGE_RUNS}`,
  )
  console.log('')
  console.log(
    `2. Content endpoint beside the list and raw Bun.serve (${CONCURRENCY} connections, keep-alive, ${DURATION_MS / 1000} s after ${WARMUP_MS / 1000} s warm-up, load by ${generatorName()})`,
  )
  printTable(
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'bytes', 'raw req/s', '÷ raw', '÷ list', 'errors'],
    http.map((s) => {
      const errors = s.result.errors + s.result.warmupErrors + s.raw.errors + s.raw.warmupErrors
      return [
        s.name,
        fmt(s.result.rps, 0),
        fmt(s.result.p50Ms, 2),
        fmt(s.result.p99Ms, 2),
        String(s.responseBytes),
        fmt(s.raw.rps, 0),
        fmt(s.ratioToRaw, 3),
        fmt(s.ratioToList, 3),
        errors > 0 ? `${errors} FAILED` : '0',
      ]
    }),
  )
  for (const s of http) console.log(`  ${s.name.padEnd(16)} ${s.description}`)
  console.log('')
  console.log(
    `3. List latency while enriching 2 MiB pages: GET /v1/saved-items?limit=50 open loop at ${RATE} req/s for ${WINDOW_MS / 1000} s (latency from when each was due)`,
  )
  printTable(
    ['run', 'p50 ms', 'p99 ms', 'p99 ÷ idle', 'enriched', 'captures', 'errors', 'RSS MiB'],
    windows.map((w) => [
      w.name,
      fmt(w.list.p50Ms, 2),
      fmt(w.list.p99Ms, 2),
      fmt(w.list.p99Ms / idle.list.p99Ms, 2),
      String(w.enrichedDuring),
      String(w.capturesSent),
      w.list.errors + w.list.warmupErrors > 0 ? `${w.list.errors + w.list.warmupErrors} FAILED` : '0',
      String(w.rssPeakMiB),
    ]),
  )
  console.log(
    `  target: list p99 < ${P99_TARGET_MS} ms while enriching: ${held ? 'HELD' : 'NOT MET'} (${fmt(enriching.list.p99Ms, 2)} ms)${
      windows[2] ? `; with captures of 2 MiB pages arriving too: ${fmt(windows[2].list.p99Ms, 2)} ms` : ''
    }`,
  )
  console.log(
    `  enriched = 2 MiB pages enriched during the run (${((WARMUP_MS + WINDOW_MS) / 1000).toFixed(0)} s with warm-up); ${enriched.size} of ${captured.length} by the end, their content: ${
      Object.entries(contentStatuses)
        .map(([status, n]) => `${n} × ${status}`)
        .join(', ') || 'none to check'
    }${words.length ? ` (${Math.min(...words)}–${Math.max(...words)} words)` : ''}`,
  )
  console.log(
    `  captures of a ${(Buffer.byteLength(hugePage) / 1024 / 1024).toFixed(2)} MiB page (JSON body with \`html\`): ${BACKLOG} queued first, ${stream.sent} in all, p50 ${fmt(percentile(captureSorted, 50), 1)} ms, max ${fmt(captureSorted.at(-1) ?? NaN, 1)} ms, ${stream.failures.length} failed`,
  )
  console.log(
    `  cores: ${pinning}; server RSS peak ${fmt(peakRss / 1024 / 1024, 0)} MiB (during part 2: ${httpRssMiB})`,
  )

  const failures: string[] = [
    ...http.flatMap((s) => [
      ...(s.result.errors + s.result.warmupErrors > 0 ? [`${s.name}: ${s.result.firstError}`] : []),
      ...(s.raw.errors + s.raw.warmupErrors > 0 ? [`${s.name} (raw): ${s.raw.firstError}`] : []),
    ]),
    ...windows.flatMap((w) =>
      w.list.errors + w.list.warmupErrors > 0 ? [`list open loop, ${w.name}: ${w.list.firstError}`] : [],
    ),
    ...stream.failures,
    ...(Object.keys(contentStatuses).some((status) => status !== '200')
      ? [`enriched pages without content: ${JSON.stringify(contentStatuses)}`]
      : []),
  ]
  writeResults(
    'reading',
    {
      date: new Date().toISOString(),
      bun: Bun.version,
      cores: cpus().length,
      pinning,
      loadavg: loadavg(),
      extraction,
      contentEndpoint: {
        concurrency: CONCURRENCY,
        generator: generatorName(),
        warmupSeconds: WARMUP_MS / 1000,
        durationSeconds: DURATION_MS / 1000,
        items: ITEMS,
        articles: contentIds.length,
        scenarios: http,
      },
      listWhileEnriching: {
        rate: RATE,
        windowSeconds: WINDOW_MS / 1000,
        pageBytes: Buffer.byteLength(hugePage),
        backlog: BACKLOG,
        captureEveryMs: CAPTURE_EVERY_MS,
        windows,
        p99TargetMs: P99_TARGET_MS,
        held,
        captures: { sent: stream.sent, p50Ms: percentile(captureSorted, 50), failures: stream.failures },
        enrichedByEnd: enriched.size,
        contentStatuses,
        words,
      },
      serverRssPeakBytes: peakRss || null,
      failures,
      wallSeconds: (performance.now() - started) / 1000,
    },
    started,
  )
  return reportFailures(failures, 'FAILURES')
}

/** A profiled server writes its profile as it exits: it gets time to (stopAll would SIGKILL it after 2 s). */
let profiled: Server | null = null
await runBench(main, async () => {
  if (profiled) {
    profiled.process.kill('SIGTERM')
    await Promise.race([profiled.process.exited, Bun.sleep(30_000)])
  }
  await stopAll()
  rmSync(workDir, { recursive: true, force: true })
})
