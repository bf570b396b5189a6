import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page, Route } from 'playwright-core'
import { signInThroughForm } from '../helpers/browser.ts'
import { request, runServerCommand, type ServerProcess, startServer } from '../e2e/processes.ts'
import { buildExtension, type ExtensionBuild } from './build.ts'
import { type ExtensionBrowser, launchExtension } from './chromium.ts'

// docs/extension.md: the built Chromium extension in Debian's headless Chromium against a real `bun
// server.ts`: connect through the options page and the connect page, save the page as rendered with the
// toolbar button, the popup's folder, tags and "Mark read", the badge, "Save link to Readlater", a save
// while the server is down (kept, sent once with its Idempotency-Key when it is back), and a revoked key.

const dir = mkdtempSync(join(tmpdir(), 'readlater-extension-e2e-'))
const env = {
  DATABASE_URL: `file:${join(dir, 'db.sqlite')}`,
  ENRICHMENT: 'on',
  // The server may fetch loopback pages: so that it fetches none of a capture that carries its page is its
  // own doing, not the SSRF guard's.
  ENRICH_ALLOW_PRIVATE: '1',
  IP_RATE_LIMIT_MAX: '100000',
  RATE_LIMIT_MAX: '100000',
}
const EMAIL = 'reader@example.com'
const PASSWORD = 'correct horse battery'

let build: ExtensionBuild
let server: ServerProcess
let browser: ExtensionBrowser
let fixtures: ReturnType<typeof Bun.serve>
/** A personal key with every scope, to look through the API at what the extension did. */
let adminKey = ''
/** The signed-in tab of the web app. */
let web: Page
/** The tab the saves happen in. */
let tab: Page
let tabId = 0
const fixtureRequests: { path: string; agent: string }[] = []
/** Every capture request the extension sent, as the browser saw it. */
const captures: { url: string; key: string | null }[] = []
const lookups: { url: string; status: number }[] = []

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))
async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== null && value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

// The fixture site. /story is a "sign in to read" wall as served; its script writes the article after load,
// as paywalled and single-page sites do, so only the rendered page has it.
const ARTICLE = [
  'The rendered-only paragraph: what the browser showed is what Readlater kept, not the wall the server sent.',
  'Readability wants an article of some length, so here is a second paragraph about reading later, written by a script after the page loaded.',
  'And a third one, to be sure the extraction takes this article rather than anything else on the page.',
]
const wall = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Members only</title></head>
<body><p>Sign in to read this article.</p><script src="/story.js" data-title="${title}"></script></body></html>`
const STORY_JS = `window.addEventListener('load', () => {
  const title = document.currentScript?.dataset.title ?? document.querySelector('script[data-title]').dataset.title
  document.title = title
  document.body.innerHTML = '<article><h1>' + title + '</h1>' + ${JSON.stringify(ARTICLE.map((p) => `<p>${p}</p>`).join(''))} + '</article>'
})`
const plain = (title: string, body = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}<p>${ARTICLE.join(' ')}</p></body></html>`

const fixture = (path: string) => `http://127.0.0.1:${fixtures.port}${path}`

