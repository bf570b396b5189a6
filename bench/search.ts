/**
 * `bun bench/search.ts` (part of `npm run bench`): full-text search at 100,000 items (docs/search.md).
 *
 *   1. seeds one person with BENCH_SEARCH_ITEMS (100,000) items, each with a title, a description and an
 *      article of 1–5 KB of generated text (words drawn from a Zipf distribution over a 6,000-word
 *      vocabulary, so a few words are everywhere and most are rare, as in prose), indexed by the same
 *      triggers as in production;
 *   2. latency of GET /v1/search, one request at a time, for six kinds of query, beside the same SQL
 *      (the FTS5 MATCH with its ranking, in the person's range) run directly on the database file by this
 *      process in the same run: the endpoint's p50 over the raw query's is the overhead of HTTP, the guard,
 *      the app layer, reading the page's items and making their snippets; and over the raw query plus the
 *      round trip of GET /health (the floor no endpoint can beat, measured in the same run);
 *   3. the index's share of the database file (dbstat);
 *   4. captures per second into a database with the index against one whose index triggers were dropped,
 *      closed loop (BENCH_CONCURRENCY connections, 32; BENCH_DURATION_S, 5, after BENCH_WARMUP_S, 1), alternated
 *      three times, in the same run: the load from wrk when it is installed (pinned to its own core), else
 *      the JavaScript generator (bench/lib/drive.ts, as bench/run.ts).
 * Pinned like bench/run.ts when taskset is there. Knobs: BENCH_SEARCH_ITEMS (100,000), BENCH_SEARCH_KEEP (a path:
 * keep the seeded database there). Exits 1 if a measured request failed.
 */
import { Database as BunDatabase } from 'bun:sqlite'
import { mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { uuidv7 } from '../core/ids.ts'
import { prepareCapture } from '../core/items/capture.ts'
import { webRandom } from '../core/time.ts'
import { drive, generatorName } from './lib/drive.ts'
import type { LoadResult } from './lib/load.ts'
import { seededRandom } from './lib/seed.ts'
import { p50p99 } from './lib/stats.ts'
import { fmt, log, machine, printTable, reportFailures } from './lib/tables.ts'
import { openDatabase } from '../adapters/storage/open-database.ts'
import { catchUpSearchIndex } from '../adapters/storage/search-index.ts'
import {
  benchEnv,
  createKey,
  createPerson,
  envNumber,
  pinCores,
  SERVER,
  startServer,
  stopAll,
} from './lib/processes.ts'

const ITEMS = Math.round(envNumber('BENCH_SEARCH_ITEMS', 100_000))
const SAMPLES = 300
/** Capture runs with and without the index, alternated: the machine drifts, so more than one pair. */
const CAPTURE_ROUNDS = 3
const CONCURRENCY = Math.round(envNumber('BENCH_CONCURRENCY', 32))
const DURATION_S = envNumber('BENCH_DURATION_S', 5)
const WARMUP_S = envNumber('BENCH_WARMUP_S', 1)

const workDir = mkdtempSync(join(tmpdir(), 'readlater-bench-search-'))
const dbPath = join(workDir, 'search.db')
const env = (path: string): Record<string, string> => benchEnv(`file:${path}`)

const random = seededRandom(42)

// Pseudo-words from syllables, plus a few real ones the queries look for, at chosen ranks.
const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'pel', 'dri', 'sun', 'gor', 'ne', 'bal', 'ti', 'quor', 'fen']
const VOCABULARY: string[] = []
for (let i = 0; VOCABULARY.length < 6000; i++) {
  const a = SYLLABLES[i % SYLLABLES.length]!
  const b = SYLLABLES[Math.floor(i / SYLLABLES.length) % SYLLABLES.length]!
  const c = SYLLABLES[Math.floor(i / SYLLABLES.length ** 2) % SYLLABLES.length]!
  VOCABULARY.push(i < 225 ? a + b : a + b + c)
}
// Rank 40: common; 900: mid; 3000: rare.
VOCABULARY[40] = 'memory'
VOCABULARY[41] = 'safety'
VOCABULARY[900] = 'typescript'
VOCABULARY[901] = 'generics'
VOCABULARY[3000] = 'kubernetes'
// Zipf (s = 1): cumulative weights, drawn by binary search.
const CUMULATIVE: number[] = []
{
  let total = 0
  for (let rank = 1; rank <= VOCABULARY.length; rank++) CUMULATIVE.push((total += 1 / rank))
}
function word(): string {
  const target = random() * CUMULATIVE.at(-1)!
  let lo = 0
  let hi = CUMULATIVE.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (CUMULATIVE[mid]! < target) lo = mid + 1
    else hi = mid
  }
  return VOCABULARY[lo]!
}
/** A collocation, as prose has them: two mid-frequency words that also come together (in some 2% of articles). */
const PAIR = 'typescript generics'
function sentence(words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(random() < 4e-5 ? PAIR : word())
  const text = out.join(' ')
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`
}
function article(): string {
  const bytes = 1024 + Math.floor(random() * 4096)
  const paragraphs: string[] = []
  let size = 0
  while (size < bytes) {
    const paragraph = Array.from({ length: 3 + Math.floor(random() * 4) }, () =>
      sentence(8 + Math.floor(random() * 12)),
    ).join(' ')
    paragraphs.push(paragraph)
    size += paragraph.length + 2
  }
  return paragraphs.join('\n\n')
}

async function seed(userId: string): Promise<number> {
  const started = performance.now()
  const db = new BunDatabase(dbPath)
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON')
  const insertItem = db.prepare(
    `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, description, type, tags, enrichment_status, source_name, capture_channel, folder_id, is_read, last_saved_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, '[]', 'enriched', NULL, 'api', NULL, ?, ?, ?, ?)`,
  )
  const insertContent = db.prepare(
    `INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, ?, '<p></p>', ?, ?)`,
  )
  const start = Date.now() - ITEMS * 60_000
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const now = new Date(start + i * 60_000)
      const id = uuidv7(now.getTime(), webRandom)
      const row = prepareCapture(
        { url: `https://site${i % 211}.example.com/posts/${i}` },
        { id, userId, now, connectClient: null },
      ).row
      const text = article()
      insertItem.run(
        id,
        userId,
        row.originalUrl,
        row.normalizedUrl,
        row.host,
        sentence(4 + Math.floor(random() * 6)).slice(0, -1),
        sentence(15),
        i % 4 === 0 ? 'video' : 'article',
        i % 2,
        row.lastSavedAt,
        row.createdAt,
        row.updatedAt,
      )
      insertContent.run(id, text.split(' ').length, text, row.createdAt)
    }
  })
  for (let from = 0; from < ITEMS; from += 5000) batch(from, Math.min(ITEMS, from + 5000))
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  return (performance.now() - started) / 1000
}

