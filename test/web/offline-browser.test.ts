import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { browserSuite, signInThroughForm } from '../helpers/browser.ts'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { png } from '../fixtures/images/images.ts'
import { userWithPassword } from './fixtures.ts'
import { apiKeyFor, captureItem, storeRawArticle } from './reader-fixtures.ts'

// docs/web.md#offline in Debian's Chromium with the service worker on: items saved online are kept, the queue
// and a reader view open offline from the worker's caches with the "Offline" banner, Mark read / Mark unread /
// Delete and reading progress done offline show at once and are sent in order when the network returns, each
// exactly once with its own Idempotency-Key; sign-out clears everything, and another person never sees what
// the first one kept.
const suite = browserSuite()
const PASSWORD = 'correct horse battery'
const BROWSER_TEST = { retry: 1, timeout: 90_000 }
const live = {
  get url() {
    return suite.live.url
  },
  get harness() {
    return suite.live.harness
  },
}
let people = 0

const LONG = Array.from(
  { length: 80 },
  (_, i) => `<p>Paragraph ${i + 1} of a long article, long enough to scroll through on any screen at all.</p>`,
).join('\n')

interface Person {
  email: string
  userId: string
  key: string
  /** Title → id; every item has an article. */
  ids: Record<string, string>
}

/** A person with items (the first title is the newest), each with an article; `read` ones marked read. */
async function person(titles: string[], read: string[] = []): Promise<Person> {
  const email = `offline${++people}-${Date.now()}@example.com`
  const userId = await userWithPassword(live.harness, email, PASSWORD)
  const key = await apiKeyFor(live.harness, userId)
  const ids: Record<string, string> = {}
  for (const [i, title] of [...titles].reverse().entries()) {
    const id = await captureItem(live.harness, key, `https://site${i}.example.com/${people}/${i}`)
    await storeRawArticle(live.harness, id, `<h2>${title}</h2>\n${LONG}`, { title })
    await live.harness.db.$client.execute({
      sql: 'UPDATE saved_items SET title = ?, last_saved_at = ? WHERE id = ?',
      args: [title, `2026-11-2${i}T10:00:00.000Z`, id],
    })
    ids[title] = id
  }
  for (const title of read) await api(key, 'POST', `/v1/saved-items/${ids[title]}/read`)
  return { email, userId, key, ids }
}

async function api(key: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${live.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  return response.status === 204 ? null : response.json()
}
const items = async (p: Person): Promise<any[]> => (await api(p.key, 'GET', '/v1/saved-items?limit=500')).savedItems
const progressOf = async (p: Person, id: string): Promise<number> =>
  (await api(p.key, 'GET', `/v1/saved-items/${id}/content`)).progress

/** A question to the page's worker, as the offline script asks it. */
function ask(page: Page, message: Record<string, unknown>): Promise<any> {
  return page.evaluate(
    (message) =>
      new Promise((resolve) => {
        const channel = new MessageChannel()
        channel.port1.onmessage = (event) => resolve(event.data)
        navigator.serviceWorker.controller!.postMessage(message, [channel.port2])
      }),
    message,
  )
}

/** Signed in with the worker on, in control of the page, and done keeping what it keeps. */
async function signedIn(p: Person, page?: Page): Promise<Page> {
  page ??= await suite.newPage({ serviceWorkers: 'allow' })
  await signInThroughForm(page, live.url, p.email, PASSWORD)
  await page.waitForSelector('html[data-offline-ready]')
  return page
}

/** Polls until `check` passes (the worker sends in the background). */
async function eventually(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(100)
  }
}

const card = (page: Page, title: string) => page.locator('li.item-card', { hasText: title })
const banner = (page: Page) => page.locator('#offline-banner')

