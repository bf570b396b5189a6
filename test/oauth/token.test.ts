import { beforeEach, describe, expect, test } from 'bun:test'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { BASE, countRows, createHarness, type Harness, type Reply } from '../helpers/harness.ts'
import {
  ISSUER,
  obtainCode,
  REDIRECT_URI,
  redeem,
  registerClient,
  send,
  signedIn,
  tokensFor,
  type Browserless,
} from './oauth-helpers.ts'

let h: Harness
let clientId: string
let browser: Browserless
let replies: Reply[]

beforeEach(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
  clientId = (await registerClient(h)).client_id
  browser = await signedIn(h)
  replies = []
})

async function token(values: Record<string, string>): Promise<Reply> {
  const reply = await redeem(h, values)
  replies.push(reply)
  return reply
}

function expectError(reply: Reply, error: string, status = 400): void {
  expect(reply.status).toBe(status)
  expect(reply.body).toEqual({ error, error_description: expect.any(String) })
  expect(reply.headers.get('cache-control')).toBe('no-store')
}

const api = (accessToken: string, path = '/v1/saved-items') =>
  send(h, 'GET', path, { headers: { authorization: `Bearer ${accessToken}` } })

async function grantRevokedAt(): Promise<unknown> {
  const rows = await h.db.$client.execute('SELECT revoked_at FROM oauth_grants')
  expect(rows.rows).toHaveLength(1)
  return rows.rows[0]!.revoked_at
}

const codeRequest = (code: string, verifier: string, extra: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code,
  redirect_uri: REDIRECT_URI,
  client_id: clientId,
  code_verifier: verifier,
  ...extra,
})

