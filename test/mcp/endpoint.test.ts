import { describe, expect, test } from 'bun:test'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { TOOLS } from '../../core/mcp/tools.ts'
import { SCOPES, type Scope } from '../../core/types.ts'
import { BASE, countRows, createHarness, type Harness, type Reply } from '../helpers/harness.ts'
import { registerClient, signedIn, tokensFor } from '../oauth/oauth-helpers.ts'

// The HTTP behaviour of {base}/mcp, in process: who gets in (docs/security.md#credentials: audience {base}/mcp, API keys,
// never the session cookie), which calls are refused before dispatch (scope per tools/call, body limits),
// and the transport answers (stateless JSON, 405 for GET/DELETE, CORS).

const METADATA = `${BASE}/.well-known/oauth-protected-resource/mcp`
const DEFAULT_SCOPE = 'saved-items:capture saved-items:read saved-items:write folders:read folders:write account:read'
const NO_CREDENTIAL_CHALLENGE = `Bearer resource_metadata="${METADATA}", scope="${DEFAULT_SCOPE}"`
const INVALID_TOKEN_CHALLENGE = `Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", resource_metadata="${METADATA}", scope="${DEFAULT_SCOPE}"`
const UNAUTHORIZED_BODY = { _tag: 'Unauthorized', message: expect.any(String) }

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }

function initialize(protocolVersion = '2025-11-25', id = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'endpoint-test', version: '1.0.0' } },
  }
}
const toolsList = (id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/list' })
const toolsCall = (name: string, args: Record<string, unknown> = {}, id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})

interface PostOptions {
  token?: string
  headers?: Record<string, string>
  path?: string
}

/** A raw POST /mcp: `message` is serialized as is, a string is sent verbatim. */
function post(h: Harness, message: unknown, options: PostOptions = {}): Promise<Reply> {
  const isInitialize =
    typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize'
  const headers: Record<string, string> = {
    ...HEADERS,
    ...(isInitialize ? {} : { 'mcp-protocol-version': '2025-11-25' }),
    ...options.headers,
  }
  return h.call('POST', options.path ?? '/mcp', {
    token: options.token,
    headers,
    raw: typeof message === 'string' ? message : JSON.stringify(message),
    unchecked: true,
  })
}

/** Every row a tool could write, so "nothing was written" also catches a changed read state or name. */
async function snapshot(h: Harness): Promise<unknown> {
  const items = await h.db.$client.execute('SELECT * FROM saved_items ORDER BY id')
  const folders = await h.db.$client.execute('SELECT * FROM folders ORDER BY id')
  const highlights = await h.db.$client.execute('SELECT * FROM highlights ORDER BY id')
  return {
    items: items.rows,
    folders: folders.rows,
    highlights: highlights.rows,
    itemCount: await countRows(h.db, 'saved_items'),
    folderCount: await countRows(h.db, 'folders'),
  }
}

function expectUnauthorized(reply: Reply, challenge: string): void {
  expect(reply.status).toBe(401)
  expect(reply.body).toEqual(UNAUTHORIZED_BODY)
  expect(reply.headers.get('www-authenticate')).toBe(challenge)
  expect(reply.headers.get('access-control-allow-origin')).toBe('*')
}

async function setup(env: Record<string, string> = {}) {
  const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000', ...env } })
  const user = await h.user()
  return { h, user, key: await user.key() }
}

describe('POST /mcp without a usable credential', () => {
  test('no credential: 401 Unauthorized, the /mcp resource metadata and the default scope hint, CORS', async () => {
    const { h } = await setup()
    expectUnauthorized(await post(h, initialize()), NO_CREDENTIAL_CHALLENGE)
  })

  test('a garbage token, an unknown API key and a revoked API key: 401 with error="invalid_token"', async () => {
    const { h, key } = await setup()
    expectUnauthorized(await post(h, initialize(), { token: 'not-a-token' }), INVALID_TOKEN_CHALLENGE)
    expectUnauthorized(await post(h, initialize(), { token: `rlk_${'A'.repeat(43)}` }), INVALID_TOKEN_CHALLENGE)
    // The same key works until it is revoked, so the refusal below is the revocation's doing.
    expect((await post(h, initialize(), { token: key })).status).toBe(200)
    await h.db.$client.execute({
      sql: 'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?',
      args: [h.clock.now().toISOString(), hashApiKey(key)],
    })
    expectUnauthorized(await post(h, initialize(), { token: key }), INVALID_TOKEN_CHALLENGE)
  })

  test('a token only in the query string is ignored: 401 as if none was sent', async () => {
    const { h, key } = await setup()
    expectUnauthorized(await post(h, initialize(), { path: `/mcp?access_token=${key}` }), NO_CREDENTIAL_CHALLENGE)
  })

  test('the web session cookie alone does not get in, though it works on the REST API', async () => {
    const { h } = await setup()
    const browser = await signedIn(h)
    const cookieHeaders = { cookie: browser.cookie, 'x-csrf-token': browser.csrf }
    const me = await h.call('GET', '/v1/me', { headers: cookieHeaders })
    expect(me.status).toBe(200)
    expect(me.body.id).toBe(browser.userId)
    expectUnauthorized(await post(h, initialize(), { headers: cookieHeaders }), NO_CREDENTIAL_CHALLENGE)
  })
})