describe('reading and acting offline', () => {
  test(
    'the queue and a reader view open from the cache; Mark read, Mark unread, Delete and progress wait, then arrive once, in order',
    async () => {
      const p = await person(['Alpha', 'Beta', 'Gamma', 'Delta'], ['Gamma'])
      const page = await signedIn(p)
      const context = page.context()
      // The worker kept the three unread articles (Gamma is read: not kept).
      const first = await ask(page, { type: 'sync', force: true })
      expect(first.kept.kept).toBe(3)
      // The "All" view is seen once online, so it is there offline too.
      await page.goto(`${live.url}/?state=all`)
      await card(page, 'Gamma').waitFor()

      // The action posts that reached the server (the worker's first try of the first change, made offline,
      // failed: same key, never arrived).
      const sent: { url: string; key: string | undefined }[] = []
      context.on('requestfinished', (request) => {
        if (request.method() === 'POST' && /\/(read-state|delete|progress)$/.test(request.url()))
          sent.push({ url: request.url(), key: request.headers()['idempotency-key'] })
      })

      await context.setOffline(true)
      await page.goto(`${live.url}/`)
      await banner(page).getByText('Offline', { exact: true }).waitFor()
      expect(await banner(page).getAttribute('role')).toBe('status')
      await card(page, 'Alpha').waitFor()
      expect(await card(page, 'Gamma').count()).toBe(0)

      await page.goto(`${live.url}/?state=all`)
      await card(page, 'Gamma').waitFor()
      await card(page, 'Alpha').getByRole('button', { name: 'Mark read', exact: true }).click()
      await card(page, 'Alpha').getByRole('button', { name: 'Mark unread', exact: true }).waitFor()
      await card(page, 'Gamma').getByRole('button', { name: 'Mark unread', exact: true }).click()
      await card(page, 'Gamma').getByRole('button', { name: 'Mark read', exact: true }).waitFor()
      await card(page, 'Beta').getByRole('button', { name: 'Delete', exact: true }).click()
      await card(page, 'Beta').waitFor({ state: 'detached' })
      await page.getByText('3 changes made offline will be sent when you are back online.').waitFor()

      // A kept article, offline; its position is saved a second after scrolling stops.
      await page.goto(`${live.url}/items/${p.ids.Delta}`)
      await page.getByRole('heading', { name: 'Delta', level: 1 }).waitFor()
      await banner(page).getByText('Offline', { exact: true }).waitFor()
      await page.waitForFunction(() => history.scrollRestoration === 'manual')
      await page.evaluate(() =>
        window.scrollTo(0, Math.round(0.5 * (document.documentElement.scrollHeight - window.innerHeight))),
      )
      await eventually('four changes waiting', async () => (await ask(page, { type: 'pending' })).pending.length === 4)
      const pending = (await ask(page, { type: 'pending' })).pending
      expect(pending.map((action: { kind: string }) => action.kind)).toEqual([
        'read-state',
        'read-state',
        'delete',
        'progress',
      ])
      expect(pending[3].progress).toBeGreaterThan(0.4)
      expect(pending[3].progress).toBeLessThan(0.6)
      // Reopened offline, the article is where the person left it, though the server does not know yet.
      await page.goto(`${live.url}/items/${p.ids.Delta}`)
      expect(await page.locator('article.reader').getAttribute('data-progress')).toBe(String(pending[3].progress))
      // Nothing reached the server.
      const before = await items(p)
      expect(before.find((item) => item.title === 'Alpha').isRead).toBe(false)
      expect(before.find((item) => item.title === 'Gamma').isRead).toBe(true)
      expect(before.some((item) => item.title === 'Beta')).toBe(true)
      expect(await progressOf(p, p.ids.Delta!)).toBe(0)

      await context.setOffline(false)
      await eventually('the changes to arrive', async () => {
        const now = await items(p)
        return (
          now.find((item) => item.title === 'Alpha')?.isRead === true &&
          now.find((item) => item.title === 'Gamma')?.isRead === false &&
          !now.some((item) => item.title === 'Beta') &&
          (await progressOf(p, p.ids.Delta!)) === pending[3].progress
        )
      })
      await banner(page).waitFor({ state: 'hidden' })
      await page.getByText('4 changes made offline were sent.').waitFor()
      expect((await ask(page, { type: 'pending' })).pending).toEqual([])
      // Each change once: one request each, each with its own key, and the server holds one record per key.
      const replayed = sent.filter((request) => request.key !== undefined)
      expect(replayed.map((request) => new URL(request.url).pathname)).toEqual([
        `/queue/items/${p.ids.Alpha}/read-state`,
        `/queue/items/${p.ids.Gamma}/read-state`,
        `/queue/items/${p.ids.Beta}/delete`,
        `/items/${p.ids.Delta}/progress`,
      ])
      expect(new Set(replayed.map((request) => request.key)).size).toBe(4)
      const rows = await live.harness.db.$client.execute({
        sql: 'SELECT count(*) AS n FROM idempotency_keys WHERE user_id = ?',
        args: [p.userId],
      })
      expect(Number(rows.rows[0]!.n)).toBe(4)
      // Alpha, now read, falls out of what is kept; Delta stays with its new position.
      const after = await ask(page, { type: 'sync', force: true })
      expect(after.kept.kept).toBe(2)
      expect(
        await page.evaluate(async () =>
          (await caches.open('readlater-articles')).keys().then((keys) => keys.map((key) => new URL(key.url).pathname)),
        ),
      ).not.toContain(`/items/${p.ids.Alpha}`)
    },
    BROWSER_TEST,
  )

  test(
    'a kept article shows its archived images offline; a sign-in page reached by an image address is never kept as it',
    async () => {
      const p = await person(['Pictured'])
      const id = p.ids.Pictured!
      const src = (n: number) => `${live.url}/items/${id}/images/${n}`
      const widths = [120, 90]
      // The article as enrichment stores it once its images are archived (docs/reading.md#archived-images).
      const stored = await storeArticle(
        live.harness.db,
        id,
        {
          title: 'Pictured',
          byline: null,
          siteName: null,
          lang: 'en',
          html: `<h2>Pictured</h2><p>Two pictures.</p><figure><img src="${src(1)}" alt="one"></figure><figure><img src="${src(2)}" alt="two"></figure>${LONG}`,
          text: 'Pictured. Two pictures.',
          wordCount: 400,
        },
        live.harness.clock.now().toISOString(),
        null,
        {
          keep: [],
          add: widths.map((width, i) => ({
            n: i + 1,
            originalUrl: `https://pictures.example.com/${i}.png`,
            mediaType: 'image/png',
            bytes: png(width, 40),
          })),
        },
      )
      expect(stored).toBe(true)
      const page = await signedIn(p)
      expect((await ask(page, { type: 'sync', force: true })).kept.kept).toBe(1)
      const keptImages = () =>
        page.evaluate(async () =>
          (await (await caches.open('readlater-articles')).keys())
            .map((key) => new URL(key.url).pathname)
            .filter((path) => path.includes('/images/'))
            .sort(),
        )
      expect(await keptImages()).toEqual([`/items/${id}/images/1`, `/items/${id}/images/2`])

      // Offline, the reader view and both pictures come from the worker's caches.
      const context = page.context()
      await context.setOffline(true)
      await page.goto(`${live.url}/items/${id}`)
      await banner(page).getByText('Offline', { exact: true }).waitFor()
      await page.waitForFunction(() =>
        [...document.querySelectorAll<HTMLImageElement>('.article img')].every((img) => img.complete),
      )
      const shown = await page.$$eval('.article img', (list) =>
        (list as HTMLImageElement[]).map((img) => ({ src: img.src, width: img.naturalWidth })),
      )
      expect(shown).toEqual(widths.map((width, i) => ({ src: src(i + 1), width })))

      // Online again, with the session ended (expired, say): an image address not kept answers with a redirect
      // to sign-in, which the browser follows. That page is never kept under the image's address.
      await context.setOffline(false)
      await page.evaluate((url) => caches.open('readlater-articles').then((cache) => cache.delete(url)), src(2))
      await context.clearCookies()
      const answer = await page.evaluate(async (url) => {
        // Past the browser's own HTTP cache, which holds the picture as immutable.
        const response = await fetch(url, { cache: 'no-store' })
        return { redirected: response.redirected, type: response.headers.get('content-type') }
      }, src(2))
      expect(answer.redirected).toBe(true)
      expect(answer.type).toStartWith('text/html')
      expect(await keptImages()).toEqual([`/items/${id}/images/1`])
    },
    BROWSER_TEST,
  )

  test(
    'a change to an item deleted meanwhile is dropped with a notice; the changes after it still arrive',
    async () => {
      const p = await person(['Kept', 'Doomed'])
      const page = await signedIn(p)
      const context = page.context()
      await context.setOffline(true)
      await page.goto(`${live.url}/`)
      await card(page, 'Doomed').getByRole('button', { name: 'Mark read', exact: true }).click()
      await card(page, 'Doomed').waitFor({ state: 'detached' })
      await card(page, 'Kept').getByRole('button', { name: 'Mark read', exact: true }).click()
      await card(page, 'Kept').waitFor({ state: 'detached' })
      // Meanwhile, elsewhere: the item is deleted.
      await api(p.key, 'DELETE', `/v1/saved-items/${p.ids.Doomed}`)
      await context.setOffline(false)
      await page
        .getByText('1 change made offline was sent. Not applied: a read state for an item that no longer exists.')
        .waitFor()
      expect((await items(p)).find((item) => item.title === 'Kept').isRead).toBe(true)
      expect((await ask(page, { type: 'pending' })).pending).toEqual([])
    },
    BROWSER_TEST,
  )
  test(
    'an answer lost on the way: the change waits with its key, and the server answers the replay from its record',
    async () => {
      const p = await person(['Toggled'])
      const page = await signedIn(p)
      const context = page.context()
      let tries = 0
      let networkDown = true
      // The first post reaches the server, which marks the item read; its answer never comes back, and the
      // network stays down for the retries (the browser's background sync tries at once) until told.
      await context.route('**/read-state', async (route) => {
        // The worker's own requests (the page's goes to the worker first, and is seen here too).
        if (!route.request().serviceWorker()) return route.continue()
        expect(route.request().headers()['idempotency-key']).toBeDefined()
        if (tries++ === 0) {
          await route.fetch()
          return route.abort('connectionreset')
        }
        return networkDown ? route.abort('internetdisconnected') : route.continue()
      })
      await card(page, 'Toggled').getByRole('button', { name: 'Mark read', exact: true }).click()
      await card(page, 'Toggled').waitFor({ state: 'detached' })
      expect((await items(p))[0].isRead).toBe(true)
      // The worker keeps the action once its lost answer has failed: wait for that, do not race it.
      for (let waited = 0; (await ask(page, { type: 'pending' })).pending.length !== 1 && waited < 5000; waited += 50)
        await Bun.sleep(50)
      expect((await ask(page, { type: 'pending' })).pending).toHaveLength(1)
      // Meanwhile, elsewhere: unread again. A second Mark read would undo that; the replay must not.
      await api(p.key, 'POST', `/v1/saved-items/${p.ids.Toggled}/unread`)
      networkDown = false
      await ask(page, { type: 'sync', force: true })
      expect((await ask(page, { type: 'pending' })).pending).toEqual([])
      expect((await items(p))[0].isRead).toBe(false)
      const rows = await live.harness.db.$client.execute({
        sql: 'SELECT count(*) AS n FROM idempotency_keys WHERE user_id = ?',
        args: [p.userId],
      })
      expect(Number(rows.rows[0]!.n)).toBe(1)
    },
    BROWSER_TEST,
  )
})

