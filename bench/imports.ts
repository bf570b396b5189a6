/**
 * `bun bench/imports.ts` (part of `npm run bench`): import and export at 100,000 entries
 * (docs/import-export.md, docs/benchmarks.md#import-and-export).
 *
 *   1. generates a 100,000-entry Netscape bookmark file (folders two deep, tags) and a 100,000-row Pocket
 *      CSV (BENCH_IMPORT_ENTRIES), each with its own person on one server (ENRICHMENT=off, so only the
 *      import is measured);
 *   2. uploads each and times it to "done": entries per second, beside a bare batched insert of the same
 *      rows (250 a transaction, one prepared INSERT, no merge, no folders, no progress) into a fresh copy
 *      of the same schema through the same driver (bun:sqlite) in the same run: the ratio is what the
 *      import's merge rules, folders, enrichment queueing and durable progress cost;
 *   3. reads the server's peak RSS (VmHWM) after each import, and the p99 of `GET /v1/saved-items?limit=50` (one
 *      request at a time, from a third person) while the import runs;
 *   4. exports the 100,000 items in each format: MB/s and the server's peak RSS, beside an idle server's.
 * Each import and each export runs on a freshly started server process, so its RSS is its own.
 * Pinned like bench/run.ts when taskset is there.
 */
import { Database as BunDatabase } from 'bun:sqlite'
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchEnv, personWithKey, peakRssMiB, pinCores, SERVER, startServer, stopAll } from './lib/processes.ts'
import { seededRandom } from './lib/seed.ts'
import { p50p99 } from './lib/stats.ts'
import { fmt, log, machine, printTable } from './lib/tables.ts'

const ENTRIES = Number(process.env.BENCH_IMPORT_ENTRIES ?? 100_000)
const workDir = mkdtempSync(join(tmpdir(), 'readlater-bench-imports-'))
const dbPath = join(workDir, 'imports.db')
const env = benchEnv(`file:${dbPath}`)

const random = seededRandom(7)
const HOSTS = Array.from({ length: 2000 }, (_, i) => `site${i}.example.com`)
const WORDS = ['rust', 'memory', 'safety', 'design', 'notes', 'the', 'a', 'guide', 'to', 'on', 'kestrel', 'garden']
const TAGS = ['ai', 'tools', 'typescript', 'security', 'design', 'backend', 'frontend', 'cooking', 'travel']
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
const title = () => Array.from({ length: 3 + Math.floor(random() * 6) }, () => pick(WORDS)).join(' ')
const time = () => 1_300_000_000 + Math.floor(random() * 400_000_000)
const url = (kind: string, i: number) => `https://${pick(HOSTS)}/${kind}/${i}/${pick(WORDS)}?utm_source=x`

function netscapeFile(): string {
  const out = ['<!DOCTYPE NETSCAPE-Bookmark-file-1>', '<TITLE>Bookmarks</TITLE>', '<DL><p>']
  const perFolder = 1000
  for (let i = 0; i < ENTRIES; i++) {
    if (i % perFolder === 0) {
      if (i > 0) out.push('</DL><p></DL><p>')
      out.push(`<DT><H3>Topic ${Math.floor(i / 10_000)}</H3><DL><p><DT><H3>Shelf ${i / perFolder}</H3><DL><p>`)
    }
    out.push(`<DT><A HREF="${url('n', i)}" ADD_DATE="${time()}" TAGS="${pick(TAGS)},${pick(TAGS)}">${title()}</A>`)
  }
  out.push('</DL><p></DL><p>', '</DL><p>')
  return out.join('\n')
}

function pocketFile(): string {
  const out = ['title,url,time_added,tags,status']
  for (let i = 0; i < ENTRIES; i++)
    out.push(
      `"${title()}",${url('p', i)},${time()},${pick(TAGS)}|${pick(TAGS)},${random() < 0.6 ? 'archive' : 'unread'}`,
    )
  return out.join('\n')
}

const benchStarted = performance.now()

