import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../core/auth/api-keys.ts'
import { uuidv7 } from '../../core/ids.ts'
import type { Clock, RandomSource, Scope } from '../../core/types.ts'
import { SCOPES } from '../../core/types.ts'
import { readConfig, type Config } from '../../adapters/config.ts'
import { createServer, type Server } from '../../adapters/http/app.ts'
import type { AppDeps, Log } from '../../adapters/app/deps.ts'
import { insertApiKey } from '../../adapters/storage/api-keys.ts'
import { openDatabase, type Database } from '../../adapters/storage/open-database.ts'
import { insertUser } from '../../adapters/storage/users.ts'
import { checkResponseAgainstOpenApi } from './openapi-contract.ts'

export const BASE = 'http://localhost:3000'

/**
 * The driver the in-process tests use: the embedded one of this runtime (bun:sqlite on Bun), or with
 * `READLATER_TEST_DRIVER=libsql` libsql's native engine (what Deno and Node use), or with `client` the
 * @libsql/client driver of remote databases on a temporary file. `npm test` runs all three.
 */
export const TEST_DRIVER: 'embedded' | 'libsql' | 'client' =
  process.env.READLATER_TEST_DRIVER === 'client'
    ? 'client'
    : process.env.READLATER_TEST_DRIVER === 'libsql'
      ? 'libsql'
      : 'embedded'
let databases = 0
const tempDir = TEST_DRIVER === 'client' ? mkdtempSync(join(tmpdir(), 'readlater-client-')) : ''

function defaultDatabaseUrl(): string {
  return TEST_DRIVER === 'client' ? `file:${join(tempDir, `h-${++databases}.db`)}` : 'file::memory:'
}

/** A clock tests move by hand. */
export class TestClock implements Clock {
  current: number
  constructor(start = Date.parse('2026-11-22T10:00:00.000Z')) {
    this.current = start
  }
  now(): Date {
    return new Date(this.current)
  }
  advance(ms: number): void {
    this.current += ms
  }
}

export const random: RandomSource = { fill: (bytes) => crypto.getRandomValues(bytes) }

export interface Harness {
  db: Database
  server: Server
  clock: TestClock
  config: Config
  logs: Record<string, unknown>[]
  /** Sends a request through the whole pipeline and checks the answer against /openapi.json. */
  call(method: string, path: string, options?: CallOptions): Promise<Reply>
  user(email?: string): Promise<TestUser>
}

export interface CallOptions {
  token?: string
  body?: unknown
  raw?: BodyInit
  headers?: Record<string, string>
  /** Client IP the server sees (default 127.0.0.1). */
  ip?: string
  /** Skip the OpenAPI response check (for deliberately undocumented answers such as /openapi.json itself). */
  unchecked?: boolean
}

export interface Reply {
  status: number
  headers: Headers
  body: any
  text: string
}

export interface TestUser {
  id: string
  email: string
  key(scopes?: readonly Scope[], options?: { connectClient?: string }): Promise<string>
}

let counter = 0

export async function createHarness(
  options: {
    env?: Record<string, string>
    dbUrl?: string
    clock?: TestClock
    fetchClientMetadata?: AppDeps['fetchClientMetadata']
  } = {},
): Promise<Harness> {
  const config = readConfig({ BASE_URL: BASE, ...options.env })
  const db = await openDatabase(options.dbUrl ?? defaultDatabaseUrl(), undefined, { driver: TEST_DRIVER })
  const clock = options.clock ?? new TestClock()
  const logs: Record<string, unknown>[] = []
  const log: Log = (level, fields) => logs.push({ level, ...fields })
  const server = createServer({
    db,
    config,
    clock,
    random,
    log,
    ...(options.fetchClientMetadata ? { fetchClientMetadata: options.fetchClientMetadata } : {}),
  })
  const harness: Harness = {
    db,
    server,
    clock,
    config,
    logs,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers }
      if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`
      let body: BodyInit | undefined = opts.raw
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body)
        headers['content-type'] ??= 'application/json'
      }
      const response = await server.fetch(new Request(BASE + path, { method, headers, body }), {
        clientIp: opts.ip ?? '127.0.0.1',
      })
      const text = await response.text()
      let parsed: unknown = undefined
      try {
        parsed = text ? JSON.parse(text) : undefined
      } catch {
        parsed = text
      }
      const reply = { status: response.status, headers: response.headers, body: parsed, text }
      if (!opts.unchecked) await checkResponseAgainstOpenApi(server, method, path, reply)
      return reply
    },
    async user(email) {
      const id = uuidv7(clock.now().getTime(), random)
      const address = email ?? `person${++counter}-${id.slice(-6)}@example.com`
      await insertUser(db, { id, email: address, passwordHash: 'unused', createdAt: clock.now().toISOString() })
      return {
        id,
        email: address,
        async key(scopes = SCOPES, keyOptions = {}) {
          const key = generateApiKey(random)
          await insertApiKey(db, {
            id: uuidv7(clock.now().getTime(), random),
            userId: id,
            keyHash: hashApiKey(key),
            prefix: apiKeyDisplayPrefix(key),
            label: 'test',
            scopes: [...scopes],
            connectClient: keyOptions.connectClient ?? null,
            createdAt: clock.now().toISOString(),
          })
          return key
        },
      }
    },
  }
  return harness
}

/** Row count of a table, for "nothing was written" assertions. */
export async function countRows(db: Database, table: string): Promise<number> {
  const result = await db.$client.execute(`SELECT count(*) AS n FROM ${table}`)
  return Number(result.rows[0]!.n)
}
