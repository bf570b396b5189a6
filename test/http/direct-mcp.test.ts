import { beforeAll, describe, expect, test } from 'bun:test'
import { directMcp } from '../../adapters/http/mcp/direct-post.ts'
import type { AppDeps } from '../../adapters/app/deps.ts'
import { issueAccessToken } from '../../adapters/oauth/access-tokens.ts'
import { insertClient, insertGrantWithCode } from '../../adapters/storage/oauth.ts'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { uuidv7 } from '../../core/ids.ts'
import { BASE, createHarness, random, type Harness } from '../helpers/harness.ts'
import { answerShape, headerNames } from '../helpers/answer-shape.ts'

// The direct MCP path (adapters/http/mcp/direct-post.ts, docs/benchmarks.md#mcps-list) answers `POST /mcp` past
// Elysia's lifecycle. The app's route and its guard stay the reference: the same requests sent both ways get
// the same status, body and headers (but the request id and the rate-limit counts, which move with every
// request), and what the direct path does not take it leaves to the app before counting or reading anything.
// Runs on the three drivers (test/http is in test:libsql and test:client).

let h: Harness
let deps: AppDeps
let key: string
let readOnly: string
let revoked: string
let other: string
let mcpToken: string
let restToken: string
let direct: ReturnType<typeof directMcp>

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_MAX: '1000000', LIST_CACHE_MB: '0' } })
  const person = await h.user()
  key = await person.key()
  readOnly = await person.key(['saved-items:read'])
  revoked = await person.key()
  await h.db.$client.execute({
    sql: 'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?',
    args: ['2026-01-01T00:00:00.000Z', hashApiKey(revoked)],
  })
  other = await (await h.user('someone-else@example.com')).key()
  for (let i = 0; i < 5; i++)
    await h.call('POST', '/v1/captures', { token: key, body: { url: `https://example.com/mcp-${i}` } })
  deps = { db: h.db, config: h.config, clock: h.clock, random, log: () => {} }
  direct = directMcp(deps)
  // An OAuth access token for `{base}/mcp`, and one for the REST API, under one grant of the person's.
  const at = h.clock.now().toISOString()
  const clientId = 'direct-mcp-client'
  await insertClient(h.db, {
    id: clientId,
    name: 'direct MCP client',
    redirectUris: ['https://client.example/cb'],
    grantTypes: ['authorization_code'],
    scope: null,
    metadata: {},
    createdAt: at,
  })
  const token = async (resource: string) => {
    const grantId = uuidv7(h.clock.now().getTime(), random)
    await insertGrantWithCode(
      h.db,
      {
        id: grantId,
        userId: person.id,
        clientId,
        scopes: ['saved-items:read', 'account:read'],
        resource,
        createdAt: at,
      },
      {
        codeHash: `code-${grantId}`,
        grantId,
        clientId,
        redirectUri: 'https://client.example/cb',
        codeChallenge: 'x'.repeat(43),
        expiresAt: at,
      },
    )
    return issueAccessToken(deps, {
      grantId,
      userId: person.id,
      clientId,
      scope: 'saved-items:read account:read',
      audience: resource,
    })
  }
  mcpToken = await token(`${BASE}/mcp`)
  restToken = await token(BASE)
})

const make = (token: string | null, body: string, headers: Record<string, string> = {}, path = '/mcp') =>
  new Request(`${BASE}${path}`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers, ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    body,
  })

/** Both ways: the service's fetch (direct where it takes the request) and the app alone (the reference). */
async function both(token: string | null, body: string, headers: Record<string, string> = {}, path = '/mcp') {
  const viaService = await h.server.fetch(make(token, body, headers, path), { clientIp: '127.0.0.1' })
  const reference = await h.server.app.handle(make(token, body, headers, path))
  return { direct: await answerShape(viaService), reference: await answerShape(reference) }
}

const takes = async (token: string | null, headers: Record<string, string> = {}, path = '/mcp') => {
  const taking = direct(make(token, '{}', headers, path), path)
  return taking === null ? false : (await taking) !== null
}

const call = (name: string, args: Record<string, unknown> = {}, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })

