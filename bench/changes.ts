/**
 * `bun bench/changes.ts` (part of `npm run bench`): the changes feed (docs/api.md#changes,
 * docs/benchmarks.md#changes-feed), in one run:
 *
 *   1. captures with the change log against captures without it: the same upserts through the same code,
 *      one database with the log's triggers and one with them dropped, rounds alternated (in process, 64
 *      at a time, as the group commit takes them);
 *   2. the feed at 100,000 changes (BENCH_CHANGES): a server reads every page of the log from the start
 *      (500 entries each) one request at a time, beside the bare query of the same rows (the log's range
 *      and the items by id) on the same file through the same driver.
 * Pinned like bench/run.ts when taskset is there.
 */
import { Database as BunDatabase } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeChangesCursor } from '../core/changes/cursor.ts'
import { openDatabase } from '../adapters/storage/open-database.ts'
import { benchEnv, personWithKey, pinCores, SERVER, startServer, stopAll } from './lib/processes.ts'
import { alternatedCaptureRates, captureRate, captureSides, userOf } from './lib/seed.ts'
import { median, p50p99 } from './lib/stats.ts'
import { fmt, log, machine, printTable } from './lib/tables.ts'

const CHANGES = Number(process.env.BENCH_CHANGES ?? 100_000)
const CAPTURE_ROUND = 5000
const dir = mkdtempSync(join(tmpdir(), 'readlater-bench-changes-'))

async function captureCost(): Promise<{ withLog: number[]; without: number[] }> {
  const sides = await captureSides(dir, 'c@bench.example')
  for (const trigger of ['changes_item_insert', 'changes_item_update', 'changes_item_delete'])
    await sides[1].db.$client.execute(`DROP TRIGGER ${trigger}`)
  const rates = await alternatedCaptureRates(sides, 3, CAPTURE_ROUND)
  for (const side of sides) side.db.$client.close()
  return { withLog: rates.with, without: rates.without }
}

const benchStarted = performance.now()

async function main(): Promise<void> {
  log(`readlater changes bench: ${CHANGES} changes, ${machine()}`)
  log(pinCores())
  const cost = await captureCost()

  // The feed: a person with CHANGES changes (captures, then a third of them read again).
  const url = `file:${join(dir, 'feed.db')}`
  const env = benchEnv(url)
  const key = await personWithKey(env, 'f@bench.example', ['saved-items:read', 'folders:read'])
  const db = await openDatabase(url)
  const userId = await userOf(db, 'f@bench.example')
  const items = Math.round((CHANGES * 3) / 4)
  await captureRate(db, userId, 'feed', items)
  await db.$client.execute({
    sql: `UPDATE saved_items SET is_read = 1 WHERE rowid IN (SELECT rowid FROM saved_items WHERE user_id = ? LIMIT ?)`,
    args: [userId, CHANGES - items],
  })
  db.$client.close()

  const server = await startServer('readlater', [SERVER], env)
  // The server indexes the seeded items for search when it starts: measure after that, not beside it.
  const pending = new BunDatabase(join(dir, 'feed.db'), { readonly: true })
  while ((pending.query('SELECT count(*) AS n FROM search_pending').get() as { n: number }).n > 0) await Bun.sleep(200)
  pending.close()
  const pageTimes: number[] = []
  let cursor = encodeChangesCursor({ phase: 'log', seq: 0 })
  let entries = 0
  const started = performance.now()
  for (;;) {
    const t = performance.now()
    const reply = await fetch(`${server.url}/v1/changes?since=${cursor}`, {
      headers: { authorization: `Bearer ${key}` },
    })
    const body = (await reply.json()) as { changes: unknown[]; cursor: string; hasMore: boolean }
    pageTimes.push(performance.now() - t)
    entries += body.changes.length
    cursor = body.cursor
    if (!body.hasMore) break
  }
  const seconds = (performance.now() - started) / 1000
  // The list endpoint over the same items, 500 a page: the same JSON of items, from the list's own path.
  let listPages = 0
  let next: string | null = `${server.url}/v1/saved-items?limit=500&sort=oldest`
  const listStarted = performance.now()
  while (next) {
    const reply: Response = await fetch(next, { headers: { authorization: `Bearer ${key}` } })
    await reply.arrayBuffer()
    listPages++
    next =
      /<([^>]+)>;\s*rel="next"/.exec(reply.headers.get('link') ?? '')?.[1]?.replace(/^https?:\/\/[^/]+/, server.url) ??
      null
  }
  const listSeconds = (performance.now() - listStarted) / 1000
  await stopAll()

  // The bare reads of the same pages: the log's range, then the items by id, on the same file.
  const bare = new BunDatabase(join(dir, 'feed.db'), { readonly: true })
  const range = bare.query(
    'SELECT seq, kind, entity_id FROM changes WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT 501',
  )
  const byIds = bare.query('SELECT * FROM saved_items WHERE id IN (SELECT value FROM json_each(?))')
  const bareStarted = performance.now()
  let seq = 0
  let pages = 0
  for (;;) {
    const rows = range.all(userId, seq) as { seq: number; entity_id: string }[]
    const page = rows.slice(0, 500)
    byIds.all(JSON.stringify(page.map((row) => row.entity_id)))
    pages++
    if (rows.length <= 500) break
    seq = page.at(-1)!.seq
  }
  const bareSeconds = (performance.now() - bareStarted) / 1000
  bare.close()

  const pageTiming = p50p99(pageTimes)
  const feedRate = pageTimes.length / seconds
  const listRate = listPages / listSeconds
  const bareRate = pages / bareSeconds
  const ratio = median(cost.withLog) / median(cost.without)
  console.log('')
  console.log(`changes feed, ${machine()}`)
  printTable(
    ['captures/s (in process, 64 at a time)', ...cost.withLog.map((_, i) => `round ${i + 1}`), 'median'],
    [
      ['with the change log', ...cost.withLog.map((r) => fmt(r, 0)), fmt(median(cost.withLog), 0)],
      ['without it (triggers dropped)', ...cost.without.map((r) => fmt(r, 0)), fmt(median(cost.without), 0)],
    ],
  )
  console.log(`  with ÷ without (medians): ${ratio.toFixed(2)}`)
  console.log('')
  printTable(
    [`reading ${CHANGES} changes, 500 a page`, 'pages', 'pages/s', 'p50 ms', 'p99 ms', 'feed ÷ it'],
    [
      [
        'the feed, GET /v1/changes over HTTP',
        String(pageTimes.length),
        fmt(feedRate, 1),
        fmt(pageTiming.p50, 1),
        fmt(pageTiming.p99, 1),
        '1.00',
      ],
      [
        'the list, GET /v1/saved-items?limit=500&sort=oldest',
        String(listPages),
        fmt(listRate, 1),
        '-',
        '-',
        fmt(feedRate / listRate, 2),
      ],
      [
        'the bare reads of the same pages (bun:sqlite)',
        String(pages),
        fmt(bareRate, 1),
        '-',
        '-',
        fmt(feedRate / bareRate, 2),
      ],
    ],
  )
  console.log(
    `  ${entries} entries; one request at a time (a client draining the feed); wall time ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`,
  )
}

await main()
