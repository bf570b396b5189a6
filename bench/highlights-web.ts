/**
 * `bun bench/highlights-web.ts` (part of `npm run bench`): the reader view with highlights
 * (docs/highlights.md#web), two bars of issue 31, ratios in one run.
 *
 *   1. Server time: GET /items/{id} of a 10,000-word article (the bench's article pages, extracted by the
 *      real pipeline) with 200 highlights (3 to 40 words each, a third with a note, the five colours) beside
 *      the same article without any, alternated, in process through the whole request pipeline with a web
 *      session, BENCH_HIGHLIGHT_PAGES (300) of each after a warm-up: median time to the whole body. The bar:
 *      ≤ 1.5× the page without highlights.
 *   2. Browser work: the same pages in Debian's Chromium (`/usr/bin/chromium`, or CHROMIUM_PATH) served on a
 *      loopback port. The reader's script measures its own work on load (`performance.measure('reader.js')`:
 *      reading the saved position, wiring the marks and the controls), median of BENCH_HIGHLIGHT_LOADS (15)
 *      loads. The bar: ≤ 50 ms with 200 marks. Then, for the record, highlighting a selection: from the click
 *      on "Highlight" to its mark in the page (the offsets read from the DOM, the POST, the page read again
 *      and the changed paragraphs replaced), median of 5.
 */
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { articlePage } from './article-pages.ts'
import { log, machine } from './lib/tables.ts'
import { insertApiKey } from '../adapters/storage/api-keys.ts'
import { createServer } from '../adapters/http/app.ts'
import { readConfig } from '../adapters/config.ts'
import { openDatabase } from '../adapters/storage/open-database.ts'
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../core/auth/api-keys.ts'
import { HIGHLIGHT_COLORS } from '../core/highlights/highlight.ts'
import { uuidv7 } from '../core/ids.ts'
import { extractArticle } from '../core/reading/extract-article.ts'
import { SCOPES } from '../core/types.ts'

const PAGES = Number(process.env.BENCH_HIGHLIGHT_PAGES ?? 300)
const LOADS = Number(process.env.BENCH_HIGHLIGHT_LOADS ?? 15)
const HIGHLIGHTS = 200
const WORDS = 10_000
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const PASSWORD = 'bench-password-123'

let seed = 31
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const webRandom = { fill: (bytes: Uint8Array) => crypto.getRandomValues(bytes) }

// A 10,000-word article through the real extraction: links, emphasis, code, lists, quotes, figures.
let bytes = 80_000
let article = extractArticle(articlePage(bytes), 'https://bench.example/long-read')!
while (article.wordCount < WORDS) {
  bytes = Math.ceil((bytes * WORDS) / article.wordCount) + 2_000
  article = extractArticle(articlePage(bytes), 'https://bench.example/long-read')!
}
log(`readlater reader-view highlights bench: ${machine()}`)
console.log(
  `article: ${article.wordCount.toLocaleString('en-US')} words, text ${article.text.length.toLocaleString('en-US')} characters, HTML ${article.html.length.toLocaleString('en-US')} characters`,
)

// The whole service on a loopback port (the browser's half needs one; the server half calls it in process).
let handler: ((request: Request) => Response | Promise<Response>) | null = null
const listener = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => handler!(request) })
const url = `http://127.0.0.1:${listener.port}`
const db = await openDatabase('file::memory:')
const server = createServer({
  db,
  config: readConfig({
    BASE_URL: url,
    APP_URL: url,
    RATE_LIMIT_MAX: '100000000',
    IP_RATE_LIMIT_MAX: '100000000',
  }),
  clock: { now: () => new Date() },
  random: webRandom,
  log: () => {},
})
handler = (request) => server.fetch(request, { clientIp: '127.0.0.1' })

