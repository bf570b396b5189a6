/**
 * `bun bench/offline.ts` (part of `npm run bench`): the offline web app (docs/web.md#offline), issue 32's
 * number, ratios in one run.
 *
 *   1. Keeping: a person with BENCH_OFFLINE_ITEMS (200) unread items, each a 10,000-word article (the bench's
 *      article pages, extracted by the real pipeline), signed in in Debian's Chromium (`/usr/bin/chromium`, or
 *      CHROMIUM_PATH) with the service worker on: the time the worker takes to fetch and keep every reader
 *      view (offline/manifest.json, then each page), and the bytes it keeps.
 *   2. First paint of a reader view: the same article opened BENCH_OFFLINE_LOADS (15) times each way, the
 *      browser's `first-contentful-paint`, median: online through the worker (network first), offline from
 *      its cache (`context.setOffline(true)`), and online without any worker (a context that blocks it), for
 *      reference. The ratio reported is offline / online through the worker.
 */
import { existsSync } from 'node:fs'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { articlePage } from './article-pages.ts'
import { fmt, log, machine, printTable } from './lib/tables.ts'
import { insertApiKey } from '../adapters/storage/api-keys.ts'
import { createServer } from '../adapters/http/app.ts'
import { readConfig } from '../adapters/config.ts'
import { openDatabase } from '../adapters/storage/open-database.ts'
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../core/auth/api-keys.ts'
import { uuidv7 } from '../core/ids.ts'
import { extractArticle } from '../core/reading/extract-article.ts'
import { SCOPES } from '../core/types.ts'

const ITEMS = Number(process.env.BENCH_OFFLINE_ITEMS ?? 200)
const LOADS = Number(process.env.BENCH_OFFLINE_LOADS ?? 15)
const WORDS = 10_000
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const PASSWORD = 'bench-password-123'
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const webRandom = { fill: (bytes: Uint8Array) => crypto.getRandomValues(bytes) }

if (!existsSync(CHROMIUM)) {
  console.error(`offline bench: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH); skipped`)
  process.exit(0)
}

let bytes = 80_000
let article = extractArticle(articlePage(bytes), 'https://bench.example/long-read')!
while (article.wordCount < WORDS) {
  bytes = Math.ceil((bytes * WORDS) / article.wordCount) + 2_000
  article = extractArticle(articlePage(bytes), 'https://bench.example/long-read')!
}
log(`readlater offline bench: ${machine()}`)

// The whole service on a loopback port, as a browser reaches it.
let handler: ((request: Request) => Response | Promise<Response>) | null = null
const listener = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => handler!(request) })
const url = `http://127.0.0.1:${listener.port}`
const db = await openDatabase('file::memory:')
const server = createServer({
  db,
  config: readConfig({ BASE_URL: url, APP_URL: url, RATE_LIMIT_MAX: '100000000', IP_RATE_LIMIT_MAX: '100000000' }),
  clock: { now: () => new Date() },
  random: webRandom,
  log: () => {},
})
handler = (request) => server.fetch(request, { clientIp: '127.0.0.1' })

// A person (signed up through the form) with ITEMS unread items, each with the article.
const signUpPage = await (await server.fetch(new Request(`${url}/sign-up`), { clientIp: '127.0.0.1' })).text()
const csrfCookie = /name="csrf" value="([^"]+)"/.exec(signUpPage)![1]!
const email = 'offline@bench.example'
await server.fetch(
  new Request(`${url}/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `rl_csrf=${csrfCookie}` },
    body: new URLSearchParams({ csrf: csrfCookie, email, password: PASSWORD }),
  }),
  { clientIp: '127.0.0.1' },
)
const userId = String((await db.$client.execute('SELECT id FROM users')).rows[0]!.id)
const key = generateApiKey(webRandom)
await insertApiKey(db, {
  id: uuidv7(Date.now(), webRandom),
  userId,
  keyHash: hashApiKey(key),
  prefix: apiKeyDisplayPrefix(key),
  label: 'bench',
  scopes: [...SCOPES],
  createdAt: new Date().toISOString(),
})
const ids: string[] = []
for (let i = 0; i < ITEMS; i++) {
  const response = await server.fetch(
    new Request(`${url}/v1/captures`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://bench.example/offline/${i}` }),
    }),
    { clientIp: '127.0.0.1' },
  )
  const id = ((await response.json()) as { savedItem: { id: string } }).savedItem.id
  await db.$client.execute({
    sql: `INSERT INTO item_contents (item_id, title, word_count, html, text, extracted_at) VALUES (?, ?, ?, ?, ?, ?)`,
    args: [id, `A long read ${i}`, article.wordCount, article.html, article.text, new Date().toISOString()],
  })
  ids.push(id)
}
console.log(
  `${ITEMS} unread items, each a ${article.wordCount.toLocaleString('en-US')}-word article (HTML ${article.html.length.toLocaleString('en-US')} characters)`,
)

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-dev-shm-usage',
  ],
})