beforeAll(async () => {
  fixtures = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const { pathname } = new URL(req.url)
      fixtureRequests.push({ path: pathname, agent: req.headers.get('user-agent') ?? '' })
      const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } })
      if (pathname === '/story.js') return new Response(STORY_JS, { headers: { 'content-type': 'text/javascript' } })
      if (pathname.startsWith('/story/')) return html(wall(`The rendered story ${pathname.slice(7)}`))
      if (pathname === '/links') return html(plain('Links', '<p><a href="/linked">A linked page</a></p>'))
      if (pathname === '/favicon.ico') return new Response(null, { status: 404 })
      return html(plain(`Page ${pathname}`))
    },
  })
  ;[build, server] = await Promise.all([buildExtension(), startServer(env)])
  // The browser gets host access to the server's host only (http://localhost/*, any port), as the options
  // page would ask for it; the fixture site only ever through activeTab.
  browser = await launchExtension(build.chromium, { hostAccess: ['http://localhost/*'] })
  await browser.context.route(
    (url) => url.pathname === '/v1/captures' || url.pathname === '/v1/saved-items/lookup',
    async (route: Route) => {
      const req = route.request()
      if (req.url().includes('/lookup')) {
        const response = await route.fetch()
        lookups.push({ url: new URL(req.url()).searchParams.get('url')!, status: response.status() })
        return route.fulfill({ response })
      }
      captures.push({ url: JSON.parse(req.postData() ?? '{}').url, key: req.headers()['idempotency-key'] ?? null })
      return route.continue()
    },
  )
  // A person signs up and signs in through the web app, in the same browser.
  web = await browser.context.newPage()
  await web.goto(`${server.base}/sign-up`)
  await web.getByLabel('Email', { exact: true }).fill(EMAIL)
  await web.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await web.getByRole('button', { name: 'Create account', exact: true }).click()
  await web.waitForURL(/\/sign-in/)
  await signInThroughForm(web, server.base, EMAIL, PASSWORD)
  const created = await runServerCommand(
    [
      'key',
      'create',
      '--email',
      EMAIL,
      '--label',
      'checks',
      '--scopes',
      'saved-items:capture,saved-items:read,saved-items:write,folders:read,folders:write,account:read',
    ],
    env,
  )
  adminKey = created.stdout.at(-1)!
  expect(adminKey).toStartWith('rlk_')
  tab = await browser.context.newPage()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await fixtures?.stop(true)
  build?.remove()
  rmSync(dir, { recursive: true, force: true })
})

const api = (method: string, path: string, body?: unknown) =>
  request(server.url, method, path, { token: adminKey, ...(body === undefined ? {} : { body }) })

type Result = { state: string; url?: string | null; key?: string; item?: any; withHtml?: boolean; reason?: string }
const results = () =>
  browser.inWorker(async () => {
    const all = (await (globalThis as any).chrome.storage.session.get(null)) as Record<string, Result>
    return Object.entries(all).filter(([key]) => key.startsWith('tab:'))
  })

/** Which save a result is about (a popup updating the item it shows does not make it another). */
const identity = (result: Result) => `${result.state}:${result.key ?? ''}`

/** Does something that saves from a tab, and waits for that tab's new result (past "Saving…"). */
async function saved(action: () => Promise<unknown>, url: string): Promise<{ tabId: number; result: Result }> {
  const before = new Map((await results()).map(([key, value]) => [key, identity(value)]))
  await action()
  return until(`the result for ${url}`, async () => {
    for (const [key, value] of await results())
      if (value.state !== 'saving' && value.url === url && before.get(key) !== identity(value))
        return { tabId: Number(key.slice(4)), result: value }
    return null
  }).catch(async (error) => {
    throw new Error(`${error.message}; the results: ${JSON.stringify(await results())}`)
  })
}

const badge = (id: number) =>
  browser.inWorker((tabId) => (globalThis as any).chrome.action.getBadgeText({ tabId }) as Promise<string>, id)

async function openPopup(): Promise<Page> {
  const popup = await browser.context.newPage()
  await popup.setViewportSize({ width: 360, height: 520 })
  await popup.goto(`chrome-extension://${browser.id}/popup.html?tab=${tabId}`)
  await popup.locator('body[data-ready]').waitFor()
  return popup
}

/** Options page → Connect → the connect page (sign in if asked) → Allow → "Connected as …". */
async function connectThroughOptions(button: 'Connect' | 'Reconnect'): Promise<Page> {
  const options = await browser.context.newPage()
  await options.goto(`chrome-extension://${browser.id}/options.html`)
  await options.locator('body[data-ready]').waitFor()
  if (button === 'Reconnect')
    await options
      .getByText(/reconnect/)
      .first()
      .waitFor()
  await options.getByLabel('Server', { exact: true }).fill(server.base)
  const flowOpened = browser.context.waitForEvent('page')
  await options.getByRole('button', { name: button, exact: true }).click()
  const flow = await flowOpened
  await flow.waitForURL((url) => url.pathname === '/connect' || url.pathname === '/sign-in')
  if (new URL(flow.url()).pathname === '/sign-in') {
    await flow.getByLabel('Email', { exact: true }).fill(EMAIL)
    await flow.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await flow.getByRole('button', { name: 'Sign in', exact: true }).click()
  }
  await flow.getByRole('button', { name: 'Allow', exact: true }).click()
  await options.getByText(`Connected as ${EMAIL}`, { exact: true }).waitFor()
  return options
}

