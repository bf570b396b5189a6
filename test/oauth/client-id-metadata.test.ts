import { describe, expect, test } from 'bun:test'
import { FetchRefusedError, type FetchedPage } from '../../adapters/enrichment/guarded-fetch.ts'
import { BASE, countRows, createHarness, type Harness } from '../helpers/harness.ts'
import { authorizePath, decide, pkcePair, redeem, send, signedIn, type Browserless } from './oauth-helpers.ts'

// Client ID Metadata Documents: a client whose client_id is an https URL is read from that URL (through
// the guarded fetch) instead of being registered, then goes through the same consent, code and token
// rules as any client. Documents are served by an injected fetch for made-up public hosts.

const CLIENT_ID = 'https://app.example.com/oauth/client-metadata.json'
const REDIRECT = 'http://127.0.0.1:33418/callback'

interface Served {
  status?: number
  contentType?: string
  body: string
}

function setup(documents: Record<string, Served | Error>): Promise<{ h: Harness; fetched: string[] }> {
  const fetched: string[] = []
  const fetchClientMetadata = async (url: string): Promise<FetchedPage> => {
    fetched.push(url)
    const served = documents[url]
    if (!served) throw new FetchRefusedError('status', `${new URL(url).hostname} answered HTTP 404`, 404)
    if (served instanceof Error) throw served
    const body = new TextEncoder().encode(served.body)
    return {
      finalUrl: url,
      status: served.status ?? 200,
      contentType: served.contentType ?? 'application/json',
      body,
      truncated: false,
      redirects: 0,
      isHtml: false,
    }
  }
  return createHarness({ fetchClientMetadata }).then((h) => ({ h, fetched }))
}

const metadata = (fields: Record<string, unknown> = {}): Served => ({
  body: JSON.stringify({
    client_id: CLIENT_ID,
    client_name: 'Editor Agent',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...fields,
  }),
})

function authorize(h: Harness, browser: Browserless | null, overrides: Record<string, string | null> = {}) {
  const { verifier, challenge } = pkcePair()
  const path = authorizePath({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    scope: 'saved-items:read account:read offline_access',
    resource: `${BASE}/mcp`,
    ...overrides,
  })
  return send(h, 'GET', path, { headers: browser ? { cookie: browser.cookie } : {} }).then((reply) => ({
    reply,
    verifier,
  }))
}

const textOf = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')

