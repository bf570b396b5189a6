import { beforeEach, describe, expect, test } from 'bun:test'
import { hashSecret } from '../../core/auth/secrets.ts'
import { SCOPES } from '../../core/types.ts'
import { createSession } from '../../adapters/app/web-sessions.ts'
import { csrfCookieName, sessionCookieName } from '../../adapters/http/browser-session.ts'
import { issueAccessToken } from '../../adapters/oauth/access-tokens.ts'
import { insertClient } from '../../adapters/storage/oauth.ts'
import { oauthGrants } from '../../adapters/storage/schema.ts'
import { BASE, countRows, createHarness, random, type Harness, type TestUser } from '../helpers/harness.ts'
import {
  authorize,
  authorizeBody,
  CHROME_REDIRECT,
  codeRow,
  connectRowCounts,
  expectConnectError,
  expectValidationError,
  FIREFOX_REDIRECT,
  RAYCAST_REDIRECT,
  RFC7636_CHALLENGE,
} from './connect-fixtures.ts'

// POST /connect/authorize (docs/oauth.md#connect-flow): any valid credential; every value problem is a
// ConnectError, every shape problem a ValidationError, and neither writes anything.

let h: Harness
let person: TestUser
let token: string

beforeEach(async () => {
  h = await createHarness()
  person = await h.user()
  token = await person.key()
})

describe('POST /connect/authorize: success', () => {
  test.each([
    ['chrome-extension', CHROME_REDIRECT],
    ['chrome-extension', FIREFOX_REDIRECT],
    ['raycast', RAYCAST_REDIRECT],
    ['raycast', 'raycast://oauth?package_name=readlater'],
  ])(
    '%s with %s: 200 { code }, stored only hashed and bound to everything asked, for 5 minutes',
    async (client, redirectUri) => {
      const reply = await authorize(h, token, { client, redirectUri })
      expect(reply.status).toBe(200)
      expect(Object.keys(reply.body)).toEqual(['code'])
      expect(reply.body.code).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(reply.headers.get('cache-control')).toBe('no-store')
      expect(reply.headers.get('ratelimit-limit')).toBe('600')

      const rows = await h.db.$client.execute('SELECT * FROM connect_codes')
      expect(rows.rows.length).toBe(1)
      expect({ ...rows.rows[0] }).toEqual({
        code_hash: hashSecret(reply.body.code),
        user_id: person.id,
        client,
        redirect_uri: redirectUri,
        code_challenge: RFC7636_CHALLENGE,
        scopes: JSON.stringify(['saved-items:capture', 'saved-items:read', 'folders:read']),
        label: 'Chrome on my laptop',
        device_hint: 'MacBook Air, Chrome 142',
        // The code (and the key traded for it) belongs to the key that asked (docs/security.md#connect-issued-keys).
        issued_by_key_id: expect.any(String),
        issued_by_grant_id: null,
        expires_at: '2026-11-22T10:05:00.000Z',
        used_at: null,
      })
      // The code itself is nowhere in the database.
      const dump = await h.db.$client.execute('SELECT * FROM connect_codes')
      expect(JSON.stringify(dump.rows)).not.toContain(reply.body.code)
    },
  )

  test('each call issues a new code; the label is trimmed, duplicate scopes dropped, and deviceHint may be null or absent', async () => {
    const first = await authorize(h, token, {
      label: '  Raycast  ',
      deviceHint: null,
      scopes: ['folders:read', 'folders:read'],
    })
    const second = await authorize(h, token, { deviceHint: undefined })
    expect([first.status, second.status]).toEqual([200, 200])
    expect(first.body.code).not.toBe(second.body.code)
    expect(await codeRow(h, first.body.code)).toMatchObject({
      label: 'Raycast',
      device_hint: null,
      scopes: '["folders:read"]',
    })
    expect(await codeRow(h, second.body.code)).toMatchObject({ device_hint: null })
  })

  test('a caller may hand out exactly its own scopes, or fewer', async () => {
    const narrow = await person.key(['saved-items:read', 'folders:read'])
    expect((await authorize(h, narrow, { scopes: ['saved-items:read', 'folders:read'] })).status).toBe(200)
    expect((await authorize(h, narrow, { scopes: ['folders:read'] })).status).toBe(200)
  })

  test('needs no particular scope: a key holding only account:read may connect a client with account:read', async () => {
    const minimal = await person.key(['account:read'])
    expect((await authorize(h, minimal, { scopes: ['account:read'] })).status).toBe(200)
  })

  test('a signed-in browser (session cookie + CSRF header) may authorize, with every scope', async () => {
    const session = await createSession({ db: h.db, clock: h.clock, random }, person.id)
    const cookie = `${sessionCookieName(false)}=${session}; ${csrfCookieName(false)}=csrf-value`
    const withCsrf = await h.call('POST', '/connect/authorize', {
      body: authorizeBody({ scopes: [...SCOPES] }),
      headers: { cookie, 'x-csrf-token': 'csrf-value' },
    })
    expect(withCsrf.status).toBe(200)
    expect(await codeRow(h, withCsrf.body.code)).toMatchObject({ user_id: person.id })
    // Without the CSRF header another site could ride the cookie: refused, nothing written.
    const before = await connectRowCounts(h)
    const withoutCsrf = await h.call('POST', '/connect/authorize', { body: authorizeBody(), headers: { cookie } })
    expect(withoutCsrf.status).toBe(401)
    expect(await connectRowCounts(h)).toEqual(before)
  })
})