describe('the extension in Chromium', () => {
  test('the options page says what went wrong: nothing there, not a Readlater server, access denied', async () => {
    const options = await browser.context.newPage()
    await options.goto(`chrome-extension://${browser.id}/options.html`)
    await options.locator('body[data-ready]').waitFor()
    const server_ = options.getByLabel('Server', { exact: true })
    const connect = options.getByRole('button', { name: 'Connect', exact: true })
    const status = options.getByRole('status')

    await server_.fill('http://localhost:1')
    await connect.click()
    await status
      .getByText('Could not reach http://localhost:1. Check the address and that the server is running.')
      .waitFor()

    // A web server, but not Readlater (the fixture site, by the host the extension may reach).
    const elsewhere = `http://localhost:${fixtures.port}`
    await server_.fill(elsewhere)
    await connect.click()
    await status.getByText(`${elsewhere} does not look like a Readlater server`, { exact: false }).waitFor()

    await server_.fill(server.base)
    const flowOpened = browser.context.waitForEvent('page')
    await connect.click()
    const flow = await flowOpened
    await flow.getByRole('button', { name: 'Deny', exact: true }).click()
    await status.getByText('You denied access, so this browser is not connected.').waitFor()
    expect(
      await browser.inWorker(async () => (await (globalThis as any).chrome.storage.local.get('connection')).connection),
    ).toBeUndefined()
    await options.close()
  }, 30_000)

  test('connects through the options page and the connect page, and keeps key, base and app', async () => {
    const options = await connectThroughOptions('Connect')
    expect(await options.getByRole('button', { name: 'Disconnect' }).isVisible()).toBe(true)
    const connection = await browser.inWorker(
      async () => (await (globalThis as any).chrome.storage.local.get('connection')).connection,
    )
    expect(connection).toMatchObject({ app: server.base, base: server.base, email: EMAIL })
    expect(connection.apiKey).toStartWith('rlk_')
    expect(connection.scopes.sort()).toEqual(
      ['account:read', 'folders:read', 'saved-items:capture', 'saved-items:read', 'saved-items:write'].sort(),
    )
    expect((await request(server.url, 'GET', '/v1/me', { token: connection.apiKey })).body.email).toBe(EMAIL)
    await options.close()
  }, 30_000)

  test('the toolbar button saves the page as rendered: the article is the script’s, and the site was asked nothing', async () => {
    const url = fixture('/story/one')
    await tab.goto(url)
    await tab.getByRole('heading', { name: 'The rendered story one' }).waitFor()
    const { tabId: id, result } = await saved(() => browser.pressButton(tab), url)
    tabId = id
    expect(result.state).toBe('saved')
    expect(result.withHtml).toBe(true)
    expect(await badge(tabId)).toBe('✓')

    const content = await until('the article', async () => {
      const reply = await api('GET', `/v1/saved-items/${result.item.id}/content`)
      return reply.status === 200 ? reply.body : null
    })
    expect(content.text).toContain(ARTICLE[0])
    expect(content.text).not.toContain('Sign in to read')
    const item = (await api('GET', `/v1/saved-items/lookup?url=${encodeURIComponent(url)}`)).body
    expect(item.title).toBe('The rendered story one')
    expect(item.captureChannel).toBe('chrome-extension')
    // The site got the browser's requests for the page and its script, nothing from the server.
    const story = fixtureRequests.filter((r) => r.path.startsWith('/story'))
    expect(story.map((r) => r.path).sort()).toEqual(['/story.js', '/story/one'])
    for (const r of story) expect(r.agent).toContain('HeadlessChrome')
    // The capture taught the extension the tab's URL: no lookup was needed for it.
    expect(lookups.filter((l) => l.url === url)).toEqual([])
  }, 30_000)

  test('saved again: "Already saved"; the popup’s folder, tags and "Mark read" reach the API', async () => {
    const folder = (await api('POST', '/v1/folders', { name: 'Research' })).body
    const url = fixture('/story/one')
    const { result } = await saved(() => browser.pressButton(tab), url)
    expect(result.state).toBe('already')

    const popup = await openPopup()
    await popup.getByRole('heading', { name: 'Already saved' }).waitFor()
    await popup.getByText('The rendered story one', { exact: true }).waitFor()
    const item = () => api('GET', `/v1/saved-items/lookup?url=${encodeURIComponent(url)}`).then((reply) => reply.body)

    const select = popup.getByLabel('Folder', { exact: true })
    await until('the folders', async () => (await select.locator('option').allTextContents()).includes('Research'))
    expect(await select.locator('option').allTextContents()).toEqual(['No folder', 'Research'])
    await select.selectOption({ label: 'Research' })
    await until('the folder', async () => (await item()).folder?.id === folder.id)

    await popup.getByLabel('security', { exact: true }).check()
    await popup.getByLabel('ai', { exact: true }).check()
    await until('two tags', async () => JSON.stringify((await item()).tags.sort()) === '["ai","security"]')
    await popup.getByLabel('ai', { exact: true }).uncheck()
    await until('one tag', async () => JSON.stringify((await item()).tags) === '["security"]')

    expect((await item()).isRead).toBe(false)
    await popup.getByRole('button', { name: 'Mark read' }).click()
    await until('read', async () => (await item()).isRead === true)
    await popup.getByRole('button', { name: 'Read' }).waitFor()

    expect(await popup.getByRole('link', { name: 'Open in Readlater' }).getAttribute('href')).toBe(
      `${server.base}/items/${result.item.id}`,
    )
    // The popup opened again shows what was set.
    await popup.reload()
    await popup.getByRole('heading', { name: 'Already saved' }).waitFor()
    expect(await popup.getByLabel('Folder', { exact: true }).inputValue()).toBe(folder.id)
    expect(await popup.getByLabel('security', { exact: true }).isChecked()).toBe(true)
    expect(await popup.getByLabel('ai', { exact: true }).isChecked()).toBe(false)

    // By keyboard: the focus starts on the folder; Tab reaches the first tag, Space ticks it.
    expect(await popup.evaluate(() => document.activeElement?.id)).toBe('folder')
    await popup.keyboard.press('Tab')
    await popup.keyboard.press('Space')
    await until('a tag by keyboard', async () => JSON.stringify((await item()).tags.sort()) === '["ai","security"]')
    await popup.close()
  }, 30_000)

  test('a page too big to send whole (over 5 MiB rendered) is saved as its URL alone', async () => {
    const url = fixture('/huge')
    await tab.goto(url)
    await tab.evaluate(() => {
      // 6 Mi characters of text, written by script: only the rendered page is this big.
      const block = 'x'.repeat(1024 * 1024)
      for (let i = 0; i < 6; i++)
        document.body.append(Object.assign(document.createElement('p'), { textContent: block }))
    })
    const { result } = await saved(() => browser.pressButton(tab), url)
    expect(result).toMatchObject({ state: 'saved', withHtml: false })
    // Without the page, the server fetched it itself.
    await until('the server’s fetch', async () =>
      fixtureRequests.some((r) => r.path === '/huge' && r.agent.startsWith('Readlater/')),
    )
  }, 30_000)

  test('the badge: a page already saved gets ✓ on its first load the extension can see, once per load', async () => {
    // Saved from elsewhere (the API) first.
    const savedUrl = fixture('/saved-elsewhere')
    expect((await api('POST', '/v1/captures', { url: savedUrl })).status).toBe(201)
    // The same site in the same tab: the button's activeTab grant lets the browser tell its URL.
    await tab.goto(savedUrl)
    await until('the ✓ of a saved page', async () => (await badge(tabId)) === '✓')
    expect(lookups.filter((l) => l.url === savedUrl)).toEqual([{ url: savedUrl, status: 200 }])

    const otherUrl = fixture('/not-saved')
    await tab.goto(otherUrl)
    await until('the lookup', async () => lookups.some((l) => l.url === otherUrl))
    expect(lookups.filter((l) => l.url === otherUrl)).toEqual([{ url: otherUrl, status: 404 }])
    expect(await badge(tabId)).toBe('')
    // Readlater's own pages, which the extension may always see (the web app's tab), are never looked up.
    expect(lookups.filter((l) => l.url.startsWith(server.base))).toEqual([])
  }, 30_000)

  test('"Save link to Readlater" saves the link’s URL alone; "Save to Readlater" the page, as the button does', async () => {
    await tab.goto(fixture('/links'))
    const linkUrl = fixture('/linked')
    const { result } = await saved(
      () =>
        browser.inWorker(
          ({ tabId, linkUrl, pageUrl }) =>
            (globalThis as any).readlater.onMenuClick(
              { menuItemId: 'readlater-save-link', linkUrl, pageUrl, editable: false },
              { id: tabId },
            ),
          { tabId, linkUrl, pageUrl: tab.url() },
        ),
      linkUrl,
    )
    expect(result.state).toBe('saved')
    expect(result.withHtml).toBe(false)
    // No page went with it, so the server fetched the link itself.
    await until('the server’s fetch of the link', async () =>
      fixtureRequests.some((r) => r.path === '/linked' && r.agent.startsWith('Readlater/')),
    )
    // The link is not the page: the tab's badge is the page's.
    expect(await badge(tabId)).toBe('')

    // The page menu, and the worker's readlater.saveTab, are the button's one save function.
    const pageUrl = tab.url()
    const byFunction = await saved(
      () => browser.inWorker((id) => (globalThis as any).readlater.saveTab(id), tabId),
      pageUrl,
    )
    expect(byFunction.result).toMatchObject({ state: 'saved', withHtml: true })
    const byMenu = await saved(
      () =>
        browser.inWorker(
          ({ tabId, pageUrl }) =>
            (globalThis as any).readlater.onMenuClick(
              { menuItemId: 'readlater-save-page', pageUrl, editable: false },
              { id: tabId },
            ),
          { tabId, pageUrl },
        ),
      pageUrl,
    )
    expect(byMenu.result.state).toBe('already')
    expect(await badge(tabId)).toBe('✓')
  }, 30_000)

  test('saved while the server is down: "Queued, will retry", then sent once, with the same Idempotency-Key', async () => {
    const url = fixture('/story/offline')
    await tab.goto(url)
    await tab.getByRole('heading', { name: 'The rendered story offline' }).waitFor()
    const port = server.port
    await server.stop()
    const { result } = await saved(() => browser.pressButton(tab), url)
    expect(result.state).toBe('queued')
    const popup = await openPopup()
    await popup.getByRole('heading', { name: 'Queued, will retry' }).waitFor()
    // Kept in storage.local, and an alarm (not a timer: the worker may sleep) set for the first retry, 30 s on.
    const kept = await browser.inWorker(async () => {
      const chrome = (globalThis as any).chrome
      const stored = Object.values(await chrome.storage.local.get(null)).filter((v: any) => v?.key && v?.body) as any[]
      return { stored, alarm: await chrome.alarms.get('readlater-outbox'), now: Date.now() }
    })
    expect(kept.stored.map((entry) => [entry.url, entry.attempts, entry.withHtml])).toEqual([[url, 1, true]])
    expect(kept.alarm.scheduledTime - kept.now).toBeGreaterThan(25_000)
    expect(kept.alarm.scheduledTime - kept.now).toBeLessThanOrEqual(30_000)

    server = await startServer({ ...env, PORT: String(port) })
    const left = await browser.inWorker(() => (globalThis as any).readlater.retryNow())
    expect(left).toEqual([])
    await popup.getByRole('heading', { name: 'Saved' }).waitFor()
    await popup.close()
    expect(await badge(tabId)).toBe('✓')

    const sent = captures.filter((c) => c.url === url)
    expect(sent.length).toBeGreaterThanOrEqual(2)
    expect(new Set(sent.map((c) => c.key)).size).toBe(1)
    const all = (await api('GET', '/v1/saved-items?limit=500')).body.savedItems as { originalUrl: string }[]
    expect(all.filter((i) => i.originalUrl === url)).toHaveLength(1)
    const found = await until('the title', async () => {
      const item = (await api('GET', `/v1/saved-items/lookup?url=${encodeURIComponent(url)}`)).body
      return item.enrichmentStatus !== 'pending' && item
    })
    expect(found.title).toBe('The rendered story offline')
  }, 30_000)

  test('an answer lost on the way back: the retry is replayed by the server, nothing saved twice', async () => {
    const url = fixture('/story/lost')
    await tab.goto(url)
    await tab.getByRole('heading', { name: 'The rendered story lost' }).waitFor()
    // The capture reaches the server, which saves it; the answer never reaches the extension.
    const replies: { status: number; replayed: string | undefined }[] = []
    const keys: (string | undefined)[] = []
    const lose = async (route: Route) => {
      if (JSON.parse(route.request().postData() ?? '{}').url !== url) return route.fallback()
      keys.push(route.request().headers()['idempotency-key'])
      const response = await route.fetch()
      replies.push({ status: response.status(), replayed: response.headers()['idempotent-replayed'] })
      if (replies.length === 1) return route.abort('connectionreset')
      return route.fulfill({ response })
    }
    await browser.context.route((u) => u.pathname === '/v1/captures', lose)
    try {
      const { result } = await saved(() => browser.pressButton(tab), url)
      expect(result.state).toBe('queued')
      await browser.inWorker(() => (globalThis as any).readlater.retryNow())
      const done = await until('the result', async () => {
        const entry = (await results()).find(([, value]) => value.url === url && value.state === 'saved')
        return entry?.[1]
      })
      expect(done.state).toBe('saved')
    } finally {
      await browser.context.unroute((u) => u.pathname === '/v1/captures', lose)
    }
    expect(replies).toEqual([
      { status: 201, replayed: undefined },
      { status: 201, replayed: 'true' },
    ])
    expect(keys).toHaveLength(2)
    expect(keys[0]).toBe(keys[1]!)
    const all = (await api('GET', '/v1/saved-items?limit=500')).body.savedItems as { originalUrl: string }[]
    expect(all.filter((i) => i.originalUrl === url)).toHaveLength(1)
  }, 30_000)

  test('a key revoked in the web settings: the popup and the options page ask to reconnect; reconnecting sends what was kept', async () => {
    await web.goto(`${server.base}/settings`)
    const row = web.getByRole('row').filter({ hasText: 'Readlater for' })
    await row.getByRole('button', { name: 'Revoke' }).click()
    await web.getByRole('row').filter({ hasText: 'Readlater for' }).waitFor({ state: 'detached' })

    const url = fixture('/story/revoked')
    await tab.goto(url)
    await tab.getByRole('heading', { name: 'The rendered story revoked' }).waitFor()
    const { result } = await saved(() => browser.pressButton(tab), url)
    expect(result.state).toBe('reconnect')
    const popup = await openPopup()
    await popup
      .getByText(/reconnect/)
      .first()
      .waitFor()
    expect(await popup.getByRole('button', { name: 'Open options' }).isVisible()).toBe(true)
    await popup.close()

    const options = await connectThroughOptions('Reconnect')
    await options.close()
    // The capture a 401 held goes with the new key, and the tab's popup says so.
    await until('the held capture', async () => {
      const reply = await api('GET', `/v1/saved-items/lookup?url=${encodeURIComponent(url)}`)
      return reply.status === 200
    })
    await until('the tab’s result', async () =>
      (await results()).some(([, value]) => value.url === url && value.state === 'saved'),
    )
    const kept = await browser.inWorker(() => (globalThis as any).readlater.retryNow())
    expect(kept).toEqual([])
  }, 30_000)
})
