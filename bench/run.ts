/**
 * `npm run bench`: throughput and latency of the hot paths on loopback, each beside a bare Bun.serve
 * baseline measured in the same run (the ratio is what to compare across machines; raw numbers are noisy).
 *
 *   capture-new   POST /v1/captures, a different URL each request (insert), into the reader's account
 *   recapture     POST /v1/captures of the same 8 URLs again (upsert of an existing row)
 *   list          GET /v1/saved-items?limit=50 for the reader (10,000 items by default)
 *   list-nocache  the same against a second server with LIST_CACHE_MB=0
 *   folders       GET /v1/folders
 *   mcp-save      POST /mcp tools/call save_url, a different URL each request (the MCP twin of capture-new)
 *   mcp-list      POST /mcp tools/call list_saved_items limit 50 for the same person (the twin of list)
 *   read-state    POST /v1/saved-items/:id/read and /unread in turn
 * then capture-new again, open loop, at half its measured rate (p50/p99 from when each was due).
 *
 * Our servers (`bun server.ts`) and the baseline (bench/raw-server.ts) run as separate processes; this
 * process is the load generator (on its own core when taskset is there). Knobs: BENCH_CONCURRENCY (32),
 * BENCH_DURATION_S (5), BENCH_WARMUP_S (1), BENCH_LIST_ITEMS (10000: items in the database), BENCH_PEOPLE
 * (1: how many people share them; the reader holds one share), BENCH_SERVER_ROOT (another checkout whose
 * server.ts to measure, for before/after tables). Reports the server's peak RSS. Exits 1 if
 * any measured request failed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { count, eq } from 'drizzle-orm'
import { prepareCapture } from '../core/items/capture.ts'
import { uuidv7 } from '../core/ids.ts'
import { webRandom } from '../core/time.ts'
import { TAGS, type Tag } from '../core/types.ts'
import { listSavedItems } from '../adapters/storage/saved-items.ts'
import { atomically, openDatabase, type Database } from '../adapters/storage/open-database.ts'
import { savedItems } from '../adapters/storage/schema.ts'
import { insertUser } from '../adapters/storage/users.ts'
import { runFixedRate, runLoad, type LoadRequest, type LoadResult } from './lib/load.ts'
import {
  createKey,
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
import { ascending, percentile } from './lib/stats.ts'
import { fmt, log, machine, printTable, reportFailures, writeResults } from './lib/tables.ts'

const CONCURRENCY = Math.round(envNumber('BENCH_CONCURRENCY', 32))
const DURATION_MS = envNumber('BENCH_DURATION_S', 5) * 1000
const WARMUP_MS = envNumber('BENCH_WARMUP_S', 1) * 1000
const LIST_ITEMS = Math.round(envNumber('BENCH_LIST_ITEMS', 10_000))
// 1: one person holds every item. More: the items are spread evenly, the reader holding their share.
const PEOPLE = Math.round(envNumber('BENCH_PEOPLE', 1))
const READER_ITEMS = Math.floor(LIST_ITEMS / PEOPLE)
const SHAPE =
  PEOPLE === 1
    ? `${LIST_ITEMS} items`
    : `${READER_ITEMS} items, ${PEOPLE * READER_ITEMS} in the database over ${PEOPLE} people`
const RECAPTURE_URLS = 8

const workDir = mkdtempSync(join(tmpdir(), 'readlater-bench-'))
const databaseUrl = `file:${join(workDir, 'bench.db')}`
const serverEnv: Record<string, string> = {
  DATABASE_URL: databaseUrl,
  DATABASE_AUTH_TOKEN: '',
  RATE_LIMIT_MAX: '100000000',
  LOG_LEVEL: 'silent',
  // Captures of made-up URLs must not queue outbound fetches that compete for the two cores.
  ENRICHMENT: 'off',
}

/** Inserts `total` items for one person straight through the storage layer, 500 rows a statement, one batch. */
async function seedItems(db: Database, userId: string, total: number): Promise<void> {
  const start = Date.now() - total * 60_000
  // In chunks of 10,000 rows, so a million never sit in memory at once.
  for (let from = 0; from < total; from += 10_000) {
    const rows = Array.from({ length: Math.min(10_000, total - from) }, (_, j) => {
      const i = from + j
      const now = new Date(start + i * 60_000)
      const tags: Tag[] = i % 3 === 0 ? [TAGS[i % TAGS.length]!] : []
      const url = `https://site${i % 97}.example.com/posts/${i}-some-article-slug?page=${i % 5}`
      return prepareCapture(
        { url, tags, sourceName: 'bench' },
        { id: uuidv7(now.getTime(), webRandom), userId, now, connectClient: null },
      ).row
    })
    const statements = []
    for (let i = 0; i < rows.length; i += 500) statements.push(db.insert(savedItems).values(rows.slice(i, i + 500)))
    const [first, ...rest] = statements
    if (first) await atomically(db, [first, ...rest])
  }
  const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(savedItems).where(eq(savedItems.userId, userId))
  if (n !== total) throw new Error(`seeded ${n} items, expected ${total}`)
}