/**
 * The ranking query the endpoint runs for words without filters (adapters/storage/search.ts): inside the
 * index, the person's range of rows only; the endpoint then reads the page's items and their text.
 */
const RAW_SQL = `SELECT rowid - (?2 << 32), bm25(search_index, 10.0, 4.0, 3.0, 3.0, 2.0, 3.0, 2.0, 1.0, 4.0) AS score
  FROM search_index WHERE search_index MATCH ?1 AND rowid BETWEEN (?2 << 32) AND (?2 << 32) + 4294967295
  ORDER BY score, rowid DESC LIMIT 71`
const RAW_FILTERS = `SELECT s.*, f.name FROM saved_items s LEFT JOIN folders f ON f.id = s.folder_id
  WHERE s.user_id = ?1 AND s.is_read = 0 AND s.type = 'video' ORDER BY s.last_saved_at DESC, s.id DESC LIMIT 21`

const QUERIES = [
  { name: 'one word (mid-frequency)', q: 'typescript', match: '"typescript"' },
  { name: 'three words', q: 'typescript generics memory', match: '"typescript" AND "generics" AND "memory"' },
  { name: 'phrase (mid-frequency)', q: '"typescript generics"', match: '"typescript generics"' },
  { name: 'phrase (two of the commonest)', q: '"memory safety"', match: '"memory safety"' },
  { name: 'prefix', q: 'kuber', match: '"kuber"*' },
  { name: 'filters only', q: 'is:unread type:video', match: null },
] as const

const benchStarted = performance.now()

