/**
 * `npm run bench`: throughput and latency of the hot paths on loopback, each beside two baselines measured in
 * the same run (docs/benchmarks.md#method): raw Bun.serve sending the same bytes (bench/raw-server.ts), and a
 * bare Bun.serve doing the inherent work of a list or a capture on the same database file
 * (bench/inherent-server.ts). The ratios are what to compare across machines; raw numbers are noisy.
 *
 *   capture-new       POST /v1/captures, a different URL each request (insert), into the reader's account
 *   recapture         POST /v1/captures of the same 8 URLs again (upsert of an existing row)
 *   list              GET /v1/saved-items?limit=50 for the reader (10,000 items by default), page cache on
 *   list-nocache      the same against a second server with LIST_CACHE_MB=0
 *   inherent-sized    not ours: the inherent-work list in a process that also holds an idle service, against
 *                     the bare inherent-work server (the cost of the process size alone)
 *   mixed             one capture of a new URL in ten requests, else the list (cache on)
 *   mixed-nocache     the same mix with LIST_CACHE_MB=0
 *   folders           GET /v1/folders
 *   mcp-save          POST /mcp tools/call save_url, a different URL each request (the MCP twin of capture-new)
 *   mcp-list          POST /mcp tools/call list_saved_items limit 50 (the twin of list), cache on and off
 *   read-state        POST /v1/saved-items/:id/read and /unread in turn
 * then capture-new again, open loop, at half the slower of ours and the inherent-work server's closed-loop
 * rate (p50/p99 from when each was due), against both.
 *
 * The load comes from wrk (Debian's `wrk`) when it is installed, pinned to its own core, and from the
 * JavaScript generator of bench/lib/load.ts otherwise (or with BENCH_NO_WRK=1). Our servers (`bun server.ts`)
 * and the baselines run as separate processes on the other core. Knobs: BENCH_CONCURRENCY (32 connections),
 * BENCH_DURATION_S (5), BENCH_WARMUP_S (1), BENCH_ROUNDS (1; 5 for the published spread), BENCH_LIST_ITEMS
 * (10000: items in the database), BENCH_PEOPLE (1: how many people share them; the reader holds one share),
 * BENCH_SERVER_ROOT (another checkout whose server.ts to measure, for before/after tables). Reports the
 * server's peak RSS and each goal's ratio per round. Exits 1 if any measured request failed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
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
import { runFixedRate, type LoadRequest, type LoadResult } from './lib/load.ts'
import { drive as driveLoad, generatorName, rawMix, startRawServer } from './lib/drive.ts'
import type { WrkRequest } from './lib/wrk.ts'
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
// BENCH_ROUNDS (1): every scenario this many times in turn, for the spread (docs/benchmarks.md#method).
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 1))

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

/** A scenario: requests by weight (wrk's mix), against our server and against each baseline. */
interface Scenario {
  name: string
  description: string
  /** Which of our servers answers it. */
  server: Server
  mix: [WrkRequest, number][]
  /** The same mix against raw Bun.serve: each kind's path on it (it answers that kind's recorded reply). */
  rawPaths: string[]
  /** Also against the inherent-work server (bench/inherent-server.ts): a list or a capture, same paths. */
  inherent: boolean
  /** Another scenario of this run whose rate this one is read against (MCP's list against REST's). */
  twin?: string
}