describe('OAuth access tokens: /mcp takes only audience {base}/mcp', () => {
  test('a token for {base} gets 401 on /mcp; a token for {base}/mcp works there and gets 401 on /v1', async () => {
    const { h } = await setup()
    const clientId = (await registerClient(h)).client_id
    const browser = await signedIn(h)
    const scope = 'saved-items:read account:read'
    const rest = await tokensFor(h, { clientId, browser, scope, resource: null })
    const mcp = await tokensFor(h, { clientId, browser, scope, resource: `${BASE}/mcp` })

    expect((await h.call('GET', '/v1/saved-items', { token: rest.access_token })).status).toBe(200)
    expectUnauthorized(await post(h, initialize(), { token: rest.access_token }), INVALID_TOKEN_CHALLENGE)

    const whoami = await post(h, toolsCall('whoami'), { token: mcp.access_token })
    expect(whoami.status).toBe(200)
    expect(whoami.body.result.structuredContent).toEqual({ id: browser.userId, email: expect.any(String) })
    const onRest = await h.call('GET', '/v1/saved-items', { token: mcp.access_token })
    expect(onRest.status).toBe(401)
    expect(onRest.body).toEqual(UNAUTHORIZED_BODY)
    expect(onRest.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })

  test('the step-up challenge of a grant with offline_access keeps offline_access, so re-authorizing keeps the refresh token', async () => {
    const { h } = await setup()
    const clientId = (await registerClient(h)).client_id
    const browser = await signedIn(h)
    const withRefresh = await tokensFor(h, {
      clientId,
      browser,
      scope: 'saved-items:read offline_access',
      resource: `${BASE}/mcp`,
    })
    expect(withRefresh.refresh_token).toEqual(expect.any(String))
    const refused = await post(h, toolsCall('delete_folder', { id: 'x' }), { token: withRefresh.access_token })
    expect(refused.status).toBe(403)
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="saved-items:read offline_access folders:delete", resource_metadata="${METADATA}"`,
    )

    const withoutRefresh = await tokensFor(h, { clientId, browser, scope: 'saved-items:read', resource: `${BASE}/mcp` })
    const refusedToo = await post(h, toolsCall('delete_folder', { id: 'x' }), { token: withoutRefresh.access_token })
    expect(refusedToo.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="saved-items:read folders:delete", resource_metadata="${METADATA}"`,
    )
  })
})

describe('POST /mcp with an API key', () => {
  test('initialize: 200 JSON with the protocol version and serverInfo, and no session id (stateless)', async () => {
    const { h, key } = await setup()
    const reply = await post(h, initialize(), { token: key })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toStartWith('application/json')
    expect(reply.headers.get('mcp-session-id')).toBeNull()
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    expect(reply.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'readlater' }, capabilities: { tools: {} } },
    })
  })

  test.each(['2025-06-18', '2025-03-26'])(
    'initialize with the older protocol version %s is accepted and echoed',
    async (version) => {
      const { h, key } = await setup()
      const reply = await post(h, initialize(version), { token: key })
      expect(reply.status).toBe(200)
      expect(reply.body.result.protocolVersion).toBe(version)
      expect(reply.body.result.serverInfo.name).toBe('readlater')
    },
  )

  test('initialize and tools/list need no particular scope: a key with only account:read lists every tool', async () => {
    const { h, user } = await setup()
    const key = await user.key(['account:read'])
    expect((await post(h, initialize(), { token: key })).status).toBe(200)
    const reply = await post(h, toolsList(), { token: key })
    expect(reply.status).toBe(200)
    expect(reply.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOLS.map((tool) => tool.name))
  })

  test('every answer carries the rate limit headers', async () => {
    const { h, key } = await setup()
    const reply = await post(h, toolsList(), { token: key })
    expect(reply.headers.get('ratelimit-limit')).toBe('600')
    expect(reply.headers.get('ratelimit-remaining')).toBe('599')
  })
})