/** An OAuth access token for `person`, through a real grant row, as the token endpoint would issue it. */
async function accessToken(scopes: string[], audience: string): Promise<string> {
  const clientId = `client-${crypto.randomUUID()}`
  const grantId = crypto.randomUUID()
  const now = h.clock.now().toISOString()
  await insertClient(h.db, {
    id: clientId,
    name: 'Agent',
    redirectUris: ['http://127.0.0.1/cb'],
    grantTypes: ['authorization_code'],
    scope: null,
    metadata: {},
    createdAt: now,
  })
  await h.db
    .insert(oauthGrants)
    .values({ id: grantId, userId: person.id, clientId, scopes, resource: audience, createdAt: now })
  return issueAccessToken(
    { db: h.db, config: h.config, clock: h.clock, random, log: () => {} },
    { grantId, userId: person.id, clientId, scope: scopes.join(' '), audience },
  )
}

describe('POST /connect/authorize: with an OAuth access token', () => {
  test('a token for {base} may connect a client within its own scopes, and no further', async () => {
    const jwt = await accessToken(['saved-items:read', 'saved-items:capture'], BASE)
    const ok = await authorize(h, jwt, { scopes: ['saved-items:capture'] })
    expect(ok.status).toBe(200)
    expect(await codeRow(h, ok.body.code)).toMatchObject({ user_id: person.id, scopes: '["saved-items:capture"]' })
    expectConnectError(await authorize(h, jwt, { scopes: ['saved-items:capture', 'folders:read'] }), 'invalid_scope')
  })

  test('a token for {base}/mcp is refused with 401 (docs/security.md#credentials: /connect/authorize accepts only aud {base})', async () => {
    const jwt = await accessToken(['saved-items:read'], `${BASE}/mcp`)
    const reply = await authorize(h, jwt, { scopes: ['saved-items:read'] })
    expect(reply.status).toBe(401)
    expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect((await connectRowCounts(h)).codes).toBe(0)
  })
})

describe('POST /connect/authorize: Idempotency-Key', () => {
  test('a retry with the same key gets a new code: an answer carrying a secret is never stored for replay', async () => {
    const headers = { 'idempotency-key': 'connect-1' }
    const first = await h.call('POST', '/connect/authorize', { token, body: authorizeBody(), headers })
    const again = await h.call('POST', '/connect/authorize', { token, body: authorizeBody(), headers })
    expect([first.status, again.status]).toEqual([200, 200])
    expect(again.body.code).not.toBe(first.body.code)
    expect(again.headers.get('idempotent-replayed')).toBeNull()
    expect((await connectRowCounts(h)).codes).toBe(2)
    expect(await countRows(h.db, 'idempotency_keys')).toBe(0)
  })
})

