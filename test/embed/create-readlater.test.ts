import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, createReadlater, type Readlater } from '../../index.ts'

// docs/embedding.md: one factory, typed options checked like the environment, and a fetch handler that
// can live under a path prefix with its OAuth and MCP discovery documents still right.

const dir = mkdtempSync(join(tmpdir(), 'readlater-embed-'))
const open: Readlater[] = []
afterAll(async () => {
  for (const readlater of open) await readlater.close()
  rmSync(dir, { recursive: true, force: true })
})
let files = 0
async function make(options: Parameters<typeof createReadlater>[0] = {}): Promise<Readlater> {
  const readlater = await createReadlater({
    databaseUrl: `file:${join(dir, `db-${++files}.sqlite`)}`,
    logLevel: 'silent',
    background: false,
    ...options,
  })
  open.push(readlater)
  return readlater
}
const get = (readlater: Readlater, url: string, headers: Record<string, string> = {}) =>
  readlater.fetch(new Request(url, { headers }), { clientIp: '127.0.0.1' })

describe('createReadlater', () => {
  test('builds the whole service: health, OpenAPI, the web app, and the core', async () => {
    const readlater = await make({ baseUrl: 'https://read.example.com' })
    expect(await (await get(readlater, 'https://read.example.com/health')).json()).toEqual({ ok: true })
    const openapi = await (await get(readlater, 'https://read.example.com/openapi.json')).json()
    expect(openapi.paths['/v1/captures']).toBeDefined()
    expect((await get(readlater, 'https://read.example.com/', { accept: 'text/html' })).status).toBe(200)
    expect(readlater.config.baseUrl).toBe('https://read.example.com')
    expect(readlater.core.normalizeUrl('https://WWW.Example.com/a?utm_source=x&b=1').normalizedUrl).toBe(
      'https://example.com/a?b=1',
    )
  })

  test('options are checked like the environment: one ConfigError naming the option', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ rateLimitMax: 0 }, 'rateLimitMax must be an integer ≥ 1, got 0'],
      [{ rateLimitMax: 1.5 }, 'rateLimitMax must be an integer ≥ 1, got 1.5'],
      [{ signup: 'maybe' }, 'signup must be one of open, closed, got "maybe"'],
      [{ enrichment: 'on' }, 'enrichment must be true or false, got "on"'],
      [{ baseUrl: 'not a url' }, 'baseUrl must be an absolute http(s) URL, got "not a url"'],
      [
        { baseUrl: 'https://read.example.com/?q=1' },
        'baseUrl must not have a query or fragment, got "https://read.example.com/?q=1"',
      ],
      [{ encryptionKey: 'short' }, 'encryptionKey must be at least 32 characters, got 5'],
      [{ databaseUrl: 'postgres://x' }, 'databaseUrl must start with file:, libsql:, http: or https:, got "postgres:"'],
      [
        { mcpAllowedOrigins: ['https://agent.example/app'] },
        'mcpAllowedOrigins must list origins (https://host[:port]) or *, got "https://agent.example/app"',
      ],
      [{ mcpAllowedOrigins: 'https://agent.example' }, 'mcpAllowedOrigins must be a list of origins'],
      [{ ratelimitMax: 5 }, 'unknown option "ratelimitMax"'],
    ]
    for (const [options, message] of cases) {
      const error = await createReadlater(options as never).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message).toBe(message)
    }
  })

  test('close stops it and closes the database; closing twice is fine', async () => {
    const readlater = await createReadlater({
      databaseUrl: `file:${join(dir, 'closing.sqlite')}`,
      logLevel: 'silent',
    })
    expect((await get(readlater, 'http://localhost:3000/health')).status).toBe(200)
    await readlater.close()
    await readlater.close()
    // A database that is closed answers no more: /health says so instead of hanging.
    expect((await get(readlater, 'http://localhost:3000/health')).status).toBe(503)
  })
})

describe('under a path prefix (docs/embedding.md#mounting)', () => {
  const base = 'https://apps.example.com/readlater'

  test('a request reaches the service with the prefix (a proxy, Bun.serve) or without it (a framework’s mount)', async () => {
    const readlater = await make({ baseUrl: base })
    expect((await get(readlater, `${base}/health`)).status).toBe(200)
    expect((await get(readlater, `${base}/v1/saved-items`)).status).toBe(401)
    // What Elysia's and Hono's mount pass on: the prefix already stripped.
    expect((await get(readlater, 'https://apps.example.com/health')).status).toBe(200)
    expect((await get(readlater, 'https://apps.example.com/v1/saved-items')).status).toBe(401)
    // A path that only starts like the prefix is not below it.
    expect((await get(readlater, 'https://apps.example.com/readlaterx/health')).status).toBe(404)
  })

  test('the 401 names resource metadata that answers, for the API and for MCP, with the prefixed resources', async () => {
    const readlater = await make({ baseUrl: base })
    for (const [path, resource] of [
      ['/v1/saved-items', base],
      ['/mcp', `${base}/mcp`],
    ] as const) {
      const refused = await readlater.fetch(
        new Request(`${base}${path}`, { method: path === '/mcp' ? 'POST' : 'GET' }),
        { clientIp: '127.0.0.1' },
      )
      expect(refused.status).toBe(401)
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(refused.headers.get('www-authenticate') ?? '')![1]!
      expect(metadataUrl.startsWith(base)).toBe(true)
      const metadata = await (await get(readlater, metadataUrl)).json()
      expect(metadata.resource).toBe(resource)
      expect(metadata.authorization_servers).toEqual([`${base}/api/auth`])
    }
  })

  test('RFC 8414 and RFC 9728 documents at the host root, the prefix appended, answer with the prefixed issuer', async () => {
    const readlater = await make({ baseUrl: base })
    for (const path of [
      '/.well-known/oauth-authorization-server/readlater/api/auth',
      '/.well-known/openid-configuration/readlater/api/auth',
    ]) {
      const metadata = await (await get(readlater, `https://apps.example.com${path}`)).json()
      expect(metadata.issuer).toBe(`${base}/api/auth`)
      expect(metadata.authorization_endpoint).toBe(`${base}/api/auth/oauth2/authorize`)
      expect(metadata.token_endpoint).toBe(`${base}/api/auth/oauth2/token`)
    }
    const resource = await (
      await get(readlater, 'https://apps.example.com/.well-known/oauth-protected-resource/readlater/mcp')
    ).json()
    expect(resource.resource).toBe(`${base}/mcp`)
  })
})
