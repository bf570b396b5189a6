import { beforeEach, describe, expect, test } from 'bun:test'
import { BASE, countRows, createHarness, type Harness } from '../helpers/harness.ts'
import {
  authorizePath,
  decide,
  hiddenField,
  ISSUER,
  pkcePair,
  REDIRECT_URI,
  registerClient,
  send,
  signedIn,
  type Browserless,
} from './oauth-helpers.ts'

let h: Harness
let clientId: string
let browser: Browserless
const { challenge } = pkcePair()

beforeEach(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
  clientId = (
    await registerClient(h, { redirect_uris: [REDIRECT_URI, 'https://agent.example/cb', 'com.example.agent:/cb'] })
  ).client_id
  browser = await signedIn(h)
})

function request(overrides: Record<string, string | null> = {}): string {
  return authorizePath({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'https://agent.example/cb',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'xyz 123',
    scope: 'saved-items:read folders:read',
    ...overrides,
  })
}

const visit = (path: string, who: Browserless | null = browser) =>
  send(h, 'GET', path, { headers: who ? { cookie: who.cookie } : {} })

function redirectedTo(reply: { status: number; headers: Headers }): URL {
  expect(reply.status).toBe(303)
  return new URL(reply.headers.get('location')!)
}

function listedScopes(html: string): string[] {
  return [...html.matchAll(/<li><code>([^<]+)<\/code>/g)].map((m) => m[1]!)
}

describe('GET /api/auth/oauth2/authorize: requests that cannot be answered by redirect', () => {
  test('an unknown client gets an error page and no redirect', async () => {
    const reply = await visit(request({ client_id: '01a202b2-c500-7c1b-bc23-6f920b939a8c' }))
    expect(reply.status).toBe(400)
    expect(reply.headers.get('location')).toBeNull()
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(reply.text).toContain('not registered')
  })

  test('a redirect URI that was not registered gets an error page and no redirect, even with other errors', async () => {
    for (const overrides of <Record<string, string | null>[]>[
      { redirect_uri: 'https://evil.example/cb' },
      { redirect_uri: 'https://agent.example/cb/' },
      { redirect_uri: 'https://evil.example/cb', response_type: 'token' },
      { redirect_uri: null },
    ]) {
      const reply = await visit(request(overrides))
      expect(reply.status).toBe(400)
      expect(reply.headers.get('location')).toBeNull()
      expect(reply.text).not.toContain('evil.example')
    }
  })
})