/** People besides the reader, each with `each` items: the "many people" shape of BENCH_PEOPLE. */
async function seedOtherPeople(db: Database, people: number, each: number): Promise<void> {
  for (let p = 0; p < people; p++) {
    const id = uuidv7(Date.now(), webRandom)
    await insertUser(db, {
      id,
      email: `person-${p}@bench.example`,
      passwordHash: 'not-a-password',
      createdAt: new Date().toISOString(),
    })
    await seedItems(db, id, each)
  }
}

/** One request before measuring, to prove the scenario does what it claims (and to copy its reply for the baseline). */
async function probe(
  request: LoadRequest,
  expectStatus: number,
  check: (body: any, response: Response) => string | null,
): Promise<{ status: number; body: string }> {
  const response = await fetch(request.url, request.init)
  const text = await response.text()
  if (response.status !== expectStatus)
    throw new Error(
      `probe ${request.init.method ?? 'GET'} ${request.url}: expected ${expectStatus}, got ${response.status}: ${text.slice(0, 500)}`,
    )
  const problem = check(JSON.parse(text), response)
  if (problem) throw new Error(`probe ${request.url}: ${problem}`)
  return { status: response.status, body: text }
}

interface Scenario {
  name: string
  description: string
  expect: number[]
  ours(n: number): LoadRequest
  raw(n: number): LoadRequest
}

interface ScenarioResult {
  name: string
  description: string
  ours: LoadResult
  raw: LoadResult
  /** ours req/s ÷ raw req/s */
  ratio: number
  /** The serving process's peak resident set during the scenario (Linux). */
  rssPeakMiB: number | null
}

async function inProcessListTimes(
  db: Database,
  userId: string,
): Promise<{ storageLayerP50Ms: number; rawSqlP50Ms: number; iterations: number }> {
  const iterations = 300
  const time = async (fn: () => Promise<unknown>): Promise<number> => {
    for (let i = 0; i < 20; i++) await fn()
    const samples: number[] = []
    for (let i = 0; i < iterations; i++) {
      const t0 = performance.now()
      await fn()
      samples.push(performance.now() - t0)
    }
    return percentile(ascending(samples), 50)
  }
  const storageLayerP50Ms = await time(() =>
    listSavedItems(db, userId, { sort: 'newest', folder: null, limit: 50, after: null }),
  )
  const rawSqlP50Ms = await time(() =>
    db.$client.execute({
      sql: 'SELECT * FROM saved_items WHERE user_id = ? ORDER BY last_saved_at DESC, id DESC LIMIT 51',
      args: [userId],
    }),
  )
  return { storageLayerP50Ms, rawSqlP50Ms, iterations }
}

function printResults(results: ScenarioResult[]): void {
  printTable(
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'raw req/s', 'raw p50', 'raw p99', 'ratio', 'rss MiB', 'errors'],
    results.map((r) => [
      r.name,
      fmt(r.ours.rps, 0),
      fmt(r.ours.p50Ms, 2),
      fmt(r.ours.p99Ms, 2),
      fmt(r.raw.rps, 0),
      fmt(r.raw.p50Ms, 2),
      fmt(r.raw.p99Ms, 2),
      fmt(r.ratio, 3),
      r.rssPeakMiB === null ? '-' : String(r.rssPeakMiB),
      r.ours.errors + r.raw.errors > 0 ? `${r.ours.errors + r.raw.errors} FAILED` : '0',
    ]),
  )
}