describe('POST /connect/authorize: credentials', () => {
  test('401 Unauthorized without a credential, with the resource-metadata challenge; nothing written', async () => {
    const reply = await authorize(h, undefined)
    expect(reply.status).toBe(401)
    expect(reply.body).toEqual({ _tag: 'Unauthorized', message: expect.any(String) })
    expect(reply.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`,
    )
    expect(await connectRowCounts(h)).toEqual({ codes: 0, keys: 1 })
  })

  test('401 with an unknown or revoked key, before the body is even looked at', async () => {
    await h.db.$client.execute({ sql: 'UPDATE api_keys SET revoked_at = ?', args: ['2026-11-22T09:00:00.000Z'] })
    for (const credential of [token, 'rlk_' + 'A'.repeat(43), 'not-a-token']) {
      const reply = await h.call('POST', '/connect/authorize', { token: credential, body: { nonsense: true } })
      expect(reply.status).toBe(401)
      expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"')
    }
    expect(await connectRowCounts(h)).toEqual({ codes: 0, keys: 1 })
  })
})

describe('POST /connect/authorize: ConnectError for every value problem, nothing written', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['an unknown client', { client: 'firefox-extension' }, 'unknown_client'],
    ['an empty client', { client: '' }, 'unknown_client'],
    ['a client name in another case', { client: 'Raycast', redirectUri: RAYCAST_REDIRECT }, 'unknown_client'],
    ['a redirect URI on another host', { redirectUri: 'https://evil.example/callback' }, 'invalid_redirect_uri'],
    [
      'an extension id outside a–p',
      { redirectUri: `https://${'z'.repeat(32)}.chromiumapp.org/cb` },
      'invalid_redirect_uri',
    ],
    [
      'a look-alike chromiumapp host',
      { redirectUri: 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org.evil.example/' },
      'invalid_redirect_uri',
    ],
    [
      'a look-alike of the Firefox host',
      { redirectUri: FIREFOX_REDIRECT.replace('allizom.org/', 'allizom.org.evil.com/') },
      'invalid_redirect_uri',
    ],
    [
      'a Firefox hash of 39 digits',
      { redirectUri: FIREFOX_REDIRECT.replace('01234567.', '1234567.') },
      'invalid_redirect_uri',
    ],
    ['the Firefox redirect for raycast', { client: 'raycast', redirectUri: FIREFOX_REDIRECT }, 'invalid_redirect_uri'],
    ['http instead of https', { redirectUri: CHROME_REDIRECT.replace('https:', 'http:') }, 'invalid_redirect_uri'],
    ['a fragment', { redirectUri: `${CHROME_REDIRECT}#x` }, 'invalid_redirect_uri'],
    ['the other client’s redirect URI', { client: 'raycast', redirectUri: CHROME_REDIRECT }, 'invalid_redirect_uri'],
    [
      'a raycast.com path other than /redirect',
      { client: 'raycast', redirectUri: 'https://raycast.com/login' },
      'invalid_redirect_uri',
    ],
    ['javascript:', { client: 'raycast', redirectUri: 'javascript:alert(1)' }, 'invalid_redirect_uri'],
    ['an unknown scope', { scopes: ['saved-items:read', 'saved-items:everything'] }, 'invalid_scope'],
    ['an empty scope list', { scopes: [] }, 'invalid_scope'],
    ['offline_access (keys do not refresh)', { scopes: ['offline_access'] }, 'invalid_scope'],
  ]
  test.each(cases)('%s → %s', async (_name, overrides, code) => {
    const reply = await authorize(h, token, overrides)
    expectConnectError(reply, code)
    expect(reply.headers.get('ratelimit-remaining')).not.toBeNull()
    expect(await connectRowCounts(h)).toEqual({ codes: 0, keys: 1 })
  })

  test('scope escalation: a key with only saved-items:read asking for folders:write → invalid_scope, nothing written', async () => {
    const narrow = await person.key(['saved-items:read'])
    const reply = await authorize(h, narrow, { scopes: ['saved-items:read', 'folders:write'] })
    expectConnectError(reply, 'invalid_scope')
    expect(reply.body.message).toContain('folders:write')
    expect(await connectRowCounts(h)).toEqual({ codes: 0, keys: 2 })
  })

  test('unknown scope values are not echoed back in the message', async () => {
    const reply = await authorize(h, token, { scopes: ['<script>alert(1)</script>'] })
    expectConnectError(reply, 'invalid_scope')
    expect(reply.body.message).not.toContain('<script>')
  })
})

describe('POST /connect/authorize: ValidationError for the shape, nothing written', () => {
  const cases: [string, Record<string, unknown>, RegExp | string][] = [
    ['a missing client', { client: undefined }, /^body\.client: /],
    ['a missing redirectUri', { redirectUri: undefined }, /^body\.redirectUri: /],
    ['a missing codeChallenge', { codeChallenge: undefined }, /^body\.codeChallenge: /],
    ['a missing codeChallengeMethod', { codeChallengeMethod: undefined }, /^body\.codeChallengeMethod: /],
    ['missing scopes', { scopes: undefined }, /^body\.scopes: /],
    ['a missing label', { label: undefined }, /^body\.label: /],
    ['client as a number', { client: 7 }, /^body\.client: /],
    ['scopes as a string', { scopes: 'saved-items:read' }, /^body\.scopes: /],
    ['a scope that is not a string', { scopes: ['saved-items:read', 1] }, /^body\.scopes\.1: /],
    ['label as an object', { label: { text: 'x' } }, /^body\.label: /],
    ['deviceHint as a boolean', { deviceHint: true }, /^body\.deviceHint: /],
    ['an extra field', { state: 'abc' }, 'body.state: unknown property'],
    ['codeChallengeMethod plain', { codeChallengeMethod: 'plain' }, 'body.codeChallengeMethod: must be one of "S256"'],
    [
      'codeChallengeMethod in lower case',
      { codeChallengeMethod: 's256' },
      'body.codeChallengeMethod: must be one of "S256"',
    ],
    ['a hex digest as challenge', { codeChallenge: 'ab'.repeat(32) }, /^body\.codeChallenge: /],
    ['a padded challenge', { codeChallenge: `${RFC7636_CHALLENGE}=` }, /^body\.codeChallenge: /],
    ['a blank label', { label: '   ' }, 'body.label: must not be empty or only whitespace'],
    ['an empty label', { label: '' }, 'body.label: must not be empty or only whitespace'],
    ['a 101-character label', { label: 'l'.repeat(101) }, 'body.label: must be at most 100 characters'],
    [
      'a label with a line break',
      { label: 'Chrome\nlaptop' },
      /^body\.label: must not contain control, invisible or bidirectional characters/,
    ],
    ['a 201-character deviceHint', { deviceHint: 'd'.repeat(201) }, 'body.deviceHint: must be at most 200 characters'],
  ]
  test.each(cases)('%s', async (_name, overrides, message) => {
    const body = authorizeBody(overrides)
    for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete body[key]
    const reply = await h.call('POST', '/connect/authorize', { token, body })
    expectValidationError(reply, message)
    expect(await connectRowCounts(h)).toEqual({ codes: 0, keys: 1 })
  })

  test('shape is checked before values: a missing field with an unknown client is a ValidationError', async () => {
    const { label, ...body } = authorizeBody({ client: 'nope' })
    expectValidationError(await h.call('POST', '/connect/authorize', { token, body }), /^body\.label: /)
  })

  test('a body that is not JSON, not an object, or sent as a form is refused without a write', async () => {
    expectValidationError(
      await h.call('POST', '/connect/authorize', {
        token,
        raw: '{"client":',
        headers: { 'content-type': 'application/json' },
      }),
    )
    expectValidationError(await h.call('POST', '/connect/authorize', { token, body: [authorizeBody()] }))
    const form = await h.call('POST', '/connect/authorize', {
      token,
      raw: 'client=raycast',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).toBe(415)
    expect(form.body._tag).toBe('UnsupportedMediaTypeError')
    expect(await connectRowCounts(h)).toEqual({ codes: 0, keys: 1 })
  })
})