describe('GET, DELETE and OPTIONS /mcp', () => {
  test.each(['GET', 'DELETE'])('%s with a valid key: 405 with Allow: POST, OPTIONS', async (method) => {
    const { h, key } = await setup()
    const reply = await h.call(method, '/mcp', {
      token: key,
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      unchecked: true,
    })
    expect(reply.status).toBe(405)
    expect(reply.headers.get('allow')).toBe('POST, OPTIONS')
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    expect(reply.body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.any(String) }, id: null })
  })

  test.each(['GET', 'DELETE'])('%s without a key: 401 with the /mcp challenge', async (method) => {
    const { h } = await setup()
    expectUnauthorized(
      await h.call(method, '/mcp', { headers: { accept: 'text/event-stream' }, unchecked: true }),
      NO_CREDENTIAL_CHALLENGE,
    )
  })

  test('a CORS preflight needs no credential: 204 allowing POST and the Authorization and Mcp-Protocol-Version headers', async () => {
    const { h } = await setup()
    const reply = await h.call('OPTIONS', '/mcp', {
      headers: {
        origin: 'https://inspector.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
      unchecked: true,
    })
    expect(reply.status).toBe(204)
    expect(reply.text).toBe('')
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    expect(reply.headers.get('access-control-allow-methods')!.split(/,\s*/)).toContain('POST')
    const allowed = reply.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/)
    for (const header of ['authorization', 'content-type', 'accept', 'mcp-protocol-version'])
      expect(allowed).toContain(header)
    // Browser clients must be able to read the challenge of a 401/403 to start or step up authorization.
    expect(reply.headers.get('access-control-expose-headers')!.toLowerCase()).toContain('www-authenticate')
  })
})

