import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { startLiveServer, type LiveServer } from '../helpers/browser.ts'
import type { TestUser } from '../helpers/harness.ts'
import { signedIn, type Browserless } from '../oauth/oauth-helpers.ts'
import { hashPassword } from '../../adapters/app/passwords.ts'
import {
  allowOverHttp,
  jwtClaims,
  mcpPost,
  MemoryOAuthProvider,
  recordingFetch,
  rest,
  signInOverHttp,
  type Exchange,
} from './mcp-helpers.ts'

// The official MCP TypeScript SDK as a third-party client doing its own OAuth against the service on a
// real port: discovery from the 401, dynamic registration, PKCE, the person's consent (played over HTTP
// through the real sign-in and consent pages), the code exchange, every tool, step-up on 403 insufficient_scope, revocation.

// Nobody listens here: the SDK only needs a redirect URI to register and to send the person back to.
const CALLBACK = 'http://127.0.0.1:8976/callback'
/** The 401 hint on /mcp: the least that works, every tool scope but the deletes, no offline_access (docs/mcp.md#scopes-and-step-up). */
const HINT_SCOPES = [
  'saved-items:capture',
  'saved-items:read',
  'saved-items:write',
  'folders:read',
  'folders:write',
  'account:read',
]
const TOOL_NAMES = [
  'save_url',
  'list_saved_items',
  'search_saved_items',
  'list_changes',
  'read_saved_item',
  'list_highlights',
  'add_highlight',
  'mark_read',
  'mark_unread',
  'open_saved_item',
  'move_to_folder',
  'delete_saved_item',
  'list_folders',
  'create_folder',
  'rename_folder',
  'delete_folder',
  'whoami',
]

let live: LiveServer
let person: TestUser
let browser: Browserless
/** An API key of the same person, to read the same data through REST. */
let restKey: string

beforeAll(async () => {
  live = await startLiveServer({ env: { IP_RATE_LIMIT_MAX: '1000' } })
  person = await live.harness.user()
  browser = await signedIn(live.harness, person.id)
  restKey = await person.key()
})

afterAll(async () => {
  await live?.stop()
})

function sdkClient(
  provider: MemoryOAuthProvider,
  log: Exchange[] = [],
): { client: Client; transport: StreamableHTTPClientTransport; log: Exchange[] } {
  const transport = new StreamableHTTPClientTransport(new URL(`${live.url}/mcp`), {
    authProvider: provider,
    fetch: recordingFetch(log),
  })
  return { client: new Client({ name: 'readlater-test-client', version: '1.0.0' }), transport, log }
}

/** A successful tool call's structured result (fails the test on an error result). */
async function structured(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
  expect(result.content[0]).toMatchObject({ type: 'text' })
  return result.structuredContent
}

async function restItems(): Promise<any[]> {
  const reply = await rest(live.url, restKey, 'GET', '/v1/saved-items')
  expect(reply.status).toBe(200)
  return reply.body.savedItems
}

async function restItem(id: string): Promise<unknown> {
  return (await restItems()).find((item) => item.id === id)
}

/** Registers a public client by hand and runs authorize → consent → token for exactly `scope`. */
async function narrowTokens(scope: string): Promise<{
  clientId: string
  tokens: { access_token: string; token_type: string; scope: string; expires_in?: number; refresh_token?: string }
}> {
  const registered = await fetch(`${live.url}/api/auth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test MCP Client',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  })
  expect(registered.status).toBe(201)
  const clientId = ((await registered.json()) as { client_id: string }).client_id
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
  const challenge = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString(
    'base64url',
  )
  const authorize = new URL(`${live.url}/api/auth/oauth2/authorize`)
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'narrow',
    scope,
    resource: `${live.url}/mcp`,
  }))
    authorize.searchParams.set(name, value)
  const consent = await allowOverHttp(live.url, browser, authorize)
  expect(consent.scopes).toEqual(scope.split(' '))
  const exchanged = await fetch(`${live.url}/api/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: consent.location.searchParams.get('code')!,
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: verifier,
    }),
  })
  expect(exchanged.status).toBe(200)
  return { clientId, tokens: (await exchanged.json()) as never }
}

// The client of the first flow; the revocation test at the end disconnects it.
const provider = new MemoryOAuthProvider(CALLBACK)