async function main(): Promise<number> {
  log(`readlater import bench: ${ENTRIES} entries, ${machine()}`)
  log(pinCores())
  const keys: string[] = []
  for (const who of ['netscape', 'pocket', 'reader'])
    keys.push(
      await personWithKey(env, `${who}@bench.example`, [
        'saved-items:capture',
        'saved-items:read',
        'folders:write',
        'folders:read',
      ]),
    )
  // The schema with its people and no items: the bare insert's database.
  const emptyCopy = join(workDir, 'empty.db')
  copyFileSync(dbPath, emptyCopy)
  const files = { netscape: netscapeFile(), pocket: pocketFile() }
  // A fresh server process for each phase, so each RSS figure is that phase's own.
  let server = await startServer('readlater', [SERVER], env)
  let pid = server.process.pid
  // The reader's own library: 2,000 items, so its list reads a real page.
  for (let i = 0; i < 2000; i += 1)
    await fetch(`${server.url}/v1/captures`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys[2]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://reader.example.com/${i}` }),
    }).then((r) => r.arrayBuffer())

  const rows: Record<string, unknown>[] = []
  for (const [index, format] of (['netscape', 'pocket'] as const).entries()) {
    if (index > 0) {
      await stopAll()
      server = await startServer('readlater', [SERVER], env)
      pid = server.process.pid
    }
    const body = files[format]
    const headers = { authorization: `Bearer ${keys[index]}` }
    const started = performance.now()
    const reply = await fetch(`${server.url}/v1/imports`, {
      method: 'POST',
      headers: { ...headers, 'content-type': format === 'pocket' ? 'text/csv' : 'text/html' },
      body,
    })
    if (reply.status !== 202) throw new Error(`${format}: ${reply.status} ${await reply.text()}`)
    const id = ((await reply.json()) as { import: { id: string } }).import.id
    const listTimes: number[] = []
    let job: { status: string; created: number; skipped: number; processed: number } = {
      status: 'queued',
      created: 0,
      skipped: 0,
      processed: 0,
    }
    while (job.status !== 'done' && job.status !== 'failed') {
      const t = performance.now()
      await (
        await fetch(`${server.url}/v1/saved-items?limit=50`, { headers: { authorization: `Bearer ${keys[2]}` } })
      ).arrayBuffer()
      listTimes.push(performance.now() - t)
      job = ((await (await fetch(`${server.url}/v1/imports/${id}`, { headers })).json()) as { import: typeof job })
        .import
    }
    const seconds = (performance.now() - started) / 1000
    const list = p50p99(listTimes)
    rows.push({
      format,
      status: job.status,
      created: job.created,
      skipped: job.skipped,
      seconds,
      perSecond: ENTRIES / seconds,
      fileMiB: body.length / 2 ** 20,
      // VmHWM: the fresh process's own peak, the upload's included (the first also holds the reader's captures).
      peakRssMiB: peakRssMiB(pid),
      listP50: list.p50,
      listP99: list.p99,
      listSamples: listTimes.length,
    })
  }

  // An idle server's peak, what the imports' and exports' peaks are read against.
  await stopAll()
  server = await startServer('readlater', [SERVER], env)
  await (await fetch(`${server.url}/health`)).arrayBuffer()
  await Bun.sleep(500)
  const idleMiB = peakRssMiB(server.process.pid)

  // Export, each format: MB/s and RSS.
  const exports: Record<string, unknown>[] = []
  for (const format of ['json', 'netscape', 'csv']) {
    await stopAll()
    server = await startServer('readlater', [SERVER], env)
    pid = server.process.pid
    const started = performance.now()
    const response = await fetch(`${server.url}/v1/export?format=${format}`, {
      headers: { authorization: `Bearer ${keys[1]}` },
    })
    let bytes = 0
    for await (const chunk of response.body!) bytes += chunk.byteLength
    const seconds = (performance.now() - started) / 1000
    exports.push({
      format,
      MiB: bytes / 2 ** 20,
      seconds,
      MiBps: bytes / 2 ** 20 / seconds,
      peakRssMiB: peakRssMiB(pid),
    })
  }
  await stopAll()

  // The baseline: the same rows inserted bare, in batches of 250, through the same driver.
  const bare = new BunDatabase(emptyCopy)
  bare.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL')
  const userId = (bare.query("SELECT id FROM users WHERE email = 'pocket@bench.example'").get() as { id: string }).id
  const insert =
    bare.prepare(`INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags,
    enrichment_status, is_read, last_saved_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'website', '[]', 'pending', 0, ?, ?, ?)`)
  const lines = files.pocket.split('\n').slice(1)
  const bareStart = performance.now()
  for (let i = 0; i < lines.length; i += 250)
    bare.transaction(() => {
      for (const [k, line] of lines.slice(i, i + 250).entries()) {
        const u = line.split(',').at(-4)!
        const at = new Date().toISOString()
        insert.run(`bare-${i + k}`, userId, u, u, 'example.com', 'title', at, at, at)
      }
    })()
  const bareSeconds = (performance.now() - bareStart) / 1000
  bare.close()
  const barePerSecond = ENTRIES / bareSeconds

  console.log('')
  console.log(`import and export at ${ENTRIES} entries, ${machine()}`)
  printTable(
    ['import', 'entries/s', '÷ bare insert', 'seconds', 'file MiB', 'peak RSS MiB', 'list p50 / p99 ms (samples)'],
    rows.map((row) => [
      String(row.format),
      fmt(row.perSecond as number, 0),
      fmt((row.perSecond as number) / barePerSecond, 3),
      fmt(row.seconds as number, 1),
      fmt(row.fileMiB as number, 1),
      fmt(row.peakRssMiB as number, 0),
      `${fmt(row.listP50 as number, 1)} / ${fmt(row.listP99 as number, 1)} (${row.listSamples})`,
    ]),
  )
  console.log(
    `  bare batched insert of the same rows (bun:sqlite, 250 a transaction): ${barePerSecond.toFixed(0)} rows/s; an idle server's peak RSS ${fmt(idleMiB, 0)} MiB`,
  )
  console.log('')
  printTable(
    ['export', 'MiB', 'seconds', 'MiB/s', 'peak RSS MiB'],
    exports.map((row) => [
      String(row.format),
      fmt(row.MiB as number, 1),
      fmt(row.seconds as number, 2),
      fmt(row.MiBps as number, 1),
      fmt(row.peakRssMiB as number, 0),
    ]),
  )
  const file = join(tmpdir(), `readlater-bench-imports-${new Date().toISOString().replaceAll(':', '-')}.json`)
  writeFileSync(file, JSON.stringify({ entries: ENTRIES, imports: rows, barePerSecond, idleMiB, exports }, null, 2))
  console.log(`  results JSON: ${file}   (wall time ${((performance.now() - benchStarted) / 1000).toFixed(1)} s)`)
  return rows.every((row) => row.status === 'done') ? 0 : 1
}

process.exit(await main())