describe('GET /api/auth/oauth2/authorize: errors sent back to the client with state and iss', () => {
  const cases: [string, Record<string, string | null>, string][] = [
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['no code_challenge', { code_challenge: null }, 'invalid_request'],
    ['the plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: null }, 'invalid_request'],
    ['an unknown scope', { scope: 'saved-items:read everything' }, 'invalid_scope'],
    ['an unknown resource', { resource: 'https://other.example/api' }, 'invalid_target'],
  ]
  for (const [what, overrides, error] of cases) {
    test(`${what} → error=${error}`, async () => {
      const location = redirectedTo(await visit(request(overrides)))
      expect(location.origin + location.pathname).toBe('https://agent.example/cb')
      expect(location.searchParams.get('error')).toBe(error)
      expect(location.searchParams.get('state')).toBe('xyz 123')
      expect(location.searchParams.get('iss')).toBe(ISSUER)
      expect(await countRows(h.db, 'oauth_grants')).toBe(0)
    })
  }

  test('errors are checked before sign-in is asked for', async () => {
    const reply = await visit(request({ code_challenge_method: 'plain' }), null)
    expect(reply.status).toBe(400)
    expect(reply.headers.get('location')).toBeNull()
  })
})

// Regression for an open redirector: anyone can register a client with their own https redirect URI, so a
// request error is sent there only for a signed-in person (RFC 9700 §4.11.2; docs/oauth.md#authorize-and-consent).
describe('GET /api/auth/oauth2/authorize: not signed in, request errors are a page, never a redirect', () => {
  const errors: [string, Record<string, string | null>][] = [
    ['response_type=token', { response_type: 'token' }],
    ['no code_challenge', { code_challenge: null }],
    ['the plain method', { code_challenge_method: 'plain' }],
    ['prompt=none', { prompt: 'none' }],
    ['an unknown scope', { scope: 'everything' }],
    ['an unknown resource', { resource: 'https://other.example/api' }],
  ]
  for (const [what, overrides] of errors) {
    test(`${what}: 400 HTML page, no Location, nothing written`, async () => {
      const reply = await visit(request(overrides), null)
      expect(reply.status).toBe(400)
      expect(reply.headers.get('location')).toBeNull()
      expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(reply.text).toContain('This authorization request cannot be used')
      expect(reply.text).not.toContain('agent.example')
      expect(await countRows(h.db, 'oauth_grants')).toBe(0)
    })
  }

  test('signed in, the same error still goes back to the client', async () => {
    const location = redirectedTo(await visit(request({ prompt: 'none' })))
    expect(location.origin + location.pathname).toBe('https://agent.example/cb')
    expect(location.searchParams.get('state')).toBe('xyz 123')
  })
})

describe('GET /api/auth/oauth2/authorize: sign-in and consent', () => {
  test('someone not signed in is sent to {app}/sign-in with the whole request as next', async () => {
    const path = request()
    const location = redirectedTo(await visit(path, null))
    expect(location.origin + location.pathname).toBe(`${BASE}/sign-in`)
    expect(location.searchParams.get('next')).toBe(path)
  })

  test('the consent page names the client, lists exactly the requested scopes with descriptions, and offers Allow and Deny', async () => {
    const reply = await visit(request({ scope: 'saved-items:capture account:read offline_access' }))
    expect(reply.status).toBe(200)
    expect(reply.text).toContain('Test Agent')
    expect(listedScopes(reply.text)).toEqual(['saved-items:capture', 'account:read', 'offline_access'])
    expect(reply.text).toContain('save a URL to the queue')
    expect(reply.text).toContain('read the identity of the authenticated account')
    expect(reply.text).toContain('receive a refresh token')
    expect(reply.text).toMatch(/<button[^>]*value="allow"[^>]*>Allow<\/button>/)
    expect(reply.text).toMatch(/<button[^>]*value="deny"[^>]*>Deny<\/button>/)
    expect(reply.text).toContain('method="post" action="/api/auth/oauth2/consent"')
    expect(reply.headers.get('x-frame-options')).toBe('DENY')
    expect(reply.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(reply.headers.get('cache-control')).toBe('no-store')
  })

  test('without scope the client gets its registered scope, else saved-items:read folders:read', async () => {
    expect(listedScopes((await visit(request({ scope: null }))).text)).toEqual(['saved-items:read', 'folders:read'])
    const scoped = (
      await registerClient(h, {
        redirect_uris: ['https://agent.example/cb'],
        scope: 'account:read saved-items:capture',
      })
    ).client_id
    expect(listedScopes((await visit(request({ scope: null, client_id: scoped }))).text)).toEqual([
      'saved-items:capture',
      'account:read',
    ])
  })

  test('consent is asked every time, prompt=consent is accepted, and loopback redirects may use any port', async () => {
    const first = await visit(request())
    const location = redirectedTo(await decide(h, browser, first.text, 'allow'))
    expect(location.searchParams.get('code')).toBeTruthy()
    expect((await visit(request())).text).toContain('>Allow</button>')
    expect((await visit(request({ prompt: 'consent' }))).status).toBe(200)
    const loopback = await visit(request({ redirect_uri: 'http://127.0.0.1:49321/cb' }))
    expect(loopback.status).toBe(200)
    const answer = redirectedTo(await decide(h, browser, loopback.text, 'allow'))
    expect(answer.host).toBe('127.0.0.1:49321')
  })

  test('a client name is shown escaped', async () => {
    const evil = (
      await registerClient(h, {
        client_name: '<img src=x onerror=alert(1)>',
        redirect_uris: ['https://agent.example/cb'],
      })
    ).client_id
    const page = await visit(request({ client_id: evil }))
    expect(page.text).not.toContain('<img src=x')
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;')
  })
})

describe('POST /api/auth/oauth2/consent', () => {
  test('"Allow" creates the grant and a code, and redirects with code, state and iss', async () => {
    const page = await visit(request({ resource: `${BASE}/mcp`, redirect_uri: 'com.example.agent:/cb' }))
    const location = redirectedTo(await decide(h, browser, page.text, 'allow'))
    expect(location.protocol).toBe('com.example.agent:')
    expect([...location.searchParams.keys()]).toEqual(['code', 'state', 'iss'])
    expect(location.searchParams.get('state')).toBe('xyz 123')
    expect(location.searchParams.get('iss')).toBe(ISSUER)
    const grants = await h.db.$client.execute(
      'SELECT user_id, client_id, scopes, resource, revoked_at FROM oauth_grants',
    )
    expect(grants.rows.map((r) => ({ ...r }) as Record<string, unknown>)).toEqual([
      {
        user_id: browser.userId,
        client_id: clientId,
        scopes: '["saved-items:read","folders:read"]',
        resource: `${BASE}/mcp`,
        revoked_at: null,
      },
    ])
    const codes = await h.db.$client.execute('SELECT code_hash, expires_at FROM oauth_codes')
    expect(codes.rows).toHaveLength(1)
    expect(codes.rows[0]!.code_hash).not.toBe(location.searchParams.get('code'))
    expect(codes.rows[0]!.expires_at).toBe(new Date(h.clock.now().getTime() + 300_000).toISOString())
  })

  test('"Deny" redirects with error=access_denied, state and iss, and grants nothing', async () => {
    const page = await visit(request())
    const location = redirectedTo(await decide(h, browser, page.text, 'deny'))
    expect(location.searchParams.get('error')).toBe('access_denied')
    expect(location.searchParams.get('state')).toBe('xyz 123')
    expect(location.searchParams.get('iss')).toBe(ISSUER)
    expect(location.searchParams.get('code')).toBeNull()
    expect(await countRows(h.db, 'oauth_grants')).toBe(0)
  })

  test('a form without the CSRF token, or with a wrong one, is refused with 403 and grants nothing', async () => {
    const page = await visit(request())
    const ticket = hiddenField(page.text, 'ticket')
    const post = (fields: Record<string, string>) =>
      send(h, 'POST', '/api/auth/oauth2/consent', {
        headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      })
    for (const reply of [
      await post({ ticket, decision: 'allow' }),
      await post({ ticket, decision: 'allow', csrf: 'A'.repeat(43) }),
    ]) {
      expect(reply.status).toBe(403)
      expect(reply.headers.get('location')).toBeNull()
    }
    // The cookie alone is not enough either: without it the submitted token matches nothing.
    const noCookie = await send(h, 'POST', '/api/auth/oauth2/consent', {
      headers: {
        cookie: browser.cookie.replace(/; rl_csrf=.*/, ''),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ ticket, decision: 'allow', csrf: browser.csrf }).toString(),
    })
    expect(noCookie.status).toBe(403)
    expect(await countRows(h.db, 'oauth_grants')).toBe(0)
    expect(await countRows(h.db, 'oauth_codes')).toBe(0)
  })

  test("an altered, expired or someone else's consent form is refused and grants nothing", async () => {
    const page = await visit(request())
    const ticket = hiddenField(page.text, 'ticket')
    const [head, payload, signature] = ticket.split('.')
    const widened = JSON.parse(Buffer.from(payload!, 'base64url').toString())
    widened.req.scopes = ['saved-items:delete']
    const forged = `${head}.${Buffer.from(JSON.stringify(widened)).toString('base64url')}.${signature}`
    const post = (who: Browserless, ticketValue: string) =>
      send(h, 'POST', '/api/auth/oauth2/consent', {
        headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: who.csrf, ticket: ticketValue, decision: 'allow' }).toString(),
      })
    expect((await post(browser, forged)).status).toBe(400)
    expect((await post(await signedIn(h), ticket)).status).toBe(400)
    h.clock.advance(601_000)
    expect((await post(browser, ticket)).status).toBe(400)
    expect(await countRows(h.db, 'oauth_grants')).toBe(0)
  })

  test('a signed-out browser cannot consent', async () => {
    const page = await visit(request())
    const reply = await send(h, 'POST', '/api/auth/oauth2/consent', {
      headers: { cookie: `rl_csrf=${browser.csrf}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: browser.csrf,
        ticket: hiddenField(page.text, 'ticket'),
        decision: 'allow',
      }).toString(),
    })
    expect(reply.status).toBe(401)
    expect(await countRows(h.db, 'oauth_grants')).toBe(0)
  })
})
