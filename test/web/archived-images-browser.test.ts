import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test'
import type { Browser, BrowserContext } from 'playwright-core'
import { png } from '../fixtures/images/images.ts'
import {
  archiving,
  capture,
  cleanUp,
  fetcher,
  fixtureServer,
  htmlPage,
  startWorkers,
  waitForStatus,
} from '../enrichment/enrichment-helpers.ts'
import { launchBrowser, signInThroughForm, startLiveServer, type LiveServer } from '../helpers/browser.ts'
import { userWithPassword } from './fixtures.ts'
import { apiKeyFor } from './reader-fixtures.ts'

// docs/reading.md#archived-images in Debian's Chromium: an image-heavy article saved while its site was up
// still shows every image in the reader view after the site is gone, each loaded from our own origin under
// the reader view's policy, and nothing is asked of the old site.

let live: LiveServer
let browser: Browser
const contexts: BrowserContext[] = []
const PASSWORD = 'correct horse battery'

beforeAll(async () => {
  ;[live, browser] = await Promise.all([
    startLiveServer({ env: { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000' } }),
    launchBrowser(),
  ])
})
afterEach(cleanUp)
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {})
  await browser?.close()
  await live?.stop()
})

const PROSE =
  'Readers keep the article itself, not only a link to it, so that it can still be read long after the original page ' +
  'moved behind a paywall, changed its address, or disappeared from the web altogether.'

test(
  'an image-heavy article shows every image after its site is gone, each from our origin',
  async () => {
    const email = `images-${Date.now()}@example.com`
    const key = await apiKeyFor(live.harness, await userWithPassword(live.harness, email, PASSWORD))
    const site = fixtureServer()
    const colours: [number, number, number][] = Array.from({ length: 8 }, (_, i) => [30 * i, 200 - 20 * i, 120])
    for (const [i, rgb] of colours.entries())
      site.route(
        `/img/${i}.png`,
        () => new Response(png(120, 60, { rgb }), { headers: { 'content-type': 'image/png' } }),
      )
    const figures = colours.map((_, i) => `<p>${PROSE}</p><figure><img src="/img/${i}.png" alt="figure ${i}"></figure>`)
    site.route('/post', () =>
      htmlPage(`<!doctype html><html lang="en"><head><title>Pictures</title></head><body><article>
<h1>Pictures</h1>${figures.join('')}<p>${PROSE}</p></article></body></html>`),
    )
    const log = (level: string, fields: Record<string, unknown>) => void live.harness.logs.push({ level, ...fields })
    const item = await capture(live.harness, key, `${site.origin}/post`)
    startWorkers({ h: live.harness, log }, fetcher({ allowPrivate: true }), {
      images: archiving(live.harness, { allowPrivate: true }),
    })
    await waitForStatus(live.harness, key, item.id, 'enriched')
    // The site goes away (and the workers with it).
    await cleanUp()
    await expect(fetch(`${site.origin}/img/0.png`)).rejects.toThrow()

    if (!browser.isConnected()) browser = await launchBrowser()
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 } })
    context.setDefaultTimeout(15_000)
    contexts.push(context)
    const outside: string[] = []
    await context.route('**/*', (route) => {
      const url = route.request().url()
      if (url.startsWith(`${live.url}/`)) return route.continue()
      outside.push(url)
      return route.abort()
    })
    const page = await context.newPage()
    await signInThroughForm(page, live.url, email, PASSWORD)
    await page.goto(`${live.url}/items/${item.id}`)
    await page.waitForLoadState('networkidle')
    const images = await page.$$eval('.article img', (list) =>
      (list as HTMLImageElement[]).map((img) => ({ src: img.src, complete: img.complete, width: img.naturalWidth })),
    )
    expect(images).toEqual(
      colours.map((_, i) => ({ src: `${live.url}/items/${item.id}/images/${i + 1}`, complete: true, width: 120 })),
    )
    expect(outside).toEqual([])
  },
  { retry: 1, timeout: 60_000 },
)