describe('a client known by its metadata document URL', () => {
  test('is read from its URL, consented to, and redeems its code and refresh token under that client_id', async () => {
    const { h, fetched } = await setup({ [CLIENT_ID]: metadata() })
    const browser = await signedIn(h)
    const { reply: consent, verifier } = await authorize(h, browser)
    expect(consent.status).toBe(200)
    expect(fetched).toEqual([CLIENT_ID])
    expect(textOf(consent.text)).toContain('Allow Editor Agent to use your account?')
    expect(textOf(consent.text)).toContain('This application describes itself at app.example.com .')

    const allowed = await decide(h, browser, consent.text, 'allow')
    expect(allowed.status).toBe(303)
    const location = new URL(allowed.headers.get('location')!)
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT)
    expect(location.searchParams.get('iss')).toBe(`${BASE}/api/auth`)
    const code = location.searchParams.get('code')!

    const tokens = await redeem(h, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: CLIENT_ID,
      code_verifier: verifier,
    })
    expect(tokens.status).toBe(200)
    const body = tokens.body as { access_token: string; refresh_token: string; scope: string }
    expect(body.scope).toBe('saved-items:read account:read offline_access')
    const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1]!, 'base64url').toString())
    expect(claims).toMatchObject({ client_id: CLIENT_ID, aud: `${BASE}/mcp`, sub: browser.userId })

    const whoami = await h.call('POST', '/mcp', {
      token: body.access_token,
      unchecked: true,
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    })
    expect(whoami.status).toBe(200)
    expect(whoami.body.result.structuredContent.id).toBe(browser.userId)

    const refreshed = await redeem(h, {
      grant_type: 'refresh_token',
      refresh_token: body.refresh_token,
      client_id: CLIENT_ID,
    })
    expect(refreshed.status).toBe(200)

    const settings = await send(h, 'GET', '/settings', { headers: { cookie: browser.cookie } })
    expect(settings.text).toContain('<td data-label="Client">Editor Agent</td>')
    const stored = (
      await h.db.$client.execute({
        sql: 'SELECT id, name, redirect_uris FROM oauth_clients WHERE id = ?',
        args: [CLIENT_ID],
      })
    ).rows
    expect(stored.map((row) => ({ ...row }))).toEqual([
      expect.objectContaining({ id: CLIENT_ID, name: 'Editor Agent', redirect_uris: '["http://127.0.0.1/callback"]' }),
    ])
  })

  test('is fetched only for a signed-in person: a stranger is sent to sign in and nothing is fetched or stored', async () => {
    const { h, fetched } = await setup({ [CLIENT_ID]: metadata() })
    const { reply } = await authorize(h, null)
    expect(reply.status).toBe(303)
    expect(reply.headers.get('location')).toStartWith(`${BASE}/sign-in?next=`)
    expect(fetched).toEqual([])
    expect(await countRows(h.db, 'oauth_clients')).toBe(0)
  })

  test('is read again on every authorization: a renamed client shows its new name, recorded once', async () => {
    const documents: Record<string, Served> = { [CLIENT_ID]: metadata() }
    const { h, fetched } = await setup(documents)
    const browser = await signedIn(h)
    expect((await authorize(h, browser)).reply.status).toBe(200)
    documents[CLIENT_ID] = metadata({ client_name: 'Editor Agent 2' })
    const again = await authorize(h, browser)
    expect(textOf(again.reply.text)).toContain('Allow Editor Agent 2 to use your account?')
    expect(fetched).toEqual([CLIENT_ID, CLIENT_ID])
    expect(await countRows(h.db, 'oauth_clients')).toBe(1)
  })

  test('a document that cannot be trusted gets an error page, never a redirect, and grants nothing', async () => {
    const cases: [string, Served | Error, RegExp][] = [
      ['another client_id', metadata({ client_id: 'https://evil.example/client.json' }), /names another client_id/],
      ['a client secret', metadata({ client_secret: 'x' }), /client secret/],
      ['a confidential client', metadata({ token_endpoint_auth_method: 'private_key_jwt' }), /public clients/],
      [
        'the redirect URI not listed',
        metadata({ redirect_uris: ['https://app.example.com/callback'] }),
        /redirect URI does not match/,
      ],
      ['not JSON', { body: '<html>nope</html>' }, /not valid JSON/],
      ['an empty body', { body: '' }, /not a JSON document/],
      [
        'a refused fetch',
        new FetchRefusedError('address', 'Refused app.example.com: not a public address (private)'),
        /could not be read from app\.example\.com/,
      ],
    ]
    for (const [name, served, message] of cases) {
      const { h } = await setup({ [CLIENT_ID]: served })
      const browser = await signedIn(h)
      const { reply } = await authorize(h, browser)
      expect(reply.status, name).toBe(400)
      expect(reply.headers.get('location'), name).toBeNull()
      expect(textOf(reply.text), name).toMatch(message)
      expect(await countRows(h.db, 'oauth_grants'), name).toBe(0)
    }
  })

  test('without an injected fetch, a document on a private address is refused by the guard', async () => {
    const h = await createHarness()
    const browser = await signedIn(h)
    for (const clientId of [
      'https://127.0.0.1/client.json',
      'https://localhost/client.json',
      'https://10.0.0.1/client.json',
      'https://[::1]/client.json',
    ]) {
      const { reply } = await authorize(h, browser, { client_id: clientId })
      expect(reply.status, clientId).toBe(400)
      expect(textOf(reply.text), clientId).toContain('metadata could not be read from')
    }
    expect(await countRows(h.db, 'oauth_clients')).toBe(0)
  })

  test('an http:// or path-less client_id is not a document URL: it is an unknown client, and nothing is fetched', async () => {
    const { h, fetched } = await setup({})
    const browser = await signedIn(h)
    for (const clientId of ['http://app.example.com/client.json', 'https://app.example.com/']) {
      const { reply } = await authorize(h, browser, { client_id: clientId })
      expect(reply.status).toBe(400)
      expect(textOf(reply.text)).toContain('is not registered with this service')
    }
    expect(fetched).toEqual([])
  })
})
