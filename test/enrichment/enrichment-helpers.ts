import { expect } from 'bun:test'
import { guardedFetch, type GuardedFetchOptions } from '../../adapters/enrichment/guarded-fetch.ts'
import {
  startEnrichmentWorkers,
  type EnrichmentWorkerDeps,
  type EnrichmentWorkers,
} from '../../adapters/jobs/enrichment-worker.ts'
import type { Log } from '../../adapters/app/deps.ts'
import type { ImageArchiving } from '../../adapters/jobs/archive-images.ts'
import { fetchImage } from '../../adapters/enrichment/image-fetch.ts'
import { archivedImageUrl } from '../../core/reading/archived-image-url.ts'
import type { Database } from '../../adapters/storage/open-database.ts'
import { readPage, type PageName } from '../fixtures/pages/read-page.ts'
import { createHarness, type Harness, type TestClock } from '../helpers/harness.ts'

// Shared pieces of the enrichment integration tests: a fixture web server that records what it was asked
// for, workers bound to a harness, the queue row of an item, and polling for a state (never a duration).

export const USER_AGENT = 'ReadlaterTest/1.0 (+http://localhost:3000)'

/** Anything started by a test, stopped in afterEach so the next test starts from nothing. */
const cleanups: Array<() => unknown> = []

export async function cleanUp(): Promise<void> {
  // Workers first (they may still be fetching from the fixture servers), then servers and files.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}

export function onCleanUp(cleanup: () => unknown): void {
  cleanups.push(cleanup)
}

type Handler = (request: Request, url: URL) => Response | Promise<Response>

export interface FixtureServer {
  port: number
  origin: string
  /** Path and query of every request received, in order. */
  requests: string[]
  /** Serves `path` (exact pathname) with `handler` from now on. */
  route(path: string, handler: Handler): void
  /** How many requests asked for this pathname. */
  count(path: string): number
}

/** A web server on 127.0.0.1 that records every request; unknown paths answer 404. */
export function fixtureServer(): FixtureServer {
  const requests: string[] = []
  const routes = new Map<string, Handler>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url)
      requests.push(url.pathname + url.search)
      const handler = routes.get(url.pathname)
      return handler ? handler(request, url) : new Response('not here', { status: 404 })
    },
  })
  onCleanUp(() => server.stop(true))
  const port = server.port ?? 0
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    route: (path, handler) => void routes.set(path, handler),
    count: (path) => requests.filter((request) => new URL(request, 'http://x').pathname === path).length,
  }
}

/** A sample page, served as is and, like the core fixture test, without a charset parameter. */
export const samplePage = (name: PageName): Response =>
  new Response(new Uint8Array(readPage(name)), { headers: { 'content-type': 'text/html' } })

export const htmlPage = (body: string | Uint8Array<ArrayBuffer>, status = 200): Response =>
  new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8' } })

export const redirectTo = (location: string, status = 302): Response =>
  new Response(null, { status, headers: { location } })

/** A sorted copy, for comparing what arrived in no particular order. */
export const sorted = (values: readonly string[]): string[] => [...values].sort()

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `probe` until it returns something other than null/undefined; a generous deadline, no timing claims. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined> | T | null | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== null && value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

export interface Setup {
  h: Harness
  key: string
  fixtures: FixtureServer
  /** A log function writing into `h.logs`, for the workers. */
  log: Log
}