describe('the SDK authorizes itself from a 401', () => {
  test('with no token, connect discovers the metadata, registers, sends the person to consent and throws UnauthorizedError', async () => {
    const { client, transport, log } = sdkClient(provider)
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError)

    // The first answer is the 401 whose challenge the SDK follows.
    expect(log[0]).toMatchObject({ method: 'POST', url: `${live.url}/mcp`, status: 401 })
    expect(log[0]!.wwwAuthenticate).toContain(
      `resource_metadata="${live.url}/.well-known/oauth-protected-resource/mcp"`,
    )
    expect(log[0]!.wwwAuthenticate).toContain(`scope="${HINT_SCOPES.join(' ')}"`)
    const asked = log.map((exchange) => `${exchange.method} ${exchange.url} ${exchange.status}`)
    expect(asked).toContain(`GET ${live.url}/.well-known/oauth-protected-resource/mcp 200`)
    expect(asked).toContain(`GET ${live.url}/.well-known/oauth-authorization-server/api/auth 200`)
    expect(asked).toContain(`POST ${live.url}/api/auth/oauth2/register 201`)

    // Dynamic registration left a client row named as the SDK asked.
    const tables = (
      await live.harness.db.$client.execute(
        `SELECT name FROM sqlite_master WHERE type='table' AND name = 'oauth_clients'`,
      )
    ).rows
    expect(tables).toHaveLength(1)
    const clients = (await live.harness.db.$client.execute('SELECT id, name, redirect_uris FROM oauth_clients')).rows
    expect(clients).toHaveLength(1)
    expect(clients[0]!.name).toBe('Test MCP Client')
    expect(clients[0]!.id).toBe(provider.client!.client_id)
    expect(JSON.parse(String(clients[0]!.redirect_uris))).toEqual([CALLBACK])

    expect(provider.authorizationUrls).toHaveLength(1)
    const url = provider.lastAuthorizationUrl()
    expect(url.origin + url.pathname).toBe(`${live.url}/api/auth/oauth2/authorize`)
    const params = url.searchParams
    expect(params.get('resource')).toBe(`${live.url}/mcp`)
    expect(params.get('code_challenge_method')).toBe('S256')
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(params.get('scope')).toBe(HINT_SCOPES.join(' '))
    expect(params.get('client_id')).toBe(provider.client!.client_id)
    expect(params.get('redirect_uri')).toBe(CALLBACK)
    expect(params.get('state')).toBe(provider.states.at(-1)!)
  })

  test('after the person allows, finishAuth gets a token for {base}/mcp; a new connection lists the 17 tools and every one answers like REST', async () => {
    // The person is signed out: the real sign-in page (form + CSRF) brings them back to the authorization URL.
    const password = 'a long password for mcp'
    await live.harness.db.$client.execute({
      sql: 'UPDATE users SET password_hash = ? WHERE id = ?',
      args: [await hashPassword(password), person.id],
    })
    const signedInBrowser = await signInOverHttp(live.url, person.email, password, provider.lastAuthorizationUrl())
    expect(signedInBrowser.next).toBe(provider.lastAuthorizationUrl().href)
    const consent = await allowOverHttp(live.url, signedInBrowser, signedInBrowser.next)
    expect(consent.pageStatus).toBe(200)
    expect(consent.scopes).toEqual(HINT_SCOPES)
    expect(consent.decisionStatus).toBe(303)
    expect(consent.location.origin + consent.location.pathname).toBe(CALLBACK)
    expect(consent.location.searchParams.get('state')).toBe(provider.states.at(-1)!)
    expect(consent.location.searchParams.get('iss')).toBe(`${live.url}/api/auth`)
    const code = consent.location.searchParams.get('code')!
    expect(code.length).toBeGreaterThan(20)

    const first = sdkClient(provider)
    await first.transport.finishAuth(code)
    const tokens = provider.tokens()!
    expect(tokens.token_type.toLowerCase()).toBe('bearer')
    expect(tokens.scope!.split(' ').sort()).toEqual([...HINT_SCOPES].sort())
    expect(tokens.refresh_token).toBeUndefined()
    const claims = jwtClaims(tokens.access_token)
    expect(claims.aud).toBe(`${live.url}/mcp`)
    expect(claims.iss).toBe(`${live.url}/api/auth`)

    // A token for /mcp is not one for the REST API.
    const onRest = await fetch(`${live.url}/v1/saved-items`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    })
    await onRest.body?.cancel()
    expect(onRest.status).toBe(401)

    // The transport that got the 401 has been started; the SDK connects again with a fresh one (same provider).
    const { client, transport } = sdkClient(provider)
    await client.connect(transport)
    expect(client.getServerVersion()?.name).toBe('readlater')
    const listed = await client.listTools()
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort())

    // whoami
    const me = await rest(live.url, restKey, 'GET', '/v1/me')
    expect(await structured(client, 'whoami')).toEqual(me.body)
    expect(me.body).toEqual({ id: person.id, email: person.email })

    // Folders: create, list, rename.
    const created = await structured(client, 'create_folder', { name: 'Reading' })
    expect(created).toEqual({ id: expect.any(String), name: 'Reading' })
    const folders = await rest(live.url, restKey, 'GET', '/v1/folders')
    expect(folders.body).toEqual({ folders: [created] })
    expect(await structured(client, 'list_folders')).toEqual(folders.body)
    const renamed = await structured(client, 'rename_folder', { id: created.id, name: 'Later' })
    expect(renamed).toEqual({ id: created.id, name: 'Later' })
    expect((await rest(live.url, restKey, 'GET', '/v1/folders')).body).toEqual({ folders: [renamed] })

    // Saved items: save, save again, list (whole and paged), state changes, folders.
    const saved = await structured(client, 'save_url', {
      url: 'https://example.com/one',
      sourceName: 'newsletter',
      tags: ['ai'],
    })
    expect(saved.captureResult).toBe('created')
    expect(saved.savedItem).toMatchObject({
      originalUrl: 'https://example.com/one',
      sourceName: 'newsletter',
      tags: ['ai'],
      isRead: false,
      folder: null,
    })
    expect(await restItem(saved.savedItem.id)).toEqual(saved.savedItem)
    const second = await structured(client, 'save_url', { url: 'https://example.com/two', folderId: created.id })
    expect(second.savedItem.folder).toEqual(renamed)
    expect(await restItem(second.savedItem.id)).toEqual(second.savedItem)
    const again = await structured(client, 'save_url', { url: 'https://example.com/one' })
    expect(again.captureResult).toBe('updated')
    expect(again.savedItem.id).toBe(saved.savedItem.id)
    expect(await restItem(saved.savedItem.id)).toEqual(again.savedItem)

    const everything = await structured(client, 'list_saved_items')
    expect(everything).toEqual({ savedItems: await restItems(), nextCursor: null })
    expect(everything.savedItems).toHaveLength(2)
    const page = await structured(client, 'list_saved_items', { limit: 1 })
    const restPage = await rest(live.url, restKey, 'GET', '/v1/saved-items?limit=1')
    expect(page.savedItems).toEqual(restPage.body.savedItems)
    const next = /<([^>]+)>; rel="next"/.exec(restPage.headers.get('link') ?? '')
    expect(next).not.toBeNull()
    expect(page.nextCursor).toBe(new URL(next![1]!).searchParams.get('cursor'))
    const inFolder = await structured(client, 'list_saved_items', { folder: created.id })
    expect(inFolder).toEqual({
      savedItems: (await rest(live.url, restKey, 'GET', `/v1/saved-items?folder=${created.id}`)).body.savedItems,
      nextCursor: null,
    })
    expect(inFolder.savedItems.map((item: { id: string }) => item.id)).toEqual([second.savedItem.id])

    const id = saved.savedItem.id
    const read = await structured(client, 'mark_read', { id })
    expect(read.isRead).toBe(true)
    expect(await restItem(id)).toEqual(read)
    const unread = await structured(client, 'mark_unread', { id })
    expect(unread.isRead).toBe(false)
    expect(await restItem(id)).toEqual(unread)
    const opened = await structured(client, 'open_saved_item', { id })
    expect(opened).toMatchObject({ id, isRead: true, originalUrl: 'https://example.com/one' })
    expect(await restItem(id)).toEqual(opened)
    const moved = await structured(client, 'move_to_folder', { id, folderId: created.id })
    expect(moved.folder).toEqual(renamed)
    expect(await restItem(id)).toEqual(moved)
    const outOfFolder = await structured(client, 'move_to_folder', { id, folderId: null })
    expect(outOfFolder.folder).toBeNull()
    expect(await restItem(id)).toEqual(outOfFolder)

    // The deletes come by step-up: the SDK re-authorizes with what it holds plus saved-items:delete.
    await expect(client.callTool({ name: 'delete_saved_item', arguments: { id } })).rejects.toBeInstanceOf(
      UnauthorizedError,
    )
    const widened = await allowOverHttp(live.url, browser, provider.lastAuthorizationUrl())
    expect(widened.scopes).toEqual([...HINT_SCOPES.slice(0, 3), 'saved-items:delete', ...HINT_SCOPES.slice(3)])
    await transport.finishAuth(widened.location.searchParams.get('code')!)
    expect(await structured(client, 'delete_saved_item', { id })).toEqual({ deleted: true, id })
    expect((await restItems()).map((item: { id: string }) => item.id)).toEqual([second.savedItem.id])
    await expect(client.callTool({ name: 'delete_folder', arguments: { id: created.id } })).rejects.toBeInstanceOf(
      UnauthorizedError,
    )
    const widenedAgain = await allowOverHttp(live.url, browser, provider.lastAuthorizationUrl())
    expect(widenedAgain.scopes.sort()).toEqual([...HINT_SCOPES, 'saved-items:delete', 'folders:delete'].sort())
    await transport.finishAuth(widenedAgain.location.searchParams.get('code')!)
    expect(await structured(client, 'delete_folder', { id: created.id })).toEqual({ deleted: true, id: created.id })
    expect((await rest(live.url, restKey, 'GET', '/v1/folders')).body).toEqual({ folders: [] })
    expect(await restItem(second.savedItem.id)).toMatchObject({ folder: null })
  })
})