async function main(): Promise<number> {
  const started = performance.now()
  log(
    `readlater bench: ${CONCURRENCY} in flight, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s per run, ${machine()}`,
  )
  log(`database ${databaseUrl}`)
  const pinning = pinCores()
  log(pinning)

  // Accounts and keys through the CLI, exactly as an operator would; then 10,000 items by direct SQL.
  const reader = await createPersonWithKey(serverEnv, 'reader@bench.example', [
    'saved-items:read',
    'saved-items:write',
    'folders:read',
    'folders:write',
  ])
  // Captures go to the reader's own account (a capture-only key), so they land among that person's items.
  const capturer = {
    userId: reader.userId,
    key: await createKey(serverEnv, 'reader@bench.example', ['saved-items:capture']),
  }
  const db = await openDatabase(databaseUrl)
  const seedStart = performance.now()
  await seedItems(db, reader.userId, READER_ITEMS)
  await seedOtherPeople(db, PEOPLE - 1, READER_ITEMS)
  log(
    `seeded ${READER_ITEMS * PEOPLE} items (${PEOPLE} ${PEOPLE === 1 ? 'person' : 'people'} of ${READER_ITEMS}) in ${((performance.now() - seedStart) / 1000).toFixed(2)} s`,
  )

  const ours = await startServer('readlater', [SERVER], serverEnv)
  // The same server without its list page cache: every list read goes to the database.
  const uncached = await startServer('readlater, no list cache', [SERVER], { ...serverEnv, LIST_CACHE_MB: '0' })
  const folderNames = ['Inbox zero', 'Long reads', 'Recipes', 'Work', 'Papers']
  const readerJson = { authorization: `Bearer ${reader.key}`, 'content-type': 'application/json' }
  for (const name of folderNames) {
    const made = await fetch(`${ours.url}/v1/folders`, {
      method: 'POST',
      headers: readerJson,
      body: JSON.stringify({ name }),
    })
    if (made.status !== 200) throw new Error(`creating folder ${name}: ${made.status} ${await made.text()}`)
  }

  const runTag = Date.now().toString(36)
  const captureInit = (key: string, url: string): RequestInit => ({
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, tags: ['backend'], sourceName: 'bench' }),
  })
  const newUrl = (n: number) => `https://news.example.com/${runTag}/story-${n}?utm_source=bench&id=${n}`
  const recaptureUrl = (n: number) => `https://blog.example.org/${runTag}/post-${n % RECAPTURE_URLS}`
  const listInit: RequestInit = { headers: { authorization: `Bearer ${reader.key}` } }
  // A stateless MCP client sends each tools/call as one POST with the protocol version header.
  const mcpInit = (key: string, name: string, args: Record<string, unknown>): RequestInit => ({
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  })

  // Probes: each scenario answers what it should, and its reply becomes the baseline's body.
  const captureSample = await probe(
    { url: `${ours.url}/v1/captures`, init: captureInit(capturer.key, newUrl(-1)) },
    201,
    (b) => (b.captureResult === 'created' ? null : `captureResult ${b.captureResult}`),
  )
  let recaptureSample = { status: 0, body: '' }
  for (let i = 0; i < RECAPTURE_URLS; i++) {
    await probe({ url: `${ours.url}/v1/captures`, init: captureInit(capturer.key, recaptureUrl(i)) }, 201, (b) =>
      b.captureResult === 'created' ? null : `captureResult ${b.captureResult}`,
    )
    recaptureSample = await probe(
      { url: `${ours.url}/v1/captures`, init: captureInit(capturer.key, recaptureUrl(i)) },
      200,
      (b) => (b.captureResult === 'updated' ? null : `captureResult ${b.captureResult}`),
    )
  }
  const listSample = await probe({ url: `${ours.url}/v1/saved-items?limit=50`, init: listInit }, 200, (b, r) =>
    b.savedItems?.length !== 50
      ? `${b.savedItems?.length} items, expected 50`
      : r.headers.get('link')?.includes('rel="next"')
        ? null
        : 'no Link rel="next" header',
  )

  const pageIds = (JSON.parse(listSample.body) as { savedItems: { id: string }[] }).savedItems.map((item) => item.id)
  const stateInit = (n: number): { path: string; init: RequestInit } => ({
    path: `/v1/saved-items/${pageIds[n % pageIds.length]}/${Math.floor(n / pageIds.length) % 2 === 0 ? 'read' : 'unread'}`,
    init: { method: 'POST', headers: { authorization: `Bearer ${reader.key}` } },
  })
  const stateSample = await probe({ url: `${ours.url}${stateInit(0).path}`, init: stateInit(0).init }, 200, (b) =>
    b.isRead === true ? null : `isRead ${b.isRead}`,
  )
  const foldersSample = await probe({ url: `${ours.url}/v1/folders`, init: listInit }, 200, (b) =>
    b.folders?.length === folderNames.length ? null : `${b.folders?.length} folders`,
  )
  const mcpSaveSample = await probe(
    { url: `${ours.url}/mcp`, init: mcpInit(capturer.key, 'save_url', { url: newUrl(-2) }) },
    200,
    (b) =>
      b.result?.structuredContent?.captureResult === 'created'
        ? null
        : `not a created item: ${JSON.stringify(b).slice(0, 200)}`,
  )
  const mcpListSample = await probe(
    { url: `${ours.url}/mcp`, init: mcpInit(reader.key, 'list_saved_items', { limit: 50 }) },
    200,
    (b) =>
      b.result?.structuredContent?.savedItems?.length === 50 && b.result.structuredContent.nextCursor
        ? null
        : `not a page of 50: ${JSON.stringify(b).slice(0, 200)}`,
  )

  const bodiesFile = join(workDir, 'raw-bodies.json')
  writeFileSync(
    bodiesFile,
    JSON.stringify({
      '/capture': captureSample,
      '/recapture': recaptureSample,
      '/list': listSample,
      '/state': stateSample,
      '/folders': foldersSample,
      '/mcp-save': mcpSaveSample,
      '/mcp-list': mcpListSample,
    }),
  )
  const raw: Server = await startServer('raw Bun.serve', ['bench/raw-server.ts'], { BODIES_FILE: bodiesFile })
  log(
    `servers up: readlater ${ours.url} (pid ${ours.process.pid}), raw ${raw.url} (pid ${raw.process.pid}); response bytes capture ${captureSample.body.length}, recapture ${recaptureSample.body.length}, list ${listSample.body.length}`,
  )

  const scenarios: Scenario[] = [
    {
      name: 'capture-new',
      description: 'POST /v1/captures, a different URL each request (201 created)',
      expect: [201],
      ours: (n) => ({ url: `${ours.url}/v1/captures`, init: captureInit(capturer.key, newUrl(n)) }),
      raw: (n) => ({ url: `${raw.url}/capture`, init: captureInit(capturer.key, newUrl(n)) }),
    },
    {
      name: 'recapture',
      description: `POST /v1/captures of the same ${RECAPTURE_URLS} URLs again (200 updated)`,
      expect: [200],
      ours: (n) => ({ url: `${ours.url}/v1/captures`, init: captureInit(capturer.key, recaptureUrl(n)) }),
      raw: (n) => ({ url: `${raw.url}/recapture`, init: captureInit(capturer.key, recaptureUrl(n)) }),
    },
    {
      name: 'list',
      description: `GET /v1/saved-items?limit=50, person with ${SHAPE}`,
      expect: [200],
      ours: () => ({ url: `${ours.url}/v1/saved-items?limit=50`, init: listInit }),
      raw: () => ({ url: `${raw.url}/list?limit=50`, init: listInit }),
    },
    {
      name: 'list-nocache',
      description: `the same list with LIST_CACHE_MB=0: every page read from the database`,
      expect: [200],
      ours: () => ({ url: `${uncached.url}/v1/saved-items?limit=50`, init: listInit }),
      raw: () => ({ url: `${raw.url}/list?limit=50`, init: listInit }),
    },
    {
      name: 'folders',
      description: `GET /v1/folders, ${folderNames.length} folders`,
      expect: [200],
      ours: () => ({ url: `${ours.url}/v1/folders`, init: listInit }),
      raw: () => ({ url: `${raw.url}/folders`, init: listInit }),
    },
    {
      name: 'mcp-save',
      description: 'POST /mcp tools/call save_url, a different URL each request',
      expect: [200],
      ours: (n) => ({
        url: `${ours.url}/mcp`,
        init: mcpInit(capturer.key, 'save_url', { url: newUrl(1_000_000_000 + n) }),
      }),
      raw: (n) => ({
        url: `${raw.url}/mcp-save`,
        init: mcpInit(capturer.key, 'save_url', { url: newUrl(1_000_000_000 + n) }),
      }),
    },
    {
      name: 'mcp-list',
      description: `POST /mcp tools/call list_saved_items limit 50, person with ${SHAPE}`,
      expect: [200],
      ours: () => ({ url: `${ours.url}/mcp`, init: mcpInit(reader.key, 'list_saved_items', { limit: 50 }) }),
      raw: () => ({ url: `${raw.url}/mcp-list`, init: mcpInit(reader.key, 'list_saved_items', { limit: 50 }) }),
    },
  ]

  // Last: it writes to the reader's items, so it would empty their list cache under the list scenarios.
  scenarios.push({
    name: 'read-state',
    description: 'POST /v1/saved-items/:id/read and /unread in turn over the first page (an item state change)',
    expect: [200],
    ours: (n) => ({ url: `${ours.url}${stateInit(n).path}`, init: stateInit(n).init }),
    raw: (n) => ({ url: `${raw.url}/state`, init: stateInit(n).init }),
  })
  // The server's resident set, sampled through every scenario.
  let peakRss = 0
  let scenarioRss = 0
  let sampledPid = ours.process.pid
  const rssTimer = setInterval(() => {
    const rss = rssBytes(sampledPid) ?? 0
    peakRss = Math.max(peakRss, rss)
    scenarioRss = Math.max(scenarioRss, rss)
  }, 100)
  const results: ScenarioResult[] = []
  for (const scenario of scenarios) {
    const load = { concurrency: CONCURRENCY, warmupMs: WARMUP_MS, durationMs: DURATION_MS, expect: scenario.expect }
    // Baseline first, then ours, back to back, so both see the same background load.
    const rawResult = await runLoad({ ...load, request: scenario.raw })
    sampledPid = scenario.name === 'list-nocache' ? uncached.process.pid : ours.process.pid
    scenarioRss = 0
    const ourResult = await runLoad({ ...load, request: scenario.ours })
    results.push({
      name: scenario.name,
      description: scenario.description,
      ours: ourResult,
      raw: rawResult,
      ratio: ourResult.rps / rawResult.rps,
      rssPeakMiB: scenarioRss ? Math.round(scenarioRss / 1024 / 1024) : null,
    })
    log(`${scenario.name}: ${ourResult.rps.toFixed(0)} req/s vs raw ${rawResult.rps.toFixed(0)} req/s`)
  }

  // Capture latency at half the closed-loop rate, open loop (latency counted from when each was due).
  const captureRate = Math.max(1, Math.round(results.find((r) => r.name === 'capture-new')!.ours.rps / 2))
  const halfRate = await runFixedRate({
    rate: captureRate,
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
    expect: [201],
    request: (n) => ({ url: `${ours.url}/v1/captures`, init: captureInit(capturer.key, newUrl(2_000_000_000 + n)) }),
  })
  log(`capture at ${captureRate}/s (half the closed-loop rate): p99 ${halfRate.p99Ms.toFixed(2)} ms`)
  // The same open loop against the floor for a durable write: raw Bun.serve inserting each body into SQLite.
  const writing = await startServer('raw Bun.serve + SQLite insert', ['bench/raw-server.ts'], {
    BODIES_FILE: bodiesFile,
    WRITE_DB: `${bodiesFile}.db`,
  })
  const halfRateFloor = await runFixedRate({
    rate: captureRate,
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
    expect: [201],
    request: (n) => ({ url: `${writing.url}/capture`, init: captureInit(capturer.key, newUrl(3_000_000_000 + n)) }),
  })
  log(`raw Bun.serve + SQLite insert at ${captureRate}/s: p99 ${halfRateFloor.p99Ms.toFixed(2)} ms`)

  clearInterval(rssTimer)
  const inProcess = await inProcessListTimes(db, reader.userId)
  db.$client.close()

  console.log('')
  printResults(results)
  console.log('')
  for (const r of results) console.log(`  ${r.name.padEnd(12)} ${r.description}`)
  console.log(
    `  ratio = our req/s ÷ raw Bun.serve req/s (same response bytes, same run); ${CONCURRENCY} in flight, keep-alive, ${DURATION_MS / 1000} s after ${WARMUP_MS / 1000} s warm-up`,
  )
  console.log(`  cores: ${pinning}`)
  if (process.env.BENCH_SERVER_ROOT) console.log(`  server: ${SERVER} (BENCH_SERVER_ROOT)`)
  console.log(
    `  data: ${SHAPE}; server RSS peak ${peakRss ? `${(peakRss / 1024 / 1024).toFixed(0)} MiB (per scenario in the rss column)` : 'not measured (no /proc)'}`,
  )
  console.log(
    `  capture-new at half its rate, open loop (${captureRate} req/s for ${DURATION_MS / 1000} s, latency from when each was due): p50 ${halfRate.p50Ms.toFixed(2)} ms, p99 ${halfRate.p99Ms.toFixed(2)} ms, ${halfRate.errors} errors`,
  )
  console.log(
    `  the same open loop against raw Bun.serve inserting each body into SQLite (WAL, synchronous=NORMAL, SQLite's own checkpoints): p50 ${halfRateFloor.p50Ms.toFixed(2)} ms, p99 ${halfRateFloor.p99Ms.toFixed(2)} ms, ${halfRateFloor.errors} errors`,
  )
  console.log(
    `  list query in-process, no HTTP (p50 of ${inProcess.iterations} serial calls): storage layer ${inProcess.storageLayerP50Ms.toFixed(3)} ms, raw SQL ${inProcess.rawSqlP50Ms.toFixed(3)} ms`,
  )

  const failures = results.flatMap((r) => [
    ...(r.ours.errors + r.ours.warmupErrors > 0
      ? [
          `${r.name} (readlater): ${r.ours.errors} measured + ${r.ours.warmupErrors} warm-up failures; statuses ${JSON.stringify(r.ours.statuses)}; first: ${r.ours.firstError}`,
        ]
      : []),
    ...(r.raw.errors + r.raw.warmupErrors > 0
      ? [
          `${r.name} (raw): ${r.raw.errors} measured + ${r.raw.warmupErrors} warm-up failures; first: ${r.raw.firstError}`,
        ]
      : []),
  ])
  if (halfRate.errors + halfRate.warmupErrors > 0)
    failures.push(`capture at half rate: ${halfRate.errors} measured failures; first: ${halfRate.firstError}`)

  writeResults(
    'results',
    {
      date: new Date().toISOString(),
      bun: Bun.version,
      cores: cpus().length,
      pinning,
      loadavg: loadavg(),
      concurrency: CONCURRENCY,
      warmupSeconds: WARMUP_MS / 1000,
      durationSeconds: DURATION_MS / 1000,
      listItems: LIST_ITEMS,
      people: PEOPLE,
      readerItems: READER_ITEMS,
      serverRssPeakBytes: peakRss || null,
      scenarios: results,
      listQueryInProcess: inProcess,
      captureAtHalfRate: { rate: captureRate, ...halfRate },
      durableWriteFloorAtHalfRate: { rate: captureRate, ...halfRateFloor },
      failures,
      wallSeconds: (performance.now() - started) / 1000,
    },
    started,
  )
  const code = reportFailures(failures, 'FAILED REQUESTS')
  if (code === 0) console.log('  every request succeeded')
  return code
}

await runBench(main, async () => {
  await stopAll()
  rmSync(workDir, { recursive: true, force: true })
})