/** A harness (in-memory unless `dbUrl`), a person with a full API key, and an empty fixture server. */
export async function setup(options: { dbUrl?: string; clock?: TestClock } = {}): Promise<Setup> {
  const h = await createHarness({
    env: { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000' },
    ...(options.dbUrl === undefined ? {} : { dbUrl: options.dbUrl }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  })
  const key = await (await h.user()).key()
  const log: Log = (level, fields) => void h.logs.push({ level, ...fields })
  return { h, key, fixtures: fixtureServer(), log }
}

/** The guarded fetch as the worker calls it. */
export function fetcher(
  options: Partial<GuardedFetchOptions> & { allowPrivate: boolean },
): EnrichmentWorkerDeps['fetchPage'] {
  return (url) => guardedFetch(url, { userAgent: USER_AGENT, ...options })
}

/** Image archiving as production wires it (adapters/jobs/enrichment-start.ts), through the guard with `options`. */
export function archiving(
  h: Harness,
  options: Partial<GuardedFetchOptions> & { allowPrivate: boolean },
  extra: Partial<ImageArchiving> = {},
): ImageArchiving {
  return {
    fetchImage: (url, limits) => fetchImage(url, { userAgent: USER_AGENT, ...options }, limits),
    urlOf: (itemId, n) => archivedImageUrl(h.config.appUrl, itemId, n),
    ...extra,
  }
}

/** Workers on `db` with the harness clock and a short poll, stopped in afterEach. */
export function startWorkers(
  s: { h: Harness; log: Log },
  fetchPage: EnrichmentWorkerDeps['fetchPage'],
  options: { db?: Database; log?: Log; concurrency?: number; images?: ImageArchiving } = {},
): EnrichmentWorkers {
  const workers = startEnrichmentWorkers(
    {
      db: options.db ?? s.h.db,
      clock: s.h.clock,
      log: options.log ?? s.log,
      fetchPage,
      ...(options.images ? { images: options.images } : {}),
    },
    { concurrency: options.concurrency ?? 4, pollMs: 10 },
  )
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    await workers.stop()
  }
  onCleanUp(stop)
  return { stop }
}

/** POST /v1/captures; returns the saved item. */
export async function capture(h: Harness, key: string, url: string, tags?: string[]): Promise<any> {
  const reply = await h.call('POST', '/v1/captures', { token: key, body: tags === undefined ? { url } : { url, tags } })
  expect([200, 201]).toContain(reply.status)
  return reply.body.savedItem
}

export async function restItems(h: Harness, key: string): Promise<any[]> {
  const reply = await h.call('GET', '/v1/saved-items?limit=500', { token: key })
  expect(reply.status).toBe(200)
  return reply.body.savedItems
}

export async function restItem(h: Harness, key: string, id: string): Promise<any> {
  return (await restItems(h, key)).find((item) => item.id === id) ?? null
}

/** The MCP tool list_saved_items, as raw JSON-RPC over POST /mcp. */
export async function mcpItems(h: Harness, key: string): Promise<any[]> {
  const reply = await h.call('POST', '/mcp', {
    token: key,
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
    },
    raw: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_saved_items', arguments: { limit: 500 } },
    }),
    unchecked: true,
  })
  expect(reply.status).toBe(200)
  expect(reply.body.result.isError).toBeFalsy()
  return reply.body.result.structuredContent.savedItems
}

/** Waits until the item (read through the REST list) has the given enrichment status; returns it. */
export function waitForStatus(
  h: Harness,
  key: string,
  id: string,
  status: 'pending' | 'enriched' | 'failed',
): Promise<any> {
  return waitFor(`item ${id} to be ${status}`, async () => {
    const item = await restItem(h, key, id)
    return item?.enrichmentStatus === status ? item : null
  })
}

export interface JobRow {
  attempts: number
  runAfterMs: number
  leaseUntilMs: number | null
  lastError: string | null
}

/** The item's row in the queue, or null when it has none. */
export async function jobRow(db: Database, itemId: string): Promise<JobRow | null> {
  const result = await db.$client.execute({
    sql: 'SELECT attempts, run_after_ms, lease_until_ms, last_error FROM enrichment_jobs WHERE item_id = ?',
    args: [itemId],
  })
  const row = result.rows[0]
  if (!row) return null
  return {
    attempts: Number(row.attempts),
    runAfterMs: Number(row.run_after_ms),
    leaseUntilMs: row.lease_until_ms === null ? null : Number(row.lease_until_ms),
    lastError: row.last_error === null ? null : String(row.last_error),
  }
}

/** Waits until the job has been put back after `attempts` failed attempts (no lease, a due time set). */
export function waitForRetry(db: Database, itemId: string, attempts: number): Promise<JobRow> {
  return waitFor(`job ${itemId} to wait for a retry after attempt ${attempts}`, async () => {
    const row = await jobRow(db, itemId)
    return row && row.attempts === attempts && row.leaseUntilMs === null && row.lastError !== null ? row : null
  })
}

/** The worker's log lines about one item. */
export function enrichmentLogs(h: Harness, itemId: string): Record<string, unknown>[] {
  return h.logs.filter((line) => line.msg === 'enrichment' && line.itemId === itemId)
}

/** The item's log lines once there are `count` of them: a line is written just after the result is stored. */
export function waitForLogs(h: Harness, itemId: string, count: number): Promise<Record<string, unknown>[]> {
  return waitFor(`${count} enrichment log lines for ${itemId}`, () => {
    const lines = enrichmentLogs(h, itemId)
    return lines.length >= count ? lines : null
  })
}
