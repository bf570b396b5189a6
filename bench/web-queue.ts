/**
 * `bun bench/web-queue.ts` (part of `npm run bench`): the web queue page with 50 cards beside the JSON
 * list of the same 50 items (docs/benchmarks.md#web-queue), on one server process in the same run.
 *
 *   1. a person with 1,000 items (titles, site names, https favicons, 200-character summaries, tags, a
 *      folder for some, articles for a third) and an API key; a web session by signing in through the form;
 *   2. GET / (Unread, newest, 50 cards) and GET /v1/saved-items?limit=50&sort=newest, alternated, one at a
 *      time, BENCH_WEB_REQUESTS of each: time to the response's headers (the server's time on loopback,
 *      since the page is built whole before it is sent), time to the last byte, and bytes on the wire.
 * Pinned like bench/run.ts when taskset is there.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_PASSWORD, benchEnv, personWithKey, pinCores, SERVER, startServer, stopAll } from './lib/processes.ts'
import { seededRandom } from './lib/seed.ts'
import { p50p99 } from './lib/stats.ts'
import { fmt, log, machine, printTable } from './lib/tables.ts'

const REQUESTS = Number(process.env.BENCH_WEB_REQUESTS ?? 400)
const ITEMS = 1000
const dir = mkdtempSync(join(tmpdir(), 'readlater-bench-web-'))
const databaseUrl = `file:${join(dir, 'web.db')}`
const env = benchEnv(databaseUrl)
const random = seededRandom(11)
const WORDS = ['rust', 'memory', 'design', 'notes', 'the', 'guide', 'to', 'kestrel', 'garden', 'systems', 'on']
const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')

async function seed(url: string, key: string): Promise<void> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const folder = (await (
    await fetch(`${url}/v1/folders`, { method: 'POST', headers, body: JSON.stringify({ name: 'Long reads' }) })
  ).json()) as { id: string }
  for (let i = 0; i < ITEMS; i++) {
    const reply = await fetch(`${url}/v1/captures`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `https://site${i % 40}.example.com/posts/${i}`, tags: i % 3 ? ['ai', 'tools'] : [] }),
    })
    const { savedItem } = (await reply.json()) as { savedItem: { id: string } }
    if (i % 5 === 0)
      await fetch(`${url}/v1/saved-items/${savedItem.id}/folder`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ folderId: folder.id }),
      })
  }
}

/** Enriched-looking rows, written straight to the file: the bench measures reading them, not enrichment. */
async function enrich(): Promise<void> {
  const { openDatabase } = await import('../adapters/storage/open-database.ts')
  const db = await openDatabase(databaseUrl)
  const rows = (await db.$client.execute('SELECT id FROM saved_items')).rows
  for (const [i, row] of rows.entries()) {
    await db.$client.execute({
      sql: `UPDATE saved_items SET title = ?, site_name = ?, preview_summary = ?, favicon_url = ?, enrichment_status = 'enriched' WHERE id = ?`,
      args: [
        `${words(6)} ${i}`,
        `Site ${i % 40}`,
        words(34).slice(0, 200),
        `https://site${i % 40}.example.com/favicon.ico`,
        row.id as string,
      ],
    })
    if (i % 3 === 0)
      await db.$client.execute({
        sql: `INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1200, '<p>x</p>', 'x', '2026-11-01T00:00:00.000Z')`,
        args: [row.id as string],
      })
  }
  db.$client.close()
}

/** Signs in through the form: the session cookie and the CSRF cookie a browser would hold. */
async function signIn(url: string, email: string, password: string): Promise<string> {
  const form = await fetch(`${url}/sign-in`)
  const cookies = form.headers.getSetCookie().map((c) => c.split(';')[0]!)
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!
  const signedIn = await fetch(`${url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookies.join('; '), 'content-type': 'application/x-www-form-urlencoded', origin: url },
    body: new URLSearchParams({ csrf, email, password, next: '/' }),
  })
  if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status}`)
  return [...cookies, ...signedIn.headers.getSetCookie().map((c) => c.split(';')[0]!)].join('; ')
}

