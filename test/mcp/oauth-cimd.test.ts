import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import type { FetchedPage } from '../../adapters/enrichment/guarded-fetch.ts'
import { countRows } from '../helpers/harness.ts'
import { startLiveServer, type LiveServer } from '../helpers/browser.ts'
import { signedIn } from '../oauth/oauth-helpers.ts'
import {
  allowOverHttp,
  freePort,
  jwtClaims,
  MemoryOAuthProvider,
  recordingFetch,
  type Exchange,
} from './mcp-helpers.ts'

// The official MCP SDK client with a Client ID Metadata Document (MCP 2025-11-25): it sees
// client_id_metadata_document_supported in our metadata, skips dynamic registration and uses its
// document's URL as client_id. The document is served for a made-up public host by an injected fetch.

const METADATA_URL = 'https://agent.example.com/.well-known/mcp-client.json'
const CALLBACK = `http://127.0.0.1:${freePort()}/callback`
const documentFetches: string[] = []

class MetadataDocumentProvider extends MemoryOAuthProvider {
  get clientMetadataUrl(): string {
    return METADATA_URL
  }
}

let live: LiveServer

beforeAll(async () => {
  const document = JSON.stringify({
    client_id: METADATA_URL,
    client_name: 'Document Agent',
    redirect_uris: [CALLBACK],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  })
  const fetchClientMetadata = async (url: string): Promise<FetchedPage> => {
    documentFetches.push(url)
    return {
      finalUrl: url,
      status: 200,
      contentType: 'application/json',
      body: new TextEncoder().encode(document),
      truncated: false,
      redirects: 0,
      isHtml: false,
    }
  }
  live = await startLiveServer({ env: { IP_RATE_LIMIT_MAX: '1000' }, fetchClientMetadata })
})

afterAll(async () => {
  await live?.stop()
})

test('the SDK client uses its metadata document URL as client_id: no registration, consent, tokens, tools', async () => {
  const provider = new MetadataDocumentProvider(CALLBACK)
  const log: Exchange[] = []
  const first = new StreamableHTTPClientTransport(new URL(`${live.url}/mcp`), {
    authProvider: provider,
    fetch: recordingFetch(log),
  })
  await expect(new Client({ name: 'cimd-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedError,
  )
  expect(log.some((exchange) => exchange.url.endsWith('/api/auth/oauth2/register'))).toBe(false)
  expect(await countRows(live.harness.db, 'oauth_clients')).toBe(0)
  const authorization = provider.lastAuthorizationUrl()
  expect(authorization.searchParams.get('client_id')).toBe(METADATA_URL)

  const person = await live.harness.user()
  const consent = await allowOverHttp(live.url, await signedIn(live.harness, person.id), authorization)
  expect(consent.pageStatus).toBe(200)
  expect(documentFetches).toEqual([METADATA_URL])
  await first.finishAuth(consent.location.searchParams.get('code')!)
  expect(jwtClaims(provider.tokens()!.access_token)).toMatchObject({
    client_id: METADATA_URL,
    aud: `${live.url}/mcp`,
    sub: person.id,
  })

  const client = new Client({ name: 'cimd-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${live.url}/mcp`), { authProvider: provider }))
  const me = await client.callTool({ name: 'whoami', arguments: {} })
  expect(me.structuredContent).toEqual({ id: person.id, email: person.email })
  await client.close()
  const [row] = (await live.harness.db.$client.execute('SELECT id, name FROM oauth_clients')).rows
  expect({ id: row!.id, name: row!.name }).toEqual({ id: METADATA_URL, name: 'Document Agent' })
})
