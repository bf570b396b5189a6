import { chromium, type Browser } from 'playwright-core'
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
