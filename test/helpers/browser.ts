import { afterAll, beforeAll } from 'bun:test'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core'
import type { AppDeps } from '../../adapters/app/deps.ts'
import type { Server } from '../../adapters/http/app.ts'
import { createHarness, type Harness } from './harness.ts'

// Real browser tests: Debian's Chromium driven by playwright-core (never a downloaded browser).
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // The machine has no outside network: keep Chromium from trying to reach Google at start.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  })
}

export interface LiveServer {
  url: string
  harness: Harness
  stop(): Promise<void>
}

/**
 * The whole service on a real loopback port (BASE_URL = APP_URL = that address), backed by a harness so
 * tests can also reach the database and clock. Uses the real wall clock unless one is given.
 */
export async function startLiveServer(
  options: { env?: Record<string, string>; dbUrl?: string; fetchClientMetadata?: AppDeps['fetchClientMetadata'] } = {},
): Promise<LiveServer> {
  let handler: Server['fetch'] | null = null
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request, bun) => handler!(request, bun) })
  const url = `http://127.0.0.1:${server.port}`
  const harness = await createHarness({
    env: { BASE_URL: url, APP_URL: url, ...options.env },
    dbUrl: options.dbUrl,
    clock: { current: 0, now: () => new Date(), advance() {} } as never,
    ...(options.fetchClientMetadata ? { fetchClientMetadata: options.fetchClientMetadata } : {}),
  })
  handler = harness.server.fetch
  return {
    url,
    harness,
    stop: async () => {
      await server.stop(true)
    },
  }
}

/**
 * A live server and a Chromium for one test file, started before its tests and stopped after them (with
 * every context the file opened). `newPage` gives a page in a fresh context; a browser lost to an earlier
 * failure is replaced, so one failure does not fail every later test.
 */
export function browserSuite(env: Record<string, string> = { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000' }) {
  let live: LiveServer
  let browser: Browser
  const contexts: BrowserContext[] = []
  beforeAll(async () => {
    ;[live, browser] = await Promise.all([startLiveServer({ env }), launchBrowser()])
  })
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await live?.stop()
  })
  return {
    get live(): LiveServer {
      return live
    },
    async newPage(options: BrowserContextOptions = {}): Promise<Page> {
      if (!browser.isConnected()) browser = await launchBrowser()
      // The offline worker (docs/web.md#offline) is blocked unless a test asks for it: it would answer the
      // pages' requests itself, out of reach of page.route and of the request lists the tests keep.
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        serviceWorkers: 'block',
        ...options,
      })
      context.setDefaultTimeout(15_000)
      contexts.push(context)
      return context.newPage()
    },
  }
}

/** Signs in through the form, as a person does, and waits for the queue. */
export async function signInThroughForm(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL(`${baseUrl}/`)
}
