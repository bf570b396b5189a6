import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page, Request } from 'playwright-core'
import { SAVE_DELAY_MS } from '../../adapters/http/web/reader-script.ts'
import { cleanUp, waitFor } from '../enrichment/enrichment-helpers.ts'
import { launchBrowser, startLiveServer, type LiveServer } from '../helpers/browser.ts'
import { userWithPassword } from './fixtures.ts'
import {
  apiKeyFor,
  articlePage,
  captureItem,
  enrich,
  HOSTILE_ARTICLE,
  OWASP_PAGE,
  storeRawArticle,
} from './reader-fixtures.ts'

// The reader view in Debian's Chromium against the whole service on a real port (docs/web.md#reader-view):
// the script keeps the reading position, and an article can neither run script nor reach out, whether it
// came through the pipeline or was stored past the sanitizer. No test needs the network: every request
// to another origin is recorded and aborted.
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

// Chromium on a loaded 2-core machine has, rarely, stalled a first navigation; one retry absorbs it.
const BROWSER_TEST = { retry: 1, timeout: 60_000 }

interface Visit {
  page: Page
  /**
   * Every request the page started: method, URL, Chromium's resource type, and whether the page's policy
   * stopped it before it left (Chromium reports those as failed, with the error `csp`).
   */
  requests: { method: string; url: string; type: string; blockedByCsp: boolean }[]
  /** Requests to another origin, aborted: what an article managed to send out. */
  outside: { url: string; type: string }[]
  dialogs: string[]
}

interface Person {
  key: string
  visit: Visit
}

let people = 0