describe('privacy on a shared browser', () => {
  test(
    'sign-out clears every cache and the worker; the next person signing in sees nothing of the first',
    async () => {
      const first = await person(['First person’s secret'])
      const page = await signedIn(first)
      expect((await ask(page, { type: 'sync', force: true })).kept.kept).toBe(1)
      expect(await page.evaluate(() => caches.keys())).toEqual(
        expect.arrayContaining(['readlater-articles', 'readlater-pages']),
      )
      await page.getByRole('button', { name: 'Sign out', exact: true }).click()
      await page.waitForURL(`${live.url}/sign-in`)
      expect(await page.evaluate(() => caches.keys())).toEqual([])
      expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(0)

      const second = await person(['Second person’s item'])
      await signedIn(second, page)
      await page.context().setOffline(true)
      await page.goto(`${live.url}/items/${first.ids['First person’s secret']}`)
      await page.getByRole('heading', { name: 'Not kept offline' }).waitFor()
      await page.goto(`${live.url}/`)
      await card(page, 'Second person’s item').waitFor()
      expect(await page.content()).not.toContain('First person’s secret')
    },
    BROWSER_TEST,
  )

  test(
    'another person signing in where the first never signed out: what the first kept is dropped at once',
    async () => {
      const first = await person(['Left behind'])
      const page = await signedIn(first)
      expect((await ask(page, { type: 'sync', force: true })).kept.kept).toBe(1)
      // The first person's session ends without a sign-out (it expired, say).
      await page.context().clearCookies()
      const second = await person(['Someone else’s'])
      await signedIn(second, page)
      await page.context().setOffline(true)
      await page.goto(`${live.url}/items/${first.ids['Left behind']}`)
      await page.getByRole('heading', { name: 'Not kept offline' }).waitFor()
      const kept = await page.evaluate(async () => {
        const urls: string[] = []
        for (const name of await caches.keys())
          for (const key of await (await caches.open(name)).keys()) urls.push(new URL(key.url).pathname)
        return urls
      })
      expect(kept).not.toContain(`/items/${first.ids['Left behind']}`)
    },
    BROWSER_TEST,
  )
})