async function signedIn(serviceWorkers: 'allow' | 'block'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers })
  const page = await context.newPage()
  await page.goto(`${url}/sign-in`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL(`${url}/`)
  return { context, page }
}

/**
 * The reader view's first contentful paint, in ms from the navigation's start, in a new tab of the context
 * (one tab navigated offline again and again has crashed Chromium's renderer here).
 */
async function firstPaint(context: BrowserContext, id: string): Promise<number> {
  const page = await context.newPage()
  try {
    await page.goto(`${url}/items/${id}`, { waitUntil: 'load', timeout: 15_000 })
    return await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const found = () => performance.getEntriesByName('first-contentful-paint')[0]
          if (found()) return resolve(found()!.startTime)
          new PerformanceObserver(() => found() && resolve(found()!.startTime)).observe({
            type: 'paint',
            buffered: true,
          })
        }),
    )
  } finally {
    await page.close()
  }
}

// 1. Keeping: from a signed-in page, the worker brings every reader view in.
const withWorker = await signedIn('allow')
await withWorker.page.waitForSelector('html[data-offline-ready]')
const started = performance.now()
const kept = (await withWorker.page.evaluate(() =>
  new Promise((resolve) => {
    const channel = new MessageChannel()
    channel.port1.onmessage = (event) => resolve(event.data)
    // The first sync at load already kept them; keep them all anew, as after a change to each.
    navigator.serviceWorker.controller!.postMessage({ type: 'clear' }, [channel.port2])
  }).then(
    () =>
      new Promise((resolve) => {
        const channel = new MessageChannel()
        channel.port1.onmessage = (event) => resolve(event.data)
        navigator.serviceWorker.controller!.postMessage({ type: 'sync', force: true }, [channel.port2])
      }),
  ),
)) as { kept: { kept: number; bytes: number } }
const keepMs = performance.now() - started
log(`kept ${kept.kept.kept} reader views in ${(keepMs / 1000).toFixed(2)} s`)

// 2. First paint: online through the worker, offline from its cache, online without a worker.
const target = ids[0]!
const online: number[] = []
const offline: number[] = []
for (let i = 0; i < LOADS; i++) {
  online.push(await firstPaint(withWorker.context, target))
  if (process.env.BENCH_OFFLINE_DEBUG) log(`online load ${i}: ${online.at(-1)} ms`)
}
log('online through the worker: done')
await withWorker.context.setOffline(true)
for (let i = 0; i < LOADS; i++) offline.push(await firstPaint(withWorker.context, target))
await withWorker.context.setOffline(false)
const without = await signedIn('block')
const plain: number[] = []
for (let i = 0; i < LOADS; i++) plain.push(await firstPaint(without.context, target))

printTable(
  ['what', 'value'],
  [
    ['reader views kept', `${kept.kept.kept} of ${ITEMS}`],
    ['bytes kept', `${(kept.kept.bytes / 1024 / 1024).toFixed(1)} MiB`],
    ['time to keep them all', `${fmt(keepMs / 1000, 2)} s (${fmt(keepMs / ITEMS, 1)} ms a page)`],
    [`first paint online, through the worker (median of ${LOADS})`, `${fmt(median(online), 1)} ms`],
    [`first paint offline, from its cache (median of ${LOADS})`, `${fmt(median(offline), 1)} ms`],
    [`first paint online, no worker (median of ${LOADS})`, `${fmt(median(plain), 1)} ms`],
    ['offline / online (through the worker)', `${fmt(median(offline) / median(online), 2)}x`],
    ['offline / online (no worker)', `${fmt(median(offline) / median(plain), 2)}x`],
  ],
)
await browser.close()
listener.stop(true)
process.exit(0)