describe('step-up on 403 insufficient_scope', () => {
  test('a read-only token: mark_read makes the SDK re-authorize with read + write; after consent the call works and listing still does', async () => {
    const { clientId, tokens } = await narrowTokens('saved-items:read')
    expect(tokens.scope).toBe('saved-items:read')
    expect(tokens.refresh_token).toBeUndefined()
    const item = await rest(live.url, restKey, 'POST', '/v1/captures', { url: 'https://example.com/step-up' })
    expect(item.status).toBe(201)
    const id = item.body.savedItem.id as string

    // The raw answer the SDK will get.
    const raw = await mcpPost(live.url, tokens.access_token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'mark_read', arguments: { id } },
    })
    expect(raw.status).toBe(403)
    const challenge = raw.headers.get('www-authenticate')!
    expect(challenge).toContain('error="insufficient_scope"')
    expect(challenge).toContain('scope="saved-items:read saved-items:write"')
    expect(challenge).toContain(`resource_metadata="${live.url}/.well-known/oauth-protected-resource/mcp"`)
    expect(await raw.json()).toMatchObject({ _tag: 'InsufficientScopeError', requiredScope: 'saved-items:write' })

    const provider = new MemoryOAuthProvider(CALLBACK)
    provider.saveClientInformation({ client_id: clientId })
    provider.saveTokens(tokens)
    const { client, transport, log } = sdkClient(provider)
    await client.connect(transport)
    expect(
      (await structured(client, 'list_saved_items')).savedItems.map((saved: { id: string }) => saved.id),
    ).toContain(id)

    await expect(client.callTool({ name: 'mark_read', arguments: { id } })).rejects.toBeInstanceOf(UnauthorizedError)
    const refused = log.filter((exchange) => exchange.status === 403)
    expect(refused).toHaveLength(1)
    expect(refused[0]!.wwwAuthenticate).toBe(challenge)
    expect(provider.authorizationUrls).toHaveLength(1)
    const url = provider.lastAuthorizationUrl()
    expect(url.searchParams.get('scope')!.split(' ').sort()).toEqual(['saved-items:read', 'saved-items:write'])
    expect(url.searchParams.get('resource')).toBe(`${live.url}/mcp`)
    expect(url.searchParams.get('client_id')).toBe(clientId)
    expect(((await restItem(id)) as { isRead: boolean }).isRead).toBe(false)

    const consent = await allowOverHttp(live.url, browser, url)
    expect(consent.scopes).toEqual(['saved-items:read', 'saved-items:write'])
    await transport.finishAuth(consent.location.searchParams.get('code')!)
    expect(provider.tokens()!.scope!.split(' ').sort()).toEqual(['saved-items:read', 'saved-items:write'])

    const read = await structured(client, 'mark_read', { id })
    expect(read).toMatchObject({ id, isRead: true })
    expect(await restItem(id)).toEqual(read)
    // The wider token kept what the first one had.
    expect(await structured(client, 'list_saved_items')).toEqual({ savedItems: await restItems(), nextCursor: null })
  })

  test('stepping up to the delete scopes, the delete tools answer like REST', async () => {
    const { clientId, tokens } = await narrowTokens('saved-items:read folders:read')
    const item = await rest(live.url, restKey, 'POST', '/v1/captures', { url: 'https://example.com/to-delete' })
    const folder = await rest(live.url, restKey, 'POST', '/v1/folders', { name: 'Doomed' })
    expect([item.status, folder.status]).toEqual([201, 200])

    const provider = new MemoryOAuthProvider(CALLBACK)
    provider.saveClientInformation({ client_id: clientId })
    provider.saveTokens(tokens)
    const { client, transport } = sdkClient(provider)
    await client.connect(transport)

    await expect(
      client.callTool({ name: 'delete_saved_item', arguments: { id: item.body.savedItem.id } }),
    ).rejects.toBeInstanceOf(UnauthorizedError)
    const first = await allowOverHttp(live.url, browser, provider.lastAuthorizationUrl())
    expect(first.scopes).toEqual(['saved-items:read', 'saved-items:delete', 'folders:read'])
    await transport.finishAuth(first.location.searchParams.get('code')!)
    expect(await structured(client, 'delete_saved_item', { id: item.body.savedItem.id })).toEqual({
      deleted: true,
      id: item.body.savedItem.id,
    })
    expect(await restItem(item.body.savedItem.id)).toBeUndefined()

    await expect(client.callTool({ name: 'delete_folder', arguments: { id: folder.body.id } })).rejects.toBeInstanceOf(
      UnauthorizedError,
    )
    const second = await allowOverHttp(live.url, browser, provider.lastAuthorizationUrl())
    expect(second.scopes).toEqual(['saved-items:read', 'saved-items:delete', 'folders:read', 'folders:delete'])
    await transport.finishAuth(second.location.searchParams.get('code')!)
    expect(await structured(client, 'delete_folder', { id: folder.body.id })).toEqual({
      deleted: true,
      id: folder.body.id,
    })
    const folders = (await rest(live.url, restKey, 'GET', '/v1/folders')).body.folders as { id: string }[]
    expect(folders.map((each) => each.id)).not.toContain(folder.body.id)
    expect(await structured(client, 'list_folders')).toEqual({ folders })
  })
})

