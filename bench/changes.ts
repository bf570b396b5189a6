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
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeChangesCursor } from '../core/changes/cursor.ts'
import { openDatabase } from '../adapters/storage/open-database.ts'
import { percentile } from './load.ts'
import { personWithKey, pinCores, run, SERVER, startServer, stopAll } from './processes.ts'
import { captureRate, userOf } from './capture-rate.ts'

const CHANGES = Number(process.env.BENCH_CHANGES ?? 100_000)
const CAPTURE_ROUND = 5000
const log = (line: string) => console.error(line)
const dir = mkdtempSync(join(tmpdir(), 'readlater-bench-changes-'))

async function captureCost(): Promise<{ withLog: number[]; without: number[] }> {
  const env = { LOG_LEVEL: 'silent' }
  const withLog = `file:${join(dir, 'with.db')}`
  const without = `file:${join(dir, 'without.db')}`
  for (const url of [withLog, without])
    await run([SERVER, 'user', 'create', '--email', 'c@bench.example', '--password', 'bench-password-123'], {
      ...env,
      DATABASE_URL: url,
    })
  const a = await openDatabase(withLog)
  const b = await openDatabase(without)
  for (const trigger of ['changes_item_insert', 'changes_item_update', 'changes_item_delete'])
    await b.$client.execute(`DROP TRIGGER ${trigger}`)
  const [ua, ub] = [await userOf(a, 'c@bench.example'), await userOf(b, 'c@bench.example')]
  const result = { withLog: [] as number[], without: [] as number[] }
  for (let round = 0; round < 3; round++) {
    result.withLog.push(await captureRate(a, ua, `a${round}`, CAPTURE_ROUND))
    result.without.push(await captureRate(b, ub, `b${round}`, CAPTURE_ROUND))
  }
  a.$client.close()
  b.$client.close()
  return result
}

async function main(): Promise<void> {
  log(
    `readlater changes bench: ${CHANGES} changes, bun ${Bun.version}, ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
  log(pinCores())
  const cost = await captureCost()
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!

  // The feed: a person with CHANGES changes (captures, then a third of them read again).
  const url = `file:${join(dir, 'feed.db')}`
  const env = {
    DATABASE_URL: url,
    RATE_LIMIT_MAX: '100000000',
    IP_RATE_LIMIT_MAX: '100000000',
    LOG_LEVEL: 'silent',
    ENRICHMENT: 'off',
  }
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

  const sorted = Float64Array.from(pageTimes).sort()
  console.log(
    `\ncaptures/s with the change log: ${cost.withLog.map(Math.round).join(', ')}; without: ${cost.without.map(Math.round).join(', ')}`,
  )
  console.log(`  with ÷ without (medians): ${(median(cost.withLog) / median(cost.without)).toFixed(2)}`)
  console.log(
    `feed at ${CHANGES} changes: ${pageTimes.length} pages, ${entries} entries, ${(pageTimes.length / seconds).toFixed(1)} pages/s over HTTP, p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`,
  )
  console.log(
    `  the list endpoint over the same items, 500 a page: ${(listPages / listSeconds).toFixed(1)} pages/s (${listPages} pages); feed ÷ list ${(pageTimes.length / seconds / (listPages / listSeconds)).toFixed(2)}`,
  )
  console.log(
    `  the bare reads of the same ${pages} pages: ${(pages / bareSeconds).toFixed(1)} pages/s; feed ÷ bare ${(pageTimes.length / seconds / (pages / bareSeconds)).toFixed(2)}`,
  )
}

await main()