describe('authorization_code', () => {
  test('a code and its verifier give an ES256 access token for {base}, and a refresh token with offline_access', async () => {
    const { code, verifier } = await obtainCode(h, {
      clientId,
      browser,
      scope: 'saved-items:read account:read offline_access',
    })
    const reply = await token(codeRequest(code, verifier))
    expect(reply.status).toBe(200)
    expect(reply.headers.get('cache-control')).toBe('no-store')
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    const body = reply.body as Record<string, string | number>
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'saved-items:read account:read offline_access',
      refresh_token: expect.stringMatching(/^rlr_[A-Za-z0-9_-]{43}$/),
    })
    const header = decodeProtectedHeader(body.access_token as string)
    const jwks = (await send(h, 'GET', '/api/auth/jwks')).body as { keys: { kid: string }[] }
    expect(header).toEqual({ alg: 'ES256', kid: jwks.keys[0]!.kid, typ: 'at+jwt' })
    const claims = decodeJwt(body.access_token as string)
    expect(claims).toEqual({
      iss: ISSUER,
      sub: browser.userId,
      aud: BASE,
      client_id: clientId,
      scope: 'saved-items:read account:read offline_access',
      jti: expect.any(String),
      iat: h.clock.now().getTime() / 1000,
      exp: h.clock.now().getTime() / 1000 + 3600,
      grant_id: expect.any(String),
    })
    expect((await api(body.access_token as string)).status).toBe(200)
    expect((await api(body.access_token as string, '/v1/me')).body).toEqual({
      id: browser.userId,
      email: expect.any(String),
    })
    // Granted scopes only: folders:read was not asked for.
    expect((await api(body.access_token as string, '/v1/folders')).status).toBe(403)
  })

  test('no refresh token without offline_access', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser, scope: 'saved-items:read' })
    const body = (await token(codeRequest(code, verifier))).body as Record<string, unknown>
    expect(body.scope).toBe('saved-items:read')
    expect(body).not.toHaveProperty('refresh_token')
    expect(await countRows(h.db, 'oauth_refresh_tokens')).toBe(0)
  })

  test('a wrong verifier is invalid_grant and changes nothing: the code still works with the right one', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser })
    expectError(await token(codeRequest(code, 'w'.repeat(43))), 'invalid_grant')
    expectError(
      await token(codeRequest(code, verifier.slice(0, -1) + (verifier.endsWith('A') ? 'B' : 'A'))),
      'invalid_grant',
    )
    expectError(await token(codeRequest(code, verifier, { code_verifier: '' })), 'invalid_request')
    const { code_verifier: _omitted, ...withoutVerifier } = codeRequest(code, verifier)
    expectError(await token(withoutVerifier), 'invalid_request')
    expect((await token(codeRequest(code, verifier))).status).toBe(200)
  })

  test('a replayed code with the right verifier is invalid_grant and revokes what it issued', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser })
    const first = (await token(codeRequest(code, verifier))).body as { access_token: string; refresh_token: string }
    expect((await api(first.access_token)).status).toBe(200)
    expectError(await token(codeRequest(code, verifier)), 'invalid_grant')
    expect(await grantRevokedAt()).toBe(h.clock.now().toISOString())
    const after = await api(first.access_token)
    expect(after.status).toBe(401)
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expectError(
      await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId }),
      'invalid_grant',
    )
  })

  test('a replayed code with a wrong verifier is invalid_grant and changes nothing', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser })
    const first = (await token(codeRequest(code, verifier))).body as { access_token: string }
    expectError(await token(codeRequest(code, 'x'.repeat(43))), 'invalid_grant')
    expect(await grantRevokedAt()).toBeNull()
    expect((await api(first.access_token)).status).toBe(200)
  })

  test('the code is bound to its redirect URI, client and resource', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser })
    expectError(await token(codeRequest(code, verifier, { redirect_uri: 'http://127.0.0.1/other' })), 'invalid_grant')
    const otherClient = (await registerClient(h)).client_id
    expectError(await token(codeRequest(code, verifier, { client_id: otherClient })), 'invalid_grant')
    expectError(await token(codeRequest(code, verifier, { resource: `${BASE}/mcp` })), 'invalid_target')
    expectError(
      await token(codeRequest(code, verifier, { client_id: '01a202b2-c500-7c1b-bc23-6f920b939a8c' })),
      'invalid_client',
      401,
    )
    expect(await grantRevokedAt()).toBeNull()
    expect((await token(codeRequest(code, verifier, { resource: BASE }))).status).toBe(200)
  })

  test('two simultaneous redemptions of one code: one wins, the other is a replay and revokes the grant', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser })
    const outcomes = await Promise.all([token(codeRequest(code, verifier)), token(codeRequest(code, verifier))])
    expect(outcomes.map((r) => r.status).sort()).toEqual([200, 400])
    expect(outcomes.find((r) => r.status === 400)!.body).toMatchObject({ error: 'invalid_grant' })
    expect(await grantRevokedAt()).not.toBeNull()
  })

  test('a code expires after 5 minutes', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser })
    h.clock.advance(300_000)
    expectError(await token(codeRequest(code, verifier)), 'invalid_grant')
    expect(await grantRevokedAt()).toBeNull()
  })

  test('a code for {base}/mcp gives a token for {base}/mcp only: on /v1 it is invalid_token', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser, resource: `${BASE}/mcp` })
    const body = (await token(codeRequest(code, verifier))).body as { access_token: string }
    expect(decodeJwt(body.access_token).aud).toBe(`${BASE}/mcp`)
    const reply = await api(body.access_token)
    expect(reply.status).toBe(401)
    expect(reply.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", resource_metadata="${BASE}/.well-known/oauth-protected-resource"`,
    )
  })
})

describe('token endpoint requests', () => {
  test('form-encoded only: a JSON body is invalid_request', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser })
    const json = await send(h, 'POST', '/api/auth/oauth2/token', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(codeRequest(code, verifier)),
    })
    expectError(json, 'invalid_request')
    expect(json.body).toMatchObject({ error_description: expect.stringContaining('application/x-www-form-urlencoded') })
    expectError(
      await send(h, 'POST', '/api/auth/oauth2/token', {
        body: new URLSearchParams(codeRequest(code, verifier)).toString(),
      }),
      'invalid_request',
    )
    expect((await token(codeRequest(code, verifier))).status).toBe(200)
  })

  test('an unknown grant type is unsupported_grant_type; a missing one or a repeated parameter invalid_request', async () => {
    expectError(await token({ grant_type: 'client_credentials', client_id: clientId }), 'unsupported_grant_type')
    expectError(await token({ grant_type: 'password', username: 'a', password: 'b' }), 'unsupported_grant_type')
    expectError(await token({ client_id: clientId }), 'invalid_request')
    expectError(
      await send(h, 'POST', '/api/auth/oauth2/token', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=a&code=b',
      }),
      'invalid_request',
    )
  })

  test('odd input never causes a 5xx', async () => {
    for (const body of [
      '%',
      'grant_type=%FF%FE',
      'grant_type=refresh_token&refresh_token=' + 'x'.repeat(5000) + '&client_id=x',
      `grant_type=authorization_code&code=%00&redirect_uri=%00&client_id=${clientId}&code_verifier=%00`,
      'x'.repeat(70_000),
    ]) {
      const reply = await send(h, 'POST', '/api/auth/oauth2/token', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })
      expect(reply.status).toBeGreaterThanOrEqual(400)
      expect(reply.status).toBeLessThan(500)
      expect(reply.headers.get('cache-control')).toBe('no-store')
    }
  })
})