describe('revocation in settings', () => {
  // Disconnects the client the SDK registered and authorized in the first describe block.
  test('after the person disconnects the agent, its access token is refused on /mcp with invalid_token and the SDK asks for consent again', async () => {
    const accessToken = provider.tokens()!.access_token
    const before = await mcpPost(live.url, accessToken, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    })
    expect(before.status).toBe(200)
    expect(JSON.stringify(await before.json())).toContain(person.email)

    // One grant per consent: the first and the two step-ups. The newest is the one the token came from.
    const grants = (
      await live.harness.db.$client.execute({
        sql: 'SELECT id FROM oauth_grants WHERE client_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC',
        args: [provider.client!.client_id],
      })
    ).rows
    expect(grants).toHaveLength(3)
    const revoked = await fetch(`${live.url}/settings/agents/${grants[0]!.id}/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: browser.csrf }),
    })
    await revoked.body?.cancel()
    expect(revoked.status).toBe(303)
    expect(revoked.headers.get('location')).toBe('/settings?done=agent-revoked')

    const after = await mcpPost(live.url, accessToken, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    })
    expect(after.status).toBe(401)
    expect(after.headers.get('www-authenticate')).toStartWith('Bearer error="invalid_token"')
    expect(await after.json()).toMatchObject({ _tag: 'Unauthorized' })

    // The SDK, told 401 and holding no refresh token, sends the person back to consent.
    const urlsBefore = provider.authorizationUrls.length
    const { client, transport, log } = sdkClient(provider)
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(log[0]).toMatchObject({ method: 'POST', url: `${live.url}/mcp`, status: 401 })
    expect(provider.authorizationUrls).toHaveLength(urlsBefore + 1)
  })
})