async function main(): Promise<number> {
  log(`readlater search bench: ${ITEMS} items, ${machine()}`)
  log(pinCores())
  const userId = await createPerson(env(dbPath), 'search@bench.example')
  const key = await createKey(env(dbPath), 'search@bench.example', ['saved-items:read', 'saved-items:capture'])
  // A small copy before seeding, for the capture comparison (its size does not matter to an insert).
  const small = join(workDir, 'capture-with.db')
  const seconds = await seed(userId)
  log(`seeded ${ITEMS} items with 1–5 KB articles in ${seconds.toFixed(1)} s`)
  // The seed marked every item due, as a migration or an import would; the indexer catches up.
  const indexStart = performance.now()
  const storage = await openDatabase(`file:${dbPath}`)
  const indexedCount = await catchUpSearchIndex(storage)
  storage.$client.close()
  const indexSeconds = (performance.now() - indexStart) / 1000
  log(
    `indexed ${indexedCount} items in ${indexSeconds.toFixed(1)} s (${((indexSeconds * 1e6) / indexedCount).toFixed(0)} µs an item)`,
  )

  const raw = new BunDatabase(dbPath, { readonly: true })
  const sizes = raw
    .query(
      `SELECT sum(pgsize) AS total, sum(CASE WHEN name LIKE 'search_index%' OR name LIKE 'search_docs%' OR name = 'sqlite_autoindex_search_docs_1' OR name = 'search_docs_item_id_unique' THEN pgsize ELSE 0 END) AS search FROM dbstat`,
    )
    .get() as { total: number; search: number }
  const contentBytes = (raw.query('SELECT sum(length(text)) AS n FROM item_contents').get() as { n: number }).n

  const server = await startServer('readlater', [SERVER], env(dbPath))
  const headers = { authorization: `Bearer ${key}` }
  const rows: string[][] = []
  const results: Record<string, unknown>[] = []
  // The floor: a round trip to the same server that reads nothing (GET /health), from the same client.
  const floorSamples: number[] = []
  for (let i = 0; i < 20 + SAMPLES; i++) {
    const t = performance.now()
    await (await fetch(`${server.url}/health`)).arrayBuffer()
    if (i >= 20) floorSamples.push(performance.now() - t)
  }
  const floor = p50p99(floorSamples)
  for (const query of QUERIES) {
    const url = `${server.url}/v1/search?q=${encodeURIComponent(query.q)}`
    let found = 0
    for (let i = 0; i < 20; i++)
      found = ((await (await fetch(url, { headers })).json()) as { results: unknown[] }).results.length
    const endpoint: number[] = []
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now()
      const response = await fetch(url, { headers })
      await response.arrayBuffer()
      endpoint.push(performance.now() - t)
      if (response.status !== 200) throw new Error(`${query.name}: status ${response.status}`)
    }
    const statement = raw.prepare(query.match === null ? RAW_FILTERS : RAW_SQL)
    const slot = (raw.query('SELECT slot FROM search_owners WHERE user_id = ?').get(userId) as { slot: number }).slot
    const args = query.match === null ? [userId] : [query.match, slot]
    for (let i = 0; i < 20; i++) statement.all(...args)
    const direct: number[] = []
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now()
      statement.all(...args)
      direct.push(performance.now() - t)
    }
    const e = p50p99(endpoint)
    const d = p50p99(direct)
    const overFloor = e.p50 / (d.p50 + floor.p50)
    results.push({ query: query.name, q: query.q, found, endpoint: e, raw: d, ratio: e.p50 / d.p50, overFloor })
    rows.push([
      query.name,
      String(found),
      `${fmt(e.p50, 2)} / ${fmt(e.p99, 2)}`,
      `${fmt(d.p50, 2)} / ${fmt(d.p99, 2)}`,
      fmt(e.p50 / d.p50, 2),
      fmt(overFloor, 2),
    ])
  }
  raw.close()
  await stopAll()
  // BENCH_SEARCH_KEEP=path keeps the seeded database, to study a query without seeding again.
  if (process.env.BENCH_SEARCH_KEEP) copyFileSync(dbPath, process.env.BENCH_SEARCH_KEEP)

  // Captures with the index against without: two fresh databases, one with the triggers dropped.
  copyFileSync(join(workDir, 'capture-template.db'), small)
  const without = join(workDir, 'capture-without.db')
  copyFileSync(small, without)
  const strip = new BunDatabase(without)
  for (const { name } of strip
    .query(
      "SELECT name FROM sqlite_master WHERE type = 'trigger' AND (name LIKE 'search_index_%' OR name LIKE 'search_pending_%')",
    )
    .all() as { name: string }[])
    strip.exec(`DROP TRIGGER ${name}`)
  strip.close()
  const runTag = Date.now().toString(36)
  const failures: string[] = []
  const capture = async (path: string, round: number, side: string): Promise<LoadResult> => {
    const target = await startServer(`capture ${path}`, [SERVER], env(path))
    const result = await drive(
      target.url,
      [
        [
          {
            method: 'POST',
            path: '/v1/captures',
            headers: { authorization: `Bearer ${captureKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              url: `https://capture${round}.example.com/${runTag}/post/{n}`,
              sourceName: 'bench',
            }),
            expect: 201,
          },
          1,
        ],
      ],
      { connections: CONCURRENCY, durationS: DURATION_S, warmupS: WARMUP_S, seed: `${runTag}${side}${round}` },
    )
    await stopAll()
    if (result.errors + result.warmupErrors > 0)
      failures.push(
        `captures ${side} the index, round ${round + 1}: ${result.errors} measured + ${result.warmupErrors} warm-up failures; first: ${result.firstError}`,
      )
    log(`captures ${side} the index, round ${round + 1}: ${result.rps.toFixed(0)} req/s`)
    return result
  }
  const captureKey = templateKey
  const withIndex: number[] = []
  const withoutIndex: number[] = []
  for (let round = 0; round < CAPTURE_ROUNDS; round++) {
    withIndex.push((await capture(small, round, 'with')).rps)
    withoutIndex.push((await capture(without, round, 'without')).rps)
  }
  const captureRatio = withIndex.reduce((a, b) => a + b) / withoutIndex.reduce((a, b) => a + b)

  console.log('')
  console.log(`search at ${ITEMS} items, ${machine()}`)
  printTable(['query', 'found', 'p50 / p99 ms', 'raw p50 / p99 ms', 'p50 ÷ raw', 'p50 ÷ (raw + floor)'], rows)
  console.log(
    `  one request at a time, ${SAMPLES} per query after 20 warm-up; raw = the same SQL run directly on the file by this process`,
  )
  console.log(
    `  floor = GET /health from the same client: p50 ${floor.p50.toFixed(2)} ms, p99 ${floor.p99.toFixed(2)} ms (the round trip no endpoint can beat)`,
  )
  console.log(
    `  index: ${(sizes.search / 2 ** 20).toFixed(0)} MiB of a ${(sizes.total / 2 ** 20).toFixed(0)} MiB database (${((100 * sizes.search) / sizes.total).toFixed(0)}%); article text ${(contentBytes / 2 ** 20).toFixed(0)} MiB`,
  )
  console.log(
    `  indexing: ${indexedCount} items in ${indexSeconds.toFixed(1)} s (${((indexSeconds * 1e6) / indexedCount).toFixed(0)} µs an item); seeding took ${seconds.toFixed(1)} s`,
  )
  console.log(
    `  captures/s with the index ${withIndex.map((r) => r.toFixed(0)).join(' / ')}, without ${withoutIndex.map((r) => r.toFixed(0)).join(' / ')}: with ÷ without ${captureRatio.toFixed(2)} (${CONCURRENCY} connections, ${DURATION_S} s after ${WARMUP_S} s warm-up each, alternated; load by ${generatorName()})`,
  )
  const file = join(tmpdir(), `readlater-bench-search-${new Date().toISOString().replaceAll(':', '-')}.json`)
  writeFileSync(
    file,
    JSON.stringify(
      {
        items: ITEMS,
        generator: generatorName(),
        indexSeconds,
        floor,
        results,
        index: sizes,
        captureRatio,
        withIndex,
        withoutIndex,
        failures,
      },
      null,
      2,
    ),
  )
  console.log(`  results JSON: ${file}   (wall time ${((performance.now() - benchStarted) / 1000).toFixed(1)} s)`)
  return reportFailures(failures, 'FAILED REQUESTS')
}

let templateKey = ''
/** The capture comparison's database: migrated, one person, no items; made before the big seed. */
async function captureTemplate(): Promise<void> {
  const path = join(workDir, 'capture-template.db')
  await createPerson(env(path), 'capture@bench.example')
  templateKey = await createKey(env(path), 'capture@bench.example', ['saved-items:capture'])
  const db = new BunDatabase(path)
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
}

try {
  await captureTemplate()
  process.exitCode = await main()
} finally {
  await stopAll()
  rmSync(workDir, { recursive: true, force: true })
}