describe('refresh_token', () => {
  const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
    token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra })

  test('rotates: new tokens work, the old refresh token then fails and its reuse revokes the whole grant', async () => {
    const first = await tokensFor(h, { clientId, browser })
    const second = (await refresh(first.refresh_token!)).body as Record<string, string | number> & {
      access_token: string
      refresh_token: string
    }
    expect(second).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'saved-items:read offline_access',
      refresh_token: expect.any(String),
    })
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect((await api(second.access_token!)).status).toBe(200)
    expectError(await refresh(first.refresh_token!), 'invalid_grant')
    expect(await grantRevokedAt()).not.toBeNull()
    expect((await api(second.access_token!)).status).toBe(401)
    expectError(await refresh(second.refresh_token!), 'invalid_grant')
  })

  test('another client cannot use the refresh token, and its attempt changes nothing', async () => {
    const first = await tokensFor(h, { clientId, browser })
    const otherClient = (await registerClient(h)).client_id
    expectError(await refresh(first.refresh_token!, { client_id: otherClient }), 'invalid_grant')
    expectError(await refresh(first.refresh_token!, { client_id: '' }), 'invalid_request')
    expect(await grantRevokedAt()).toBeNull()
    expect((await refresh(first.refresh_token!)).status).toBe(200)
  })

  test('scope may narrow the new access token, never widen it', async () => {
    const first = await tokensFor(h, { clientId, browser, scope: 'saved-items:read folders:read offline_access' })
    expectError(await refresh(first.refresh_token!, { scope: 'saved-items:read saved-items:delete' }), 'invalid_scope')
    expectError(await refresh(first.refresh_token!, { scope: 'saved-items:read nonsense' }), 'invalid_scope')
    expect(await grantRevokedAt()).toBeNull()
    const narrowed = (await refresh(first.refresh_token!, { scope: 'folders:read' })).body as {
      access_token: string
      refresh_token: string
      scope: string
    }
    expect(narrowed.scope).toBe('folders:read')
    expect((await api(narrowed.access_token, '/v1/folders')).status).toBe(200)
    expect((await api(narrowed.access_token, '/v1/saved-items')).status).toBe(403)
    // The refresh token keeps the grant's scope (RFC 6749 §6).
    const restored = (await refresh(narrowed.refresh_token)).body as { scope: string }
    expect(restored.scope).toBe('saved-items:read folders:read offline_access')
  })

  test('a refresh token lapses after 30 days unused', async () => {
    const first = await tokensFor(h, { clientId, browser })
    h.clock.advance(30 * 86_400_000)
    expectError(await refresh(first.refresh_token!), 'invalid_grant')
  })

  test('an unknown refresh token is invalid_grant', async () => {
    expectError(await refresh('rlr_' + 'A'.repeat(43)), 'invalid_grant')
  })
})

describe('every token answer', () => {
  test('carries Cache-Control: no-store', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser })
    await token(codeRequest(code, verifier))
    await token(codeRequest(code, 'v'.repeat(43)))
    await token({ grant_type: 'nope' })
    await token({ grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId })
    await send(h, 'POST', '/api/auth/oauth2/token', {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).then((r) => replies.push(r))
    expect(replies.length).toBe(5)
    for (const reply of replies) expect(reply.headers.get('cache-control')).toBe('no-store')
  })

  test('never logs codes, verifiers or tokens', async () => {
    const { code, verifier } = await obtainCode(h, { clientId, browser })
    const body = (await token(codeRequest(code, verifier))).body as { access_token: string; refresh_token: string }
    await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: clientId })
    const logged = JSON.stringify(h.logs)
    for (const secret of [code, verifier, body.access_token, body.refresh_token]) expect(logged).not.toContain(secret)
  })
})