/** A new person signed in through the pages in a fresh browser context, with an API key to check the results. */
async function signedIn(viewport = { width: 1280, height: 800 }): Promise<Person> {
  const email = `reader${++people}-${Date.now()}@example.com`
  const userId = await userWithPassword(live.harness, email, PASSWORD)
  const key = await apiKeyFor(live.harness, userId)
  if (!browser.isConnected()) browser = await launchBrowser()
  // Without the offline worker, which would answer the page's requests itself (out of page.route's reach).
  const context = await browser.newContext({ viewport, serviceWorkers: 'block' })
  context.setDefaultTimeout(15_000)
  contexts.push(context)
  const visit: Visit = { page: await context.newPage(), requests: [], outside: [], dialogs: [] }
  await context.route('**/*', (route) => {
    const url = route.request().url()
    if (url.startsWith(`${live.url}/`)) return route.continue()
    visit.outside.push({ url, type: route.request().resourceType() })
    return route.abort()
  })
  const seen = new Map<Request, Visit['requests'][number]>()
  visit.page.on('request', (request) => {
    const entry = { method: request.method(), url: request.url(), type: request.resourceType(), blockedByCsp: false }
    seen.set(request, entry)
    visit.requests.push(entry)
  })
  visit.page.on('requestfailed', (request) => {
    const entry = seen.get(request)
    const error = request.failure()?.errorText
    if (entry && (error === 'csp' || error === 'net::ERR_BLOCKED_BY_CSP')) entry.blockedByCsp = true
  })
  visit.page.on('dialog', (dialog) => {
    visit.dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  await visit.page.goto(`${live.url}/sign-in`)
  await visit.page.getByLabel('Email', { exact: true }).fill(email)
  await visit.page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await visit.page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await visit.page.waitForURL(`${live.url}/`)
  visit.requests.length = 0
  return { key, visit }
}

const api = async (key: string, path: string): Promise<any> => {
  const response = await fetch(`${live.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
  expect(response.status).toBe(200)
  return response.json()
}
const progressOf = async (key: string, id: string): Promise<number> =>
  (await api(key, `/v1/saved-items/${id}/content`)).progress
const isRead = async (key: string, id: string): Promise<boolean> =>
  (await api(key, '/v1/saved-items?limit=500')).savedItems.find((item: { id: string }) => item.id === id).isRead

/** Polls the API until the saved progress satisfies `ok`; returns it. */
const progressWhen = (key: string, id: string, what: string, ok: (progress: number) => boolean) =>
  waitFor(
    what,
    async () => {
      const progress = await progressOf(key, id)
      return ok(progress) ? progress : null
    },
    15_000,
  )

const scrollRatio = (page: Page): Promise<number> =>
  page.evaluate(() => window.scrollY / (document.documentElement.scrollHeight - window.innerHeight))

const scrollTo = (page: Page, ratio: number): Promise<void> =>
  page.evaluate((ratio) => {
    window.scrollTo(0, Math.round(ratio * (document.documentElement.scrollHeight - window.innerHeight)))
  }, ratio)

// A long article with the things that break narrow layouts: a long line of code, a wide table, a large image.
const PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
const WIDE = `<pre><code>${'const aVeryLongIdentifierThatDoesNotWrap = '.repeat(8)}1</code></pre>
<table><tr>${Array.from({ length: 14 }, (_, i) => `<th>Column heading ${i}</th>`).join('')}</tr>
<tr>${Array.from({ length: 14 }, (_, i) => `<td>cell-value-${i}-without-spaces</td>`).join('')}</tr></table>
<figure><img src="${PIXEL}" width="1600" height="900" alt="A wide figure"><figcaption>A wide figure.</figcaption></figure>`

/** An item with a long article, through the real pipeline (a capture with the page, then enrichment). */
async function longArticle(person: Person): Promise<string> {
  const page = articlePage({
    title: 'A long read',
    site: 'Long Reads',
    author: 'Grace Hopper',
    paragraphs: 80,
    extra: WIDE,
  })
  const id = await captureItem(live.harness, person.key, `https://long.example.com/${Date.now()}-${people}`, page)
  await enrich(live.harness, person.key, [id])
  return id
}

/**
 * Waits until the reader page is loaded, its script has run and the network has been quiet: whatever an
 * article could start (a refresh, a load, a handler) has had its chance.
 */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('load')
  await page.waitForFunction(() => history.scrollRestoration === 'manual')
  await page.waitForLoadState('networkidle')
}

/**
 * What left the reader view: the page itself, our script and stylesheet, the progress route, the app's
 * icon and manifest, and nothing to another origin. Returns the requests the page's policy stopped.
 */
function expectOnlyOwnRequests(visit: Visit, id: string): string[] {
  const readerUrl = `${live.url}/items/${id}`
  const sent = visit.requests.filter((request) => !request.blockedByCsp)
  const unexpected = sent.filter(
    ({ url, type }) =>
      !(url === readerUrl && type === 'document') &&
      !(url.startsWith(`${live.url}/assets/reader.js?v=`) && type === 'script') &&
      !(url.startsWith(`${live.url}/assets/offline.js?v=`) && type === 'script') &&
      !(url.startsWith(`${live.url}/assets/app.css?v=`) && type === 'stylesheet') &&
      !(url === `${live.url}/assets/icon.svg` || url === `${live.url}/manifest.webmanifest`) &&
      !(url === `${readerUrl}/progress` && type === 'fetch') &&
      !(url === `${live.url}/favicon.ico`) &&
      // Images an article may show under the page's policy: our own origin's (the archived copies,
      // docs/reading.md#archived-images; on an https APP_URL `https:` allowed them already), https: and data:.
      !(type === 'image' && (/^(https:|data:)/.test(url) || url.startsWith(`${live.url}/`))),
  )
  expect(unexpected).toEqual([])
  // An article's https: images may load (and are aborted here); nothing else may leave.
  expect(visit.outside.filter(({ url, type }) => !(type === 'image' && url.startsWith('https:')))).toEqual([])
  return visit.requests.filter((request) => request.blockedByCsp).map((request) => request.url)
}

/** No script ran, no dialog opened, the page is where it was, nothing left but our own requests; returns what the CSP stopped. */
async function expectNothingRan(visit: Visit, id: string): Promise<string[]> {
  const { page } = visit
  expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined()
  expect(visit.dialogs).toEqual([])
  expect(page.url()).toBe(`${live.url}/items/${id}`)
  return expectOnlyOwnRequests(visit, id)
}

describe('reading position', () => {
  test(
    'saved about a second after scrolling stops, restored on the next visit, and the end marks the item read',
    async () => {
      const person = await signedIn()
      const { page } = person.visit
      const id = await longArticle(person)
      await page.goto(`${live.url}/items/${id}`)
      await settled(page)
      expect(await scrollRatio(page)).toBe(0)

      const saveRequest = page.waitForRequest((request) => request.url().endsWith(`/items/${id}/progress`))
      const scrolledAt = Date.now()
      await scrollTo(page, 0.5)
      const request = await saveRequest
      // Debounced: nothing is sent while the person may still be scrolling.
      expect(Date.now() - scrolledAt).toBeGreaterThanOrEqual(SAVE_DELAY_MS - 50)
      expect(request.method()).toBe('POST')
      expect((await request.response())!.status()).toBe(204)
      const saved = await progressWhen(person.key, id, 'the middle to be saved', (p) => p > 0)
      expect(saved).toBeCloseTo(0.5, 2)
      expect(await isRead(person.key, id)).toBe(false)

      // The saved position, not the browser's memory of this tab: the script asks the browser not to restore.
      await page.reload()
      await settled(page)
      expect(await scrollRatio(page)).toBeCloseTo(0.5, 1)
      const fresh = await page.context().newPage()
      await fresh.goto(`${live.url}/items/${id}`)
      await settled(fresh)
      expect(await scrollRatio(fresh)).toBeCloseTo(0.5, 1)
      await fresh.close()

      await scrollTo(page, 1)
      await progressWhen(person.key, id, 'the end to be saved', (p) => p === 1)
      expect(await isRead(person.key, id)).toBe(true)
      expectOnlyOwnRequests(person.visit, id)
    },
    BROWSER_TEST,
  )

  test(
    'leaving before the delay is up still saves the position (keepalive on pagehide)',
    async () => {
      const person = await signedIn()
      const { page } = person.visit
      const id = await longArticle(person)
      await page.goto(`${live.url}/items/${id}`)
      await settled(page)
      await scrollTo(page, 0.3)
      // Let the scroll event reach the script, then leave at once: the request outlives the page.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))))
      const left = Date.now()
      await page.goto(`${live.url}/`)
      // The page was gone before the delay was up: what was saved came from pagehide, not the timer.
      expect(Date.now() - left).toBeLessThan(SAVE_DELAY_MS)
      expect(await progressWhen(person.key, id, 'the position to be saved', (p) => p > 0)).toBeCloseTo(0.3, 2)
      expect(await isRead(person.key, id)).toBe(false)
    },
    BROWSER_TEST,
  )
})

describe('layout', () => {
  test(
    'a 360 px phone: nothing wider than the screen, code and tables scroll in place, images shrink',
    async () => {
      const person = await signedIn({ width: 360, height: 740 })
      const { page } = person.visit
      const id = await longArticle(person)
      await page.emulateMedia({ colorScheme: 'light' })
      await page.goto(`${live.url}/items/${id}`)
      await settled(page)
      const layout = await page.evaluate(() => {
        const style = (selector: string) => getComputedStyle(document.querySelector(selector)!)
        const article = style('.article')
        const image = document.querySelector('.article img')!.getBoundingClientRect()
        return {
          pageWidth: document.documentElement.scrollWidth,
          screenWidth: window.innerWidth,
          lineHeight: Number.parseFloat(article.lineHeight) / Number.parseFloat(article.fontSize),
          fontSize: Number.parseFloat(article.fontSize),
          preOverflow: style('.article pre').overflowX,
          tableOverflow: style('.article table').overflowX,
          imageWidth: image.width,
          articleWidth: document.querySelector('.article')!.getBoundingClientRect().width,
          background: getComputedStyle(document.body).backgroundColor,
        }
      })
      expect(layout.pageWidth).toBeLessThanOrEqual(layout.screenWidth)
      expect(layout.lineHeight).toBeCloseTo(1.6, 1)
      expect(layout.fontSize).toBeGreaterThanOrEqual(16)
      expect(layout.preOverflow).toBe('auto')
      expect(layout.tableOverflow).toBe('auto')
      expect(layout.imageWidth).toBeLessThanOrEqual(layout.articleWidth)
      expect(layout.background).toBe('rgb(251, 251, 253)')

      await page.emulateMedia({ colorScheme: 'dark' })
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(21, 21, 24)')
    },
    BROWSER_TEST,
  )

  test(
    'a desktop: the article keeps a measure of about 70 characters',
    async () => {
      const person = await signedIn({ width: 1600, height: 900 })
      const { page } = person.visit
      const id = await longArticle(person)
      await page.goto(`${live.url}/items/${id}`)
      await settled(page)
      const { width, ch } = await page.evaluate(() => {
        const reader = document.querySelector('.reader')!
        const probe = document.createElement('span')
        probe.textContent = '0'.repeat(70)
        probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap'
        reader.appendChild(probe)
        const ch = probe.getBoundingClientRect().width
        probe.remove()
        return { width: reader.getBoundingClientRect().width, ch }
      })
      expect(width).toBeCloseTo(ch, 0)
      expect(width).toBeLessThan(1000)
    },
    BROWSER_TEST,
  )
})

describe('hostile articles', () => {
  // Read before any click: a form submission the policy blocks leaves Playwright's locators waiting for a
  // navigation that never comes.
  const relativeLink = (page: Page): Promise<string> =>
    page.evaluate(() => (document.querySelector('#relative-link') as HTMLAnchorElement).href)

  /** Tries what a person might do on the page: click the links and the handler's paragraph, press any button. */
  async function poke(page: Page): Promise<void> {
    for (const selector of ['#js-link', '#click-me', '#evil-submit']) {
      const target = page.locator(selector)
      // A blocked form submission leaves Playwright waiting for a navigation that never comes: don't wait.
      if ((await target.count()) > 0) await target.click({ timeout: 5_000, noWaitAfter: true })
    }
    await page.waitForLoadState('networkidle')
  }

  test(
    'stored past the sanitizer: no script runs, nothing loads, no dialog, the page stays',
    async () => {
      const person = await signedIn()
      const { page } = person.visit
      const id = await captureItem(live.harness, person.key, `https://hostile.example.com/${people}`)
      await storeRawArticle(live.harness, id, HOSTILE_ARTICLE)
      await page.goto(`${live.url}/items/${id}`)
      await settled(page)
      await expect(page.getByText('After the attack.').isVisible()).resolves.toBe(true)
      // The refresh, the frame, the form and the stylesheet exist only as text.
      const foreign = '.article meta, .article iframe, .article form, .article link, .article base, .article script'
      expect(await page.locator(foreign).count()).toBe(0)
      await expect(page.getByText('<meta http-equiv="refresh"').isVisible()).resolves.toBe(true)
      expect(await relativeLink(page)).toBe(`${live.url}/items/relative/page`)
      await poke(page)
      const blocked = await expectNothingRan(person.visit, id)
      // The images the gate lets through are the policy's to stop: http: is not https:. Our own origin's are
      // allowed (the archived copies, docs/reading.md#archived-images): a GET with the reader's session, which
      // changes nothing, as on an https APP_URL `https:` always allowed it.
      expect(blocked).toEqual(expect.arrayContaining(['http://127.0.0.1:1/tracker.png']))
      expect(blocked).not.toContain(`${live.url}/items/x`)
    },
    BROWSER_TEST,
  )

  test(
    "the page's CSP alone stops what it can: script, handlers, javascript: links, frames, plugins, forms, base, http images",
    async () => {
      const person = await signedIn()
      const { page } = person.visit
      const id = await captureItem(live.harness, person.key, `https://csp-only.example.com/${people}`)
      await storeRawArticle(live.harness, id, '<p>Placeholder.</p>')
      // The markup goes into the page as it leaves the server, past the page's own tag gate too, under the
      // real headers. A refresh and a DNS prefetch are left out: no policy stops those (the gate does).
      const raw = HOSTILE_ARTICLE.split('\n')
        .filter((line) => !line.includes('http-equiv="refresh"') && !line.includes('dns-prefetch'))
        .join('\n')
      await page.route(`${live.url}/items/${id}`, async (route) => {
        const response = await route.fetch()
        const body = (await response.text()).replace('<p>Placeholder.</p>', raw)
        expect(body).toContain('<script>window.__pwned = 1</script>')
        await route.fulfill({ response, body })
      })
      const violations: string[] = []
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) violations.push(message.text())
      })
      await page.goto(`${live.url}/items/${id}`)
      await settled(page)
      // The elements are really there this time.
      expect(await page.locator('.article script, .article iframe, .article form, .article base').count()).toBe(5)
      expect(await relativeLink(page)).toBe(`${live.url}/items/relative/page`)
      await poke(page)
      const blocked = await expectNothingRan(person.visit, id)
      expect(blocked).toEqual(expect.arrayContaining(['http://127.0.0.1:1/tracker.png', 'https://evil.example/x.css']))
      // Chromium names the directive that stopped each: the CSP did it, not an accident of the test. Its
      // console messages arrive on their own schedule, so they are waited for.
      const directives = ['script-src', 'img-src', 'frame-src', 'style-src', 'form-action', 'base-uri']
      const unreported = () => directives.filter((directive) => !violations.some((text) => text.includes(directive)))
      await waitFor(
        'a violation report of every directive',
        () => (unreported().length === 0 ? true : null),
        10_000,
      ).catch(() => {})
      expect(unreported()).toEqual([])
    },
    BROWSER_TEST,
  )

  test(
    'a filter-evasion corpus through the real pipeline (capture with the page, enrichment, sanitizer) does nothing',
    async () => {
      const person = await signedIn()
      const { page } = person.visit
      const id = await captureItem(live.harness, person.key, `https://corpus.example.com/${people}`, OWASP_PAGE)
      await enrich(live.harness, person.key, [id])
      await page.goto(`${live.url}/items/${id}`)
      await settled(page)
      await expect(page.getByText('The last paragraph ends the article').isVisible()).resolves.toBe(true)
      await expect(page.locator('.article a[href="https://example.org/safe"]').count()).resolves.toBe(1)
      // Hover and click every link that is not the safe one (which would leave, as any link does).
      const links = page.locator('.article a:not([href="https://example.org/safe"])')
      for (let i = 0; i < (await links.count()); i++) {
        await links.nth(i).hover()
        await links.nth(i).click()
      }
      await page.waitForLoadState('networkidle')
      const blocked = await expectNothingRan(person.visit, id)
      // The sanitizer keeps http: images; the policy does not load them.
      expect(blocked).toContain('http://127.0.0.1:1/tracker.png')
      expect(await page.locator('.article script, .article iframe, .article svg, .article form').count()).toBe(0)
    },
    BROWSER_TEST,
  )
})