// A person signed up and in through the forms: the session a browser holds.
const cookies = new Map<string, string>()
async function send(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '))
  const response = await server.fetch(new Request(url + path, { ...init, headers, redirect: 'manual' }), {
    clientIp: '127.0.0.1',
  })
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';')
    const eq = pair!.indexOf('=')
    cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1))
  }
  return response
}
async function submit(path: string, fields: Record<string, string>): Promise<Response> {
  const page = await (await send(path)).text()
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!
  return send(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
    body: new URLSearchParams({ csrf, ...fields }),
  })
}
const email = 'reader@bench.example'
await submit('/sign-up', { email, password: PASSWORD })
if ((await submit('/sign-in', { email, password: PASSWORD })).status !== 303) throw new Error('sign-in failed')
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
const api = async (method: string, path: string, body?: unknown) => {
  const response = await server.fetch(
    new Request(url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
    { clientIp: '127.0.0.1' },
  )
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return response.status === 204 ? null : response.json()
}

// Two items with the same article: one without highlights, one with 200.
async function itemWithArticle(path: string): Promise<string> {
  const { savedItem } = await api('POST', '/v1/captures', { url: `https://bench.example/${path}` })
  await db.$client.execute({
    sql: `INSERT INTO item_contents (item_id, title, word_count, html, text, extracted_at) VALUES (?, 'A long read', ?, ?, ?, ?)`,
    args: [savedItem.id, article.wordCount, article.html, article.text, new Date().toISOString()],
  })
  return savedItem.id
}
const plain = await itemWithArticle('plain')
const marked = await itemWithArticle('marked')
const words = [...article.text.matchAll(/\S+/g)]
for (let i = 0; i < HIGHLIGHTS; i++) {
  const from = Math.floor(random() * (words.length - 45))
  const to = from + 2 + Math.floor(random() * 38)
  const start = words[from]!.index
  const end = words[to]!.index + words[to]![0].length
  await api('POST', `/v1/saved-items/${marked}/highlights`, {
    quote: { exact: article.text.slice(start, end) },
    position: { start, end },
    color: HIGHLIGHT_COLORS[i % HIGHLIGHT_COLORS.length],
    ...(i % 3 === 0 ? { note: `Note ${i}: why this passage matters, in a sentence or two.` } : {}),
  })
}

// 1. Server time, alternated.
async function pageTime(id: string): Promise<{ ms: number; size: number }> {
  const started = performance.now()
  const response = await send(`/items/${id}`)
  const text = await response.text()
  const ms = performance.now() - started
  if (response.status !== 200) throw new Error(`/items/${id}: ${response.status}`)
  return { ms, size: text.length }
}
for (let i = 0; i < 30; i++) {
  await pageTime(plain)
  await pageTime(marked)
}
const without: number[] = []
const withMarks: number[] = []
let sizes = { without: 0, with: 0 }
for (let i = 0; i < PAGES; i++) {
  const a = await pageTime(plain)
  const b = await pageTime(marked)
  without.push(a.ms)
  withMarks.push(b.ms)
  sizes = { without: a.size, with: b.size }
}
const marks = ((await (await send(`/items/${marked}`)).text()).match(/<mark class="hl /g) ?? []).length
const ratio = median(withMarks) / median(without)
console.log(
  `GET /items/{id}, ${HIGHLIGHTS} highlights (${marks} marks): ${median(withMarks).toFixed(2)} ms, ${(sizes.with / 1024).toFixed(0)} KiB; without highlights ${median(without).toFixed(2)} ms, ${(sizes.without / 1024).toFixed(0)} KiB; ${ratio.toFixed(2)}× (bar 1.5×; medians of ${PAGES}, alternated)`,
)
// The first view after a change (a colour changed between views, untimed): the marks placed again.
const { highlights: all } = await api('GET', `/v1/saved-items/${marked}/highlights`)
const first: number[] = []
for (let i = 0; i < 40; i++) {
  await api('PATCH', `/v1/highlights/${all[i]!.id}`, { color: all[i]!.color === 'pink' ? 'blue' : 'pink' })
  const { ms } = await pageTime(marked)
  if (i >= 10) first.push(ms)
}
console.log(
  `the first view after a change (the marks and the list made again): ${median(first).toFixed(2)} ms (median of 30)`,
)

// 2. The browser's work.
if (!existsSync(CHROMIUM)) {
  console.log(`the browser half is skipped: no Chromium at ${CHROMIUM}`)
} else {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  })
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await context.addCookies([...cookies].map(([name, value]) => ({ name, value, url })))
    // The article's images are on bench.example: not fetched.
    await context.route('**/*', (route) =>
      route.request().url().startsWith(`${url}/`) ? route.continue() : route.abort(),
    )
    const page = await context.newPage()
    const initTimes = async (id: string): Promise<number[]> => {
      const times: number[] = []
      for (let i = 0; i < LOADS + 2; i++) {
        await page.goto(`${url}/items/${id}`)
        await page.waitForFunction(() => performance.getEntriesByName('reader.js').length > 0)
        const ms = await page.evaluate(() => performance.getEntriesByName('reader.js')[0]!.duration)
        if (i >= 2) times.push(ms)
      }
      return times
    }
    const initWith = median(await initTimes(marked))
    const initWithout = median(await initTimes(plain))
    const inPage = await page.evaluate(() => document.querySelectorAll('.article mark.hl').length)
    if (inPage !== 0) throw new Error('the page without highlights has marks')
    console.log(
      `reader.js on load in Chromium: ${initWith.toFixed(1)} ms with ${HIGHLIGHTS} highlights, ${initWithout.toFixed(1)} ms without (bar 50 ms; medians of ${LOADS})`,
    )

    // Highlighting a selection, click to mark, five times on fresh passages (deleted again after).
    const creates: number[] = []
    await page.goto(`${url}/items/${marked}`)
    await page.waitForFunction(() => performance.getEntriesByName('reader.js').length > 0)
    for (let n = 0; n < 5; n++) {
      const ms = await page.evaluate(async (n) => {
        const body = document.querySelector('.article')!
        const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT)
        const candidates: Text[] = []
        for (let node = walker.nextNode(); node; node = walker.nextNode())
          if ((node as Text).data.length > 60 && !node.parentElement?.closest('mark, pre, a'))
            candidates.push(node as Text)
        const node = candidates[Math.floor(candidates.length * (0.2 + n * 0.15))]!
        const range = document.createRange()
        range.setStart(node, 5)
        range.setEnd(node, 45)
        getSelection()!.removeAllRanges()
        getSelection()!.addRange(range)
        const before = body.querySelectorAll('mark.hl[id]').length
        const button = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Highlight')!
        const started = performance.now()
        await new Promise<void>((resolve) => {
          const observer = new MutationObserver(() => {
            if (body.querySelectorAll('mark.hl[id]').length > before) {
              observer.disconnect()
              resolve()
            }
          })
          observer.observe(body, { childList: true, subtree: true })
          button.click()
        })
        return performance.now() - started
      }, n)
      creates.push(ms)
    }
    const { highlights } = await api('GET', `/v1/saved-items/${marked}/highlights`)
    if (highlights.length !== HIGHLIGHTS + 5) throw new Error(`expected ${HIGHLIGHTS + 5} highlights`)
    console.log(
      `highlighting a selection in Chromium (offsets, POST, the page read again, changed paragraphs replaced): ${median(creates).toFixed(1)} ms (median of 5)`,
    )
  } finally {
    await browser.close()
  }
}
listener.stop(true)
db.$client.close()