interface ScenarioResult {
  name: string
  description: string
  ours: LoadResult
  raw: LoadResult
  inherent: LoadResult | null
  /** ours req/s ÷ raw req/s */
  ratio: number
  /** ours req/s ÷ inherent-work req/s */
  inherentRatio: number | null
  /** ours req/s ÷ the twin scenario's req/s in the same round */
  twinRatio: number | null
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

/** min–max of a list, for the spread over rounds. */
const spread = (values: number[], digits: number): string =>
  values.length === 0
    ? '-'
    : values.length === 1
      ? fmt(values[0]!, digits)
      : `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}`

function printResults(results: ScenarioResult[]): void {
  printTable(
    [
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'raw req/s',
      '÷ raw',
      'inherent req/s',
      'inh. p99',
      '÷ inherent',
      'rss MiB',
      'errors',
    ],
    results.map((r) => [
      r.name,
      fmt(r.ours.rps, 0),
      fmt(r.ours.p50Ms, 2),
      fmt(r.ours.p99Ms, 2),
      fmt(r.raw.rps, 0),
      fmt(r.ratio, 3),
      r.inherent ? fmt(r.inherent.rps, 0) : '-',
      r.inherent ? fmt(r.inherent.p99Ms, 2) : '-',
      r.inherentRatio === null
        ? r.twinRatio === null
          ? '-'
          : `${fmt(r.twinRatio, 3)} of twin`
        : fmt(r.inherentRatio, 3),
      r.rssPeakMiB === null ? '-' : String(r.rssPeakMiB),
      r.ours.errors + r.raw.errors + (r.inherent?.errors ?? 0) > 0
        ? `${r.ours.errors + r.raw.errors + (r.inherent?.errors ?? 0)} FAILED`
        : '0',
    ]),
  )
}

/** The goals of docs/benchmarks.md#goals, each a ratio of one round, and how many rounds met it. */
const GOALS: { what: string; bar: number; of: (round: ScenarioResult[]) => number | null }[] = [
  { what: 'uncached list ÷ inherent-work list', bar: 0.8, of: (r) => pick(r, 'list-nocache')?.inherentRatio ?? null },
  {
    what: 'mixed 1:10 uncached ÷ inherent-work mix',
    bar: 0.7,
    of: (r) => pick(r, 'mixed-nocache')?.inherentRatio ?? null,
  },
  { what: 'cached list ÷ raw Bun.serve', bar: 0.25, of: (r) => pick(r, 'list')?.ratio ?? null },
  { what: 'capture ÷ inherent-work capture', bar: 0.8, of: (r) => pick(r, 'capture-new')?.inherentRatio ?? null },
  {
    what: 'MCP list_saved_items uncached ÷ REST list uncached',
    bar: 0.6,
    of: (r) => pick(r, 'mcp-list-nocache')?.twinRatio ?? null,
  },
]
const pick = (round: ScenarioResult[], name: string) => round.find((r) => r.name === name)

async function main(): Promise<number> {
  const started = performance.now()
  const generator = generatorName()
  log(
    `readlater bench: ${CONCURRENCY} in flight, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s per run, ${ROUNDS} round(s), load by ${generator}, ${machine()}`,
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
  // The bench never searches. Left queued, the seeded items would be indexed by both servers in the
  // background while they are measured, and at 1,000,000 items that indexing held the write lock long
  // enough for the inherent-work server's capture to give up. The WAL the seeding wrote is folded into the
  // file, so every server starts on the same checkpointed file.
  await db.$client.execute('DELETE FROM search_pending')
  await db.$client.execute('PRAGMA wal_checkpoint(TRUNCATE)')
  log(
    `seeded ${READER_ITEMS * PEOPLE} items (${PEOPLE} ${PEOPLE === 1 ? 'person' : 'people'} of ${READER_ITEMS}) in ${((performance.now() - seedStart) / 1000).toFixed(2)} s`,
  )

  const ours = await startServer('readlater', [SERVER], serverEnv)
  // The same server without its list page cache: every list read goes to the database.
  const uncached = await startServer('readlater, no list cache', [SERVER], { ...serverEnv, LIST_CACHE_MB: '0' })
  // The inherent work of a list and of a capture, on the same file (bench/inherent-server.ts).
  const inherent = await startServer('inherent-work Bun.serve', ['bench/inherent-server.ts'], {
    DATABASE_FILE: databaseUrl.slice('file:'.length),
  })
  // The same inherent work in a process holding an idle service: the cost of the process's size alone.
  const inherentSized = await startServer('inherent-work Bun.serve, service loaded', ['bench/inherent-server.ts'], {
    DATABASE_FILE: databaseUrl.slice('file:'.length),
    LOAD_SERVICE: '1',
  })
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
  const captureHeaders = { authorization: `Bearer ${capturer.key}`, 'content-type': 'application/json' }
  const captureBody = (url: string) => JSON.stringify({ url, tags: ['backend'], sourceName: 'bench' })
  const newUrl = (n: string | number) => `https://news.example.com/${runTag}/story-${n}?utm_source=bench&id=${n}`
  const recaptureUrl = (n: number) => `https://blog.example.org/${runTag}/post-${n % RECAPTURE_URLS}`
  const listHeaders = { authorization: `Bearer ${reader.key}` }
  // A stateless MCP client sends each tools/call as one POST with the protocol version header.
  const mcpHeaders = (key: string) => ({
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  })
  const mcpBody = (name: string, args: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })
  const post = (url: string, headers: Record<string, string>, body: string): LoadRequest => ({
    url,
    init: { method: 'POST', headers, body },
  })

  // Probes: each scenario answers what it should, and its reply becomes the baseline's body.
  const captureSample = await probe(
    post(`${ours.url}/v1/captures`, captureHeaders, captureBody(newUrl(-1))),
    201,
    (b) => (b.captureResult === 'created' ? null : `captureResult ${b.captureResult}`),
  )
  let recaptureSample = { status: 0, body: '' }
  for (let i = 0; i < RECAPTURE_URLS; i++) {
    await probe(post(`${ours.url}/v1/captures`, captureHeaders, captureBody(recaptureUrl(i))), 201, (b) =>
      b.captureResult === 'created' ? null : `captureResult ${b.captureResult}`,
    )
    recaptureSample = await probe(
      post(`${ours.url}/v1/captures`, captureHeaders, captureBody(recaptureUrl(i))),
      200,
      (b) => (b.captureResult === 'updated' ? null : `captureResult ${b.captureResult}`),
    )
  }
  const listProbe = (origin: string) =>
    probe({ url: `${origin}/v1/saved-items?limit=50`, init: { headers: listHeaders } }, 200, (b, r) =>
      b.savedItems?.length !== 50
        ? `${b.savedItems?.length} items, expected 50`
        : r.headers.get('link')?.includes('rel="next"')
          ? null
          : 'no Link rel="next" header',
    )
  const listSample = await listProbe(ours.url)
  // The inherent-work server answers the same page: the same items, the same bytes but for the Link's origin.
  const inherentList = await listProbe(inherent.url)
  if (JSON.stringify(JSON.parse(inherentList.body)) !== JSON.stringify(JSON.parse(listSample.body)))
    throw new Error('the inherent-work list does not answer the same page as the service')
  await probe(post(`${inherent.url}/v1/captures`, captureHeaders, captureBody(newUrl(-3))), 201, (b) =>
    b.captureResult === 'created' ? null : `inherent capture: ${b.captureResult}`,
  )

  const pageIds = (JSON.parse(listSample.body) as { savedItems: { id: string }[] }).savedItems.map((item) => item.id)
  const statePath = (n: number) =>
    `/v1/saved-items/${pageIds[n % pageIds.length]}/${Math.floor(n / pageIds.length) % 2 === 0 ? 'read' : 'unread'}`
  const stateSample = await probe(
    { url: `${ours.url}${statePath(0)}`, init: { method: 'POST', headers: listHeaders } },
    200,
    (b) => (b.isRead === true ? null : `isRead ${b.isRead}`),
  )
  const foldersSample = await probe({ url: `${ours.url}/v1/folders`, init: { headers: listHeaders } }, 200, (b) =>
    b.folders?.length === folderNames.length ? null : `${b.folders?.length} folders`,
  )
  const mcpSaveSample = await probe(
    post(`${ours.url}/mcp`, mcpHeaders(capturer.key), mcpBody('save_url', { url: newUrl(-2) })),
    200,
    (b) =>
      b.result?.structuredContent?.captureResult === 'created'
        ? null
        : `not a created item: ${JSON.stringify(b).slice(0, 200)}`,
  )
  const mcpListSample = await probe(
    post(`${ours.url}/mcp`, mcpHeaders(reader.key), mcpBody('list_saved_items', { limit: 50 })),
    200,
    (b) =>
      b.result?.structuredContent?.savedItems?.length === 50 && b.result.structuredContent.nextCursor
        ? null
        : `not a page of 50: ${JSON.stringify(b).slice(0, 200)}`,
  )

  const raw = await startRawServer(workDir, {
    '/capture': captureSample,
    '/recapture': recaptureSample,
    '/list': listSample,
    '/state': stateSample,
    '/folders': foldersSample,
    '/mcp-save': mcpSaveSample,
    '/mcp-list': mcpListSample,
  })
  log(
    `servers up: readlater ${ours.url} (pid ${ours.process.pid}), raw ${raw.url} (pid ${raw.process.pid}), inherent ${inherent.url}; response bytes capture ${captureSample.body.length}, recapture ${recaptureSample.body.length}, list ${listSample.body.length}`,
  )

  // {n} in a path or body is a counter unique to the request (wrk's Lua, or the fallback's).
  const capture: WrkRequest = {
    method: 'POST',
    path: '/v1/captures',
    headers: captureHeaders,
    body: captureBody(newUrl('{n}')),
    expect: 201,
  }
  const recapture = (i: number): WrkRequest => ({ ...capture, body: captureBody(recaptureUrl(i)), expect: 200 })
  const list: WrkRequest = { method: 'GET', path: '/v1/saved-items?limit=50', headers: listHeaders, expect: 200 }
  const mcpList: WrkRequest = {
    method: 'POST',
    path: '/mcp',
    headers: mcpHeaders(reader.key),
    body: mcpBody('list_saved_items', { limit: 50 }),
    expect: 200,
  }
  const scenarios: Scenario[] = [
    {
      name: 'capture-new',
      description: 'POST /v1/captures, a different URL each request (201 created)',
      server: ours,
      mix: [[capture, 1]],
      rawPaths: ['/capture'],
      inherent: true,
    },
    {
      name: 'recapture',
      description: `POST /v1/captures of the same ${RECAPTURE_URLS} URLs again (200 updated)`,
      server: ours,
      mix: Array.from({ length: RECAPTURE_URLS }, (_, i) => [recapture(i), 1] as [WrkRequest, number]),
      rawPaths: Array.from({ length: RECAPTURE_URLS }, () => '/recapture'),
      inherent: true,
    },
    {
      name: 'list',
      description: `GET /v1/saved-items?limit=50, person with ${SHAPE}, page cache on`,
      server: ours,
      mix: [[list, 1]],
      rawPaths: ['/list'],
      inherent: true,
    },
    {
      name: 'list-nocache',
      description: 'the same list with LIST_CACHE_MB=0: every page read from the database',
      server: uncached,
      mix: [[list, 1]],
      rawPaths: ['/list'],
      inherent: true,
    },
    {
      name: 'inherent-sized',
      description:
        'not ours: the inherent-work list in a process that also holds an idle service (LOAD_SERVICE=1); ÷ inherent is the cost of the process size',
      server: inherentSized,
      mix: [[list, 1]],
      rawPaths: ['/list'],
      inherent: true,
    },
    {
      name: 'mixed',
      description: 'one capture of a new URL in ten requests, else the list, page cache on',
      server: ours,
      mix: [
        [capture, 1],
        [list, 9],
      ],
      rawPaths: ['/capture', '/list'],
      inherent: true,
    },
    {
      name: 'mixed-nocache',
      description: 'the same mix with LIST_CACHE_MB=0',
      server: uncached,
      mix: [
        [capture, 1],
        [list, 9],
      ],
      rawPaths: ['/capture', '/list'],
      inherent: true,
    },
    {
      name: 'folders',
      description: `GET /v1/folders, ${folderNames.length} folders`,
      server: ours,
      mix: [[{ method: 'GET', path: '/v1/folders', headers: listHeaders, expect: 200 }, 1]],
      rawPaths: ['/folders'],
      inherent: false,
    },
    {
      name: 'mcp-save',
      description: 'POST /mcp tools/call save_url, a different URL each request',
      server: ours,
      mix: [
        [
          {
            method: 'POST',
            path: '/mcp',
            headers: mcpHeaders(capturer.key),
            body: mcpBody('save_url', { url: newUrl('m{n}') }),
            expect: 200,
          },
          1,
        ],
      ],
      rawPaths: ['/mcp-save'],
      inherent: false,
      twin: 'capture-new',
    },
    {
      name: 'mcp-list',
      description: `POST /mcp tools/call list_saved_items limit 50, person with ${SHAPE}, page cache on`,
      server: ours,
      mix: [[mcpList, 1]],
      rawPaths: ['/mcp-list'],
      inherent: false,
      twin: 'list',
    },
    {
      name: 'mcp-list-nocache',
      description: 'the same MCP list with LIST_CACHE_MB=0',
      server: uncached,
      mix: [[mcpList, 1]],
      rawPaths: ['/mcp-list'],
      inherent: false,
      twin: 'list-nocache',
    },
    // Last: it writes to the reader's items, so it would empty their list cache under the list scenarios.
    {
      name: 'read-state',
      description: 'POST /v1/saved-items/:id/read and /unread in turn over the first page (an item state change)',
      server: ours,
      mix: Array.from(
        { length: pageIds.length * 2 },
        (_, n) =>
          [{ method: 'POST', path: statePath(n), headers: listHeaders, expect: 200 }, 1] as [WrkRequest, number],
      ),
      rawPaths: Array.from({ length: pageIds.length * 2 }, () => '/state'),
      inherent: false,
    },
  ]

  let round = 0
  /** Drives one mix against one origin (bench/lib/drive.ts: wrk when installed, else the JavaScript generator). */
  const drive = (origin: string, mix: [WrkRequest, number][], tag: string): Promise<LoadResult> =>
    driveLoad(origin, mix, {
      connections: CONCURRENCY,
      durationS: DURATION_MS / 1000,
      warmupS: WARMUP_MS / 1000,
      seed: `${runTag}r${round}${tag}`,
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
  const rounds: ScenarioResult[][] = []
  for (round = 0; round < ROUNDS; round++) {
    const results: ScenarioResult[] = []
    for (const scenario of scenarios) {
      // Baselines first, then ours, back to back, so all see the same background load.
      // The raw server answers each path with the status it recorded, so the expectations carry over.
      const rawResult = await drive(raw.url, rawMix(scenario.mix, scenario.rawPaths), `${scenario.name}-raw`)
      const inherentResult = scenario.inherent
        ? await drive(inherent.url, scenario.mix, `${scenario.name}-inherent`)
        : null
      sampledPid = scenario.server.process.pid
      scenarioRss = 0
      const ourResult = await drive(scenario.server.url, scenario.mix, scenario.name)
      const twin = scenario.twin ? results.find((r) => r.name === scenario.twin) : undefined
      results.push({
        name: scenario.name,
        description: scenario.description,
        ours: ourResult,
        raw: rawResult,
        inherent: inherentResult,
        ratio: ourResult.rps / rawResult.rps,
        inherentRatio: inherentResult ? ourResult.rps / inherentResult.rps : null,
        twinRatio: twin ? ourResult.rps / twin.ours.rps : null,
        rssPeakMiB: scenarioRss ? Math.round(scenarioRss / 1024 / 1024) : null,
      })
      log(
        `round ${round + 1}/${ROUNDS} ${scenario.name}: ${ourResult.rps.toFixed(0)} req/s vs raw ${rawResult.rps.toFixed(0)}${inherentResult ? ` vs inherent ${inherentResult.rps.toFixed(0)}` : ''} req/s`,
      )
    }
    rounds.push(results)
  }
  const results = rounds.at(-1)!

  // Capture latency at half the closed-loop rate, open loop (latency counted from when each was due), against
  // ours and against the inherent-work server at the same rate.
  // At half the slower server's closed-loop rate, so both can carry it: a server past its own capacity
  // queues, and its p99 then measures the queue, not the write.
  const captures = results.find((r) => r.name === 'capture-new')!
  const captureRate = Math.max(1, Math.round(Math.min(captures.ours.rps, captures.inherent?.rps ?? Infinity) / 2))
  const openLoop = (origin: string, offset: number) =>
    runFixedRate({
      rate: captureRate,
      warmupMs: WARMUP_MS,
      durationMs: DURATION_MS,
      expect: [201],
      request: (n) => post(`${origin}/v1/captures`, captureHeaders, captureBody(newUrl(offset + n))),
    })
  const halfRateFloor = await openLoop(inherent.url, 3_000_000_000)
  log(`inherent-work capture at ${captureRate}/s: p99 ${halfRateFloor.p99Ms.toFixed(2)} ms`)
  const halfRate = await openLoop(ours.url, 2_000_000_000)
  log(`capture at ${captureRate}/s: p99 ${halfRate.p99Ms.toFixed(2)} ms`)

  clearInterval(rssTimer)
  const inProcess = await inProcessListTimes(db, reader.userId)
  db.$client.close()

  for (const [i, round] of rounds.entries()) {
    console.log('')
    if (ROUNDS > 1) console.log(`round ${i + 1} of ${ROUNDS}`)
    printResults(round)
  }
  console.log('')
  for (const r of results) console.log(`  ${r.name.padEnd(16)} ${r.description}`)
  console.log(
    `  ÷ raw = our req/s ÷ raw Bun.serve sending the same bytes; ÷ inherent = our req/s ÷ a bare Bun.serve doing the inherent work (bench/inherent-server.ts); "of twin" = MCP ÷ its REST twin; same round. ${CONCURRENCY} connections, keep-alive, ${DURATION_MS / 1000} s after ${WARMUP_MS / 1000} s warm-up, load by ${generator}`,
  )
  if (ROUNDS > 1) {
    console.log('')
    console.log(`spread over ${ROUNDS} rounds (min–max)`)
    printTable(
      ['scenario', 'req/s', 'p99 ms', '÷ raw', '÷ inherent or twin'],
      scenarios.map((scenario) => {
        const of = rounds.map((round) => pick(round, scenario.name)!)
        return [
          scenario.name,
          spread(
            of.map((r) => r.ours.rps),
            0,
          ),
          spread(
            of.map((r) => r.ours.p99Ms),
            2,
          ),
          spread(
            of.map((r) => r.ratio),
            3,
          ),
          spread(
            of.flatMap((r) => r.inherentRatio ?? r.twinRatio ?? []),
            3,
          ),
        ]
      }),
    )
  }
  console.log('')
  console.log('goals (docs/benchmarks.md#goals), each round:')
  for (const goal of GOALS) {
    const values = rounds.map(goal.of).filter((v): v is number => v !== null)
    const met = values.filter((v) => v >= goal.bar).length
    console.log(
      `  ${goal.what} ≥ ${goal.bar}: ${values.map((v) => fmt(v, 3)).join(', ')} (met in ${met} of ${values.length})`,
    )
  }
  // Not a goal: the uncached list against the same inherent work in a process of the service's size.
  const sizedRatios = rounds.map((round) => {
    const ours = pick(round, 'list-nocache')
    const sized = pick(round, 'inherent-sized')
    return ours && sized ? ours.ours.rps / sized.ours.rps : null
  })
  const processSize = rounds.map((round) => pick(round, 'inherent-sized')?.inherentRatio ?? null)
  if (sizedRatios.every((v) => v !== null))
    console.log(
      `  (not a goal) uncached list ÷ inherent-work list in a process of the service's size: ${sizedRatios.map((v) => fmt(v!, 3)).join(', ')}; that process ÷ the bare one: ${processSize.map((v) => (v === null ? '-' : fmt(v, 3))).join(', ')}`,
    )
  console.log(
    `  capture p99 at ${captureRate} req/s (half the slower server's closed-loop rate, open loop) ≤ 2× the inherent-work server's at the same rate: ${halfRate.p99Ms.toFixed(2)} ms vs ${halfRateFloor.p99Ms.toFixed(2)} ms (${fmt(halfRate.p99Ms / halfRateFloor.p99Ms, 2)}×)`,
  )
  console.log(`  cores: ${pinning}`)
  if (process.env.BENCH_SERVER_ROOT) console.log(`  server: ${SERVER} (BENCH_SERVER_ROOT)`)
  console.log(
    `  data: ${SHAPE}; server RSS peak ${peakRss ? `${(peakRss / 1024 / 1024).toFixed(0)} MiB (per scenario in the rss column)` : 'not measured (no /proc)'}`,
  )
  console.log(
    `  capture-new open loop at half the slower server's rate (${captureRate} req/s for ${DURATION_MS / 1000} s, latency from when each was due): p50 ${halfRate.p50Ms.toFixed(2)} ms, p99 ${halfRate.p99Ms.toFixed(2)} ms, ${halfRate.errors} errors; inherent-work server p50 ${halfRateFloor.p50Ms.toFixed(2)} ms, p99 ${halfRateFloor.p99Ms.toFixed(2)} ms`,
  )
  console.log(
    `  list query in-process, no HTTP (p50 of ${inProcess.iterations} serial calls): storage layer ${inProcess.storageLayerP50Ms.toFixed(3)} ms, raw SQL ${inProcess.rawSqlP50Ms.toFixed(3)} ms`,
  )

  const failures = rounds
    .flat()
    .flatMap((r) => [
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
      ...(r.inherent && r.inherent.errors + r.inherent.warmupErrors > 0
        ? [`${r.name} (inherent): ${r.inherent.errors} measured failures; first: ${r.inherent.firstError}`]
        : []),
    ])
  if (halfRate.errors + halfRate.warmupErrors > 0)
    failures.push(`capture at half rate: ${halfRate.errors} measured failures; first: ${halfRate.firstError}`)
  if (halfRateFloor.errors + halfRateFloor.warmupErrors > 0)
    failures.push(`inherent capture at half rate: ${halfRateFloor.errors} failures; first: ${halfRateFloor.firstError}`)

  writeResults(
    'results',
    {
      date: new Date().toISOString(),
      bun: Bun.version,
      cores: cpus().length,
      pinning,
      generator,
      loadavg: loadavg(),
      concurrency: CONCURRENCY,
      warmupSeconds: WARMUP_MS / 1000,
      durationSeconds: DURATION_MS / 1000,
      listItems: LIST_ITEMS,
      people: PEOPLE,
      readerItems: READER_ITEMS,
      serverRssPeakBytes: peakRss || null,
      rounds,
      listQueryInProcess: inProcess,
      captureAtHalfRate: { rate: captureRate, ...halfRate },
      inherentCaptureAtHalfRate: { rate: captureRate, ...halfRateFloor },
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