describe('the direct MCP path answers as the app does', () => {
  test('the calls agents make, and the messages the SDK answers: the same answers', async () => {
    const messages: [string, Record<string, string>?][] = [
      [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })],
      [call('list_saved_items', { limit: 2 })],
      [call('list_saved_items', { sort: 'title', limit: 3 }, 'a-string-id')],
      [call('list_saved_items', { folder: 'none' })],
      [call('whoami')],
      [call('list_folders')],
      [call('no_such_tool')],
      [call('list_saved_items', { limit: 0 })],
      [call('list_saved_items', { cursor: 'not-a-cursor' })],
      [
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      ],
      [JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })],
      [JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })],
      [JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }])],
      [call('list_saved_items', { limit: 1 }), { 'content-type': 'application/json; charset=utf-8' }],
      [call('list_saved_items', { limit: 1 }), { 'mcp-protocol-version': '1999-01-01' }],
      [call('list_saved_items', { limit: 1 }), { accept: 'application/json' }],
    ]
    for (const [body, headers] of messages) {
      expect(await takes(key, headers)).toBe(true)
      const { direct, reference } = await both(key, body, headers)
      expect(direct).toEqual(reference)
    }
    // The answers are the service's own, not refusals: a list page, and the SDK's.
    const listed = await both(key, call('list_saved_items', { limit: 2 }))
    expect(listed.direct.status).toBe(200)
    expect(JSON.parse(listed.direct.body).result.structuredContent.savedItems).toHaveLength(2)
    expect(listed.direct.headers).toContainEqual(['access-control-allow-origin', '*'])
  })

  test('following the cursor page by page gives the same pages both ways', async () => {
    let cursor: string | null = null
    let pages = 0
    do {
      const { direct, reference } = await both(
        key,
        call('list_saved_items', { limit: 2, ...(cursor ? { cursor } : {}) }),
      )
      expect(direct).toEqual(reference)
      cursor = JSON.parse(direct.body).result.structuredContent.nextCursor
      pages++
    } while (cursor !== null)
    expect(pages).toBe(3)
  })

  test('bodies the guard refuses: the same parse error, 400, 415 and 413 both ways', async () => {
    const cases: [string, Record<string, string>, number][] = [
      ['not json', {}, 400],
      ['['.repeat(40) + ']'.repeat(40), {}, 400],
      [call('whoami'), { 'content-type': 'text/plain' }, 415],
      [call('list_saved_items', { padding: 'x'.repeat(70 * 1024) }), {}, 413],
    ]
    for (const [body, headers, status] of cases) {
      expect(await takes(key, headers)).toBe(true)
      const { direct, reference } = await both(key, body, headers)
      expect(direct.status).toBe(status)
      expect(direct).toEqual(reference)
    }
  })

  test('a tool the credential has no scope for: the same 403 and step-up challenge', async () => {
    expect(await takes(readOnly)).toBe(true)
    const { direct, reference } = await both(readOnly, call('save_url', { url: 'https://example.com/never' }))
    expect(direct.status).toBe(403)
    expect(direct.headers.find(([name]) => name === 'www-authenticate')?.[1]).toContain('insufficient_scope')
    expect(direct).toEqual(reference)
    expect((await h.call('GET', '/v1/saved-items', { token: key })).body.savedItems).toHaveLength(5)
  })

  test('another person sees only their own items, the same both ways', async () => {
    const { direct, reference } = await both(other, call('list_saved_items'))
    expect(JSON.parse(direct.body).result.structuredContent).toEqual({ savedItems: [], nextCursor: null })
    expect(direct).toEqual(reference)
  })

  test('an OAuth access token for /mcp is taken; one for the REST API is refused by the app', async () => {
    expect(await takes(mcpToken)).toBe(true)
    for (const body of [
      call('list_saved_items', { limit: 2 }),
      call('whoami'),
      call('save_url', { url: 'https://x.example/' }),
    ]) {
      const { direct, reference } = await both(mcpToken, body)
      expect(direct).toEqual(reference)
    }
    expect(await takes(restToken)).toBe(false)
    const { direct, reference } = await both(restToken, call('whoami'))
    expect(direct.status).toBe(401)
    expect(direct).toEqual(reference)
  })

  test('what it does not take goes to the app, uncounted: the same answers', async () => {
    const cases: [string | null, Record<string, string>, string?][] = [
      [revoked, {}],
      ['rlk_not-a-key-at-all-but-shaped-like-one-aaaaaaa', {}],
      [null, {}],
      ['header.payload.signature', {}],
      [key, { origin: 'http://localhost:5173' }],
      [key, { origin: 'https://evil.example' }],
      [key, {}, '/mcp/'],
    ]
    for (const [token, headers, path] of cases) {
      expect(await takes(token, headers, path)).toBe(false)
      const { direct, reference } = await both(token, call('list_saved_items', { limit: 1 }), headers, path)
      expect(direct).toEqual(reference)
    }
    // Only a POST is taken: GET and DELETE are the route's 405.
    expect(direct(new Request(`${BASE}/mcp`, { headers: { authorization: `Bearer ${key}` } }), '/mcp')).toBeNull()
  })

  test('past the credential limit: the same 429 both ways', async () => {
    const limited = await createHarness({ env: { RATE_LIMIT_MAX: '2' } })
    const token = await (await limited.user()).key()
    const ask = (viaApp: boolean) => {
      const request = make(token, call('list_saved_items'))
      return viaApp ? limited.server.app.handle(request) : limited.server.fetch(request, { clientIp: '127.0.0.1' })
    }
    expect((await ask(false)).status).toBe(200)
    expect((await ask(false)).status).toBe(200)
    const viaService = await ask(false)
    const reference = await ask(true)
    expect(viaService.status).toBe(429)
    expect(reference.status).toBe(429)
    expect(headerNames(viaService)).toEqual(headerNames(reference))
    expect(headerNames(viaService)).toContain('retry-after')
    expect((await viaService.json())._tag).toBe((await reference.json())._tag)
  })
})