describe('scope of each tools/call, checked before dispatch', () => {
  /** Arguments that succeed with a full key, so a refusal can only be the scope's doing. */
  function argumentsFor(name: string, itemId: string, folderId: string): Record<string, unknown> {
    switch (name) {
      case 'save_url':
        return { url: 'https://example.com/new-page' }
      case 'search_saved_items':
        return { query: 'kept' }
      case 'read_saved_item':
      case 'mark_read':
      case 'mark_unread':
      case 'open_saved_item':
      case 'delete_saved_item':
        return { id: itemId }
      case 'move_to_folder':
        return { id: itemId, folderId }
      case 'add_highlight':
        return { savedItemId: itemId, exact: 'Kept' }
      case 'create_folder':
        return { name: 'Brand new' }
      case 'rename_folder':
        return { id: folderId, name: 'Renamed' }
      case 'delete_folder':
        return { id: folderId }
      default:
        return {}
    }
  }

  test.each(TOOLS.map((tool) => [tool.name, tool.scope] as const))(
    '%s without %s: 403 with the step-up challenge, nothing written',
    async (name, scope) => {
      const { h, user, key: fullKey } = await setup()
      const item = await h.call('POST', '/v1/captures', { token: fullKey, body: { url: 'https://example.com/kept' } })
      const folder = await h.call('POST', '/v1/folders', { token: fullKey, body: { name: 'Kept' } })
      const args = argumentsFor(name, item.body.savedItem.id, folder.body.id)
      // read_saved_item succeeds only on an item with an article: give it one, as enrichment would.
      await h.db.$client.execute({
        sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 2, '<p>Kept page</p>', 'Kept page', ?)",
        args: [item.body.savedItem.id, item.body.savedItem.createdAt],
      })
      const granted = SCOPES.filter((s) => s !== scope)
      const key = await user.key(granted)
      const before = await snapshot(h)

      const reply = await post(h, toolsCall(name, args), { token: key })
      expect(reply.status).toBe(403)
      expect(reply.body).toEqual({ _tag: 'InsufficientScopeError', message: expect.any(String), requiredScope: scope })
      expect(reply.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", scope="${[...granted, scope].join(' ')}", resource_metadata="${METADATA}"`,
      )
      expect(reply.headers.get('access-control-allow-origin')).toBe('*')
      expect(await snapshot(h)).toEqual(before)

      // The same call with the scope goes through: the arguments were fine.
      const allowed = await post(h, toolsCall(name, args), { token: fullKey })
      expect(allowed.status).toBe(200)
      expect(allowed.body.result.isError).toBeUndefined()
    },
  )

  test('a batch with two calls lacking two scopes: 403 naming both; the call it may make is not made either', async () => {
    const { h, user, key: fullKey } = await setup()
    const item = await h.call('POST', '/v1/captures', { token: fullKey, body: { url: 'https://example.com/kept' } })
    const granted: Scope[] = ['saved-items:read', 'folders:read', 'account:read']
    const key = await user.key(granted)
    const before = await snapshot(h)
    const reply = await post(
      h,
      [
        toolsCall('list_folders', {}, 1),
        toolsCall('create_folder', { name: 'Sneaky' }, 2),
        toolsCall('delete_saved_item', { id: item.body.savedItem.id }, 3),
      ],
      { token: key },
    )
    expect(reply.status).toBe(403)
    expect(reply.body).toEqual({
      _tag: 'InsufficientScopeError',
      message: expect.any(String),
      requiredScope: 'folders:write saved-items:delete',
    })
    expect(reply.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="saved-items:read folders:read account:read folders:write saved-items:delete", resource_metadata="${METADATA}"`,
    )
    expect(await snapshot(h)).toEqual(before)
  })

  test('a batch whose calls are all allowed is answered call by call', async () => {
    const { h, user } = await setup()
    const key = await user.key(['account:read', 'folders:read'])
    const reply = await post(h, [toolsCall('whoami', {}, 1), toolsCall('list_folders', {}, 2)], { token: key })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: { content: [expect.any(Object)], structuredContent: { id: user.id, email: user.email } },
      },
      { jsonrpc: '2.0', id: 2, result: { content: [expect.any(Object)], structuredContent: { folders: [] } } },
    ])
  })
})

describe('malformed requests', () => {
  test('a body that is not JSON: 400 JSON-RPC parse error, nothing written', async () => {
    const { h, key } = await setup()
    const before = await snapshot(h)
    const reply = await post(
      h,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_folder","arguments":{"name":"X"}',
      { token: key },
    )
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: expect.stringContaining('Parse error') },
      id: null,
    })
    expect(await snapshot(h)).toEqual(before)
  })

  test('JSON that is not a JSON-RPC message: 400 parse error, even when it nests a tools/call', async () => {
    const { h, user } = await setup()
    const key = await user.key(['account:read'])
    const reply = await post(h, [[toolsCall('create_folder', { name: 'Nested' })]], { token: key })
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe(-32700)
    expect(await countRows(h.db, 'folders')).toBe(0)
  })

  test('a content type other than JSON: 415 UnsupportedMediaTypeError', async () => {
    const { h, key } = await setup()
    const reply = await post(h, toolsCall('create_folder', { name: 'X' }), {
      token: key,
      headers: { 'content-type': 'text/plain' },
    })
    expect(reply.status).toBe(415)
    expect(reply.body).toEqual({ _tag: 'UnsupportedMediaTypeError', message: expect.any(String) })
    expect(await countRows(h.db, 'folders')).toBe(0)
  })

  test('a body over 64 KiB: 413 PayloadTooLargeError, nothing written', async () => {
    const { h, key } = await setup()
    const big = toolsCall('save_url', { url: 'https://example.com/big', sourceName: 'x'.repeat(65 * 1024) })
    const reply = await post(h, big, { token: key })
    expect(reply.status).toBe(413)
    expect(reply.body).toEqual({ _tag: 'PayloadTooLargeError', message: expect.any(String) })
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    expect(await countRows(h.db, 'saved_items')).toBe(0)
  })
})

describe('rate limit', () => {
  test('with RATE_LIMIT_MAX 3 the fourth POST /mcp is 429 with Retry-After, and is not run', async () => {
    const { h, key } = await setup({ RATE_LIMIT_MAX: '3' })
    for (const remaining of ['2', '1', '0']) {
      const reply = await post(h, toolsList(), { token: key })
      expect(reply.status).toBe(200)
      expect(reply.headers.get('ratelimit-remaining')).toBe(remaining)
    }
    const refused = await post(h, toolsCall('create_folder', { name: 'Too many' }), { token: key })
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({ _tag: 'RateLimitExceeded', message: expect.any(String) })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(refused.headers.get('ratelimit-limit')).toBe('3')
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    expect(await countRows(h.db, 'folders')).toBe(0)
  })
})

describe('Origin (MCP transport security: DNS rebinding)', () => {
  const ORIGIN_REFUSED = { _tag: 'OriginNotAllowedError', message: expect.stringContaining('Origin') }

  function expectOriginRefused(reply: Reply): void {
    expect(reply.status).toBe(403)
    expect(reply.body).toEqual(ORIGIN_REFUSED)
    // Readable by the page that sent it, like every /mcp answer.
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    expect(reply.headers.get('www-authenticate')).toBeNull()
  }

  test('an Origin of another site is 403 OriginNotAllowedError before the call runs, with a key or without one', async () => {
    const { h, key } = await setup()
    for (const origin of ['https://evil.example', 'http://rebound.example:3000', 'null', 'not an origin']) {
      const before = await snapshot(h)
      expectOriginRefused(
        await post(h, toolsCall('create_folder', { name: 'Rebound' }), { token: key, headers: { origin } }),
      )
      expectOriginRefused(await post(h, initialize(), { headers: { origin } }))
      expect(await snapshot(h)).toEqual(before)
    }
    expect(await countRows(h.db, 'folders')).toBe(0)
  })

  test('GET and DELETE with a foreign Origin are 403 too, not 405', async () => {
    const { h, key } = await setup()
    for (const method of ['GET', 'DELETE'])
      expectOriginRefused(
        await h.call(method, '/mcp', { token: key, headers: { origin: 'https://evil.example' }, unchecked: true }),
      )
  })

  test('no Origin, the service’s own origins (BASE_URL, APP_URL) and loopback origins are accepted', async () => {
    const { h, key } = await setup({ BASE_URL: 'https://read.example.com/base', APP_URL: 'https://app.example.com' })
    for (const origin of [
      null,
      'https://read.example.com',
      'https://app.example.com',
      'HTTPS://READ.EXAMPLE.COM:443',
      'http://localhost:6274',
      'http://127.0.0.1:6274',
      'http://[::1]:6274',
    ]) {
      const reply = await post(h, toolsList(), { token: key, headers: origin === null ? {} : { origin } })
      expect(reply.status, String(origin)).toBe(200)
      expect(reply.body.result.tools.length).toBe(TOOLS.length)
    }
    // Same host, other scheme or port: another origin.
    for (const origin of ['http://read.example.com', 'https://read.example.com:8443', 'https://example.com'])
      expectOriginRefused(await post(h, toolsList(), { token: key, headers: { origin } }))
  })

  test('MCP_ALLOWED_ORIGINS adds origins of browser-based clients; * accepts any', async () => {
    const listed = await setup({ MCP_ALLOWED_ORIGINS: 'https://agent.example, https://inspector.example:8080' })
    for (const origin of ['https://agent.example', 'https://inspector.example:8080'])
      expect((await post(listed.h, toolsList(), { token: listed.key, headers: { origin } })).status).toBe(200)
    expectOriginRefused(
      await post(listed.h, toolsList(), { token: listed.key, headers: { origin: 'https://inspector.example' } }),
    )
    const any = await setup({ MCP_ALLOWED_ORIGINS: '*' })
    expect(
      (await post(any.h, toolsList(), { token: any.key, headers: { origin: 'https://evil.example' } })).status,
    ).toBe(200)
  })

  test('MCP_ALLOWED_ORIGINS must list origins: a path, another scheme or a bad value stops the start', async () => {
    for (const [value, message] of [
      [
        'https://agent.example/app',
        'MCP_ALLOWED_ORIGINS must list origins (https://host[:port]) or *, got "https://agent.example/app"',
      ],
      [
        'ftp://agent.example',
        'MCP_ALLOWED_ORIGINS must list origins (https://host[:port]) or *, got "ftp://agent.example"',
      ],
      ['agent.example', 'MCP_ALLOWED_ORIGINS must list origins (https://host[:port]) or *, got "agent.example"'],
    ]) {
      await expect(setup({ MCP_ALLOWED_ORIGINS: value! })).rejects.toThrow(message)
    }
  })
})