interface Sample {
  headers: number
  total: number
  bytes: number
}

async function sample(url: string, headers: Record<string, string>): Promise<Sample> {
  const started = performance.now()
  const response = await fetch(url, { headers })
  const first = performance.now()
  const bytes = (await response.arrayBuffer()).byteLength
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`)
  return { headers: first - started, total: performance.now() - started, bytes }
}

const summary = (samples: Sample[]) => {
  const headers = p50p99(samples.map((s) => s.headers))
  const total = p50p99(samples.map((s) => s.total))
  return {
    headersP50: headers.p50,
    headersP99: headers.p99,
    totalP50: total.p50,
    totalP99: total.p99,
    bytes: samples[0]!.bytes,
  }
}

async function main(): Promise<void> {
  log(`readlater web queue bench: ${machine()}`)
  log(pinCores())
  const email = 'web@bench.example'
  const password = BENCH_PASSWORD
  const key = await personWithKey(env, email, [
    'saved-items:capture',
    'saved-items:read',
    'saved-items:write',
    'folders:write',
    'folders:read',
  ])
  let server = await startServer('readlater', [SERVER], env)
  await seed(server.url, key)
  await stopAll()
  await enrich()
  server = await startServer('readlater', [SERVER], env)
  const cookie = await signIn(server.url, email, password)
  const page: Sample[] = []
  const json: Sample[] = []
  // Warm both (statement preparation, the page cache) before measuring.
  for (let i = 0; i < 20; i++) {
    await sample(`${server.url}/`, { cookie })
    await sample(`${server.url}/v1/saved-items?limit=50&sort=newest`, { authorization: `Bearer ${key}` })
  }
  for (let i = 0; i < REQUESTS; i++) {
    page.push(await sample(`${server.url}/`, { cookie }))
    json.push(await sample(`${server.url}/v1/saved-items?limit=50&sort=newest`, { authorization: `Bearer ${key}` }))
  }
  // The stylesheet a first visit also fetches (a file kept for good after that).
  const html = await (await fetch(`${server.url}/`, { headers: { cookie } })).text()
  const stylesheetPath = /<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/.exec(html)?.[1] ?? null
  const stylesheetBytes = stylesheetPath
    ? (await (await fetch(new URL(stylesheetPath, server.url))).arrayBuffer()).byteLength
    : null
  await stopAll()
  const rows = { page: summary(page), json: summary(json) }
  console.log('')
  console.log(`web queue, ${machine()}`)
  printTable(
    ['50 items', 'headers p50 / p99 ms', 'last byte p50 / p99 ms', 'KiB on the wire'],
    [
      ['the queue page, GET /', rows.page],
      ['the JSON list, GET /v1/saved-items?limit=50', rows.json],
    ].map(([name, s]) => {
      const r = s as ReturnType<typeof summary>
      return [
        name as string,
        `${fmt(r.headersP50, 2)} / ${fmt(r.headersP99, 2)}`,
        `${fmt(r.totalP50, 2)} / ${fmt(r.totalP99, 2)}`,
        fmt(r.bytes / 1024, 1),
      ]
    }),
  )
  console.log(
    `  page ÷ JSON: ${(rows.page.totalP50 / rows.json.totalP50).toFixed(2)}× the time (p50), ${(rows.page.bytes / rows.json.bytes).toFixed(2)}× the bytes; one at a time, alternated, ${REQUESTS} of each after 20 to warm up`,
  )
  console.log(
    `  the stylesheet (${stylesheetPath ?? 'none found'}), fetched on a first visit only: ${stylesheetBytes === null ? '-' : fmt(stylesheetBytes / 1024, 1)} KiB`,
  )
}

await main()
