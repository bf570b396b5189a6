import { beforeEach, describe, expect, test } from 'bun:test'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { listApiKeys, revokeApiKey } from '../../adapters/storage/api-keys.ts'
import { createSession } from '../../adapters/app/web-sessions.ts'
import { csrfCookieName, sessionCookieName } from '../../adapters/http/browser-session.ts'
import { createHarness, random, type Harness, type TestUser } from '../helpers/harness.ts'
import {
  codeFor,
  codeRow,
  connectRowCounts,
  exchange,
  expectConnectError,
  expectValidationError,
  pkcePair,
  REDIRECTS,
  RFC7636_CHALLENGE,
  RFC7636_VERIFIER,
} from './connect-fixtures.ts'

// POST /connect/exchange (docs/oauth.md#connect-flow): public; the code is single use, 5 minutes, bound to
// its client and PKCE challenge; the answer is an API key tied to the client and device hint.

let h: Harness
let person: TestUser
let token: string

beforeEach(async () => {
  h = await createHarness()
  person = await h.user()
  token = await person.key()
})

describe('POST /connect/exchange: the whole flow', () => {
  test.each(['chrome-extension', 'raycast'] as const)(
    '%s: the key works, is listed in settings with its client, and its captures say so',
    async (client) => {
      const { verifier, challenge } = pkcePair()
      const code = await codeFor(h, token, {
        client,
        redirectUri: REDIRECTS[client],
        codeChallenge: challenge,
        scopes: ['saved-items:capture', 'saved-items:read', 'folders:read'],
        label: `${client} at work`,
        deviceHint: 'Work laptop',
      })
      h.clock.advance(60_000)
      // No credential on the exchange: the client has none yet.
      const reply = await exchange(h, { client, code, codeVerifier: verifier })
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({
        apiKey: expect.stringMatching(/^rlk_[A-Za-z0-9_-]{43}$/),
        scopes: ['saved-items:capture', 'saved-items:read', 'folders:read'],
        label: `${client} at work`,
      })
      expect(reply.headers.get('cache-control')).toBe('no-store')
      const apiKey: string = reply.body.apiKey

      const folders = await h.call('GET', '/v1/folders', { token: apiKey })
      expect(folders.status).toBe(200)
      expect(folders.body).toEqual({ folders: [] })
      // Exactly the scopes granted: folders:write was not asked for.
      const denied = await h.call('POST', '/v1/folders', { token: apiKey, body: { name: 'Nope' } })
      expect(denied.status).toBe(403)
      expect(denied.body.requiredScope).toBe('folders:write')

      const capture = await h.call('POST', '/v1/captures', {
        token: apiKey,
        body: { url: `https://example.org/${client}` },
      })
      expect(capture.status).toBe(201)
      expect(capture.body.savedItem.captureChannel).toBe(client)
      const explicit = await h.call('POST', '/v1/captures', {
        token: apiKey,
        body: { url: 'https://example.org/other', captureChannel: 'web-companion' },
      })
      expect(explicit.body.savedItem.captureChannel).toBe('web-companion')

      const keys = await listApiKeys(h.db, person.id)
      const issued = keys.find((key) => key.keyHash === hashApiKey(apiKey))
      expect(issued).toMatchObject({
        userId: person.id,
        label: `${client} at work`,
        scopes: ['saved-items:capture', 'saved-items:read', 'folders:read'],
        connectClient: client,
        deviceHint: 'Work laptop',
        prefix: apiKey.slice(0, 12),
        createdAt: '2026-11-22T10:01:00.000Z',
        revokedAt: null,
      })
      expect(await codeRow(h, code)).toMatchObject({ used_at: '2026-11-22T10:01:00.000Z' })

      // Revocable like any key: the very next call is 401.
      expect(await revokeApiKey(h.db, person.id, issued!.id, '2026-11-22T10:02:00.000Z')).toBe(true)
      const after = await h.call('GET', '/v1/folders', { token: apiKey })
      expect(after.status).toBe(401)
    },
  )

  test('settings lists the key with its label, client and device hint (escaped), and its Revoke button ends it', async () => {
    const code = await codeFor(h, token, {
      client: 'raycast',
      redirectUri: REDIRECTS.raycast,
      codeChallenge: RFC7636_CHALLENGE,
      label: '<b>Raycast</b>',
      deviceHint: 'Mac "mini"',
    })
    const { body } = await exchange(h, { client: 'raycast', code, codeVerifier: RFC7636_VERIFIER })
    const session = await createSession({ db: h.db, clock: h.clock, random }, person.id)
    const cookie = `${sessionCookieName(false)}=${session}; ${csrfCookieName(false)}=csrf-value`
    const page = await h.call('GET', '/settings', { headers: { cookie }, unchecked: true })
    expect(page.status).toBe(200)
    expect(page.text).toContain('&lt;b&gt;Raycast&lt;/b&gt;')
    expect(page.text).not.toContain('<b>Raycast</b>')
    expect(page.text).toContain('raycast · Mac &quot;mini&quot;')
    expect(page.text).toContain(`${body.apiKey.slice(0, 12)}…`)
    expect(page.text).not.toContain(body.apiKey)

    const issued = (await listApiKeys(h.db, person.id)).find((key) => key.keyHash === hashApiKey(body.apiKey))!
    const revoke = await h.call('POST', `/settings/api-keys/${issued.id}/revoke`, {
      raw: 'csrf=csrf-value',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      unchecked: true,
    })
    expect(revoke.status).toBe(303)
    expect((await h.call('GET', '/v1/saved-items', { token: body.apiKey })).status).toBe(401)
  })

  test('the RFC 7636 Appendix B verifier is accepted for its challenge', async () => {
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    const reply = await exchange(h, { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER })
    expect(reply.status).toBe(200)
  })

  test('the key acts for the person who authorized, and sees nothing of anyone else', async () => {
    const other = await h.user()
    const otherKey = await other.key()
    await h.call('POST', '/v1/folders', { token: otherKey, body: { name: 'Theirs' } })
    await h.call('POST', '/v1/folders', { token, body: { name: 'Mine' } })
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    const { body } = await exchange(h, { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER })
    const folders = await h.call('GET', '/v1/folders', { token: body.apiKey })
    expect(folders.body.folders.map((folder: { name: string }) => folder.name)).toEqual(['Mine'])
    expect((await listApiKeys(h.db, other.id)).length).toBe(1)
  })

  test('the exchange ignores an Authorization header: a revoked or bogus one changes nothing', async () => {
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    const reply = await h.call('POST', '/connect/exchange', {
      token: 'rlk_' + 'B'.repeat(43),
      body: { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER },
    })
    expect(reply.status).toBe(200)
  })

  test('no secret (code, verifier, key) reaches the logs', async () => {
    const { verifier, challenge } = pkcePair()
    const code = await codeFor(h, token, { codeChallenge: challenge })
    await exchange(h, { client: 'chrome-extension', code, codeVerifier: 'wrong'.repeat(9) })
    const second = await codeFor(h, token, { codeChallenge: challenge })
    const { body } = await exchange(h, { client: 'chrome-extension', code: second, codeVerifier: verifier })
    expect(body.apiKey).toBeDefined()
    const logs = JSON.stringify(h.logs)
    for (const secret of [code, second, verifier, body.apiKey, token]) expect(logs).not.toContain(secret)
    expect(h.logs).toContainEqual(
      expect.objectContaining({ msg: 'connect key issued', userId: person.id, client: 'chrome-extension' }),
    )
  })
})

describe('POST /connect/exchange: every ConnectError', () => {
  test('unknown client → unknown_client, and the code is left untouched', async () => {
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    expectConnectError(await exchange(h, { client: 'firefox', code, codeVerifier: RFC7636_VERIFIER }), 'unknown_client')
    expect(await codeRow(h, code)).toMatchObject({ used_at: null })
    expect((await exchange(h, { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER })).status).toBe(200)
  })

  test('an unknown code → invalid_code, nothing written', async () => {
    await codeFor(h, token)
    const before = await connectRowCounts(h)
    expectConnectError(
      await exchange(h, { client: 'chrome-extension', code: 'A'.repeat(43), codeVerifier: RFC7636_VERIFIER }),
      'invalid_code',
    )
    expectConnectError(
      await exchange(h, { client: 'chrome-extension', code: '', codeVerifier: RFC7636_VERIFIER }),
      'invalid_code',
    )
    expect(await connectRowCounts(h)).toEqual(before)
  })

  test('a reused code → invalid_code; only one key was issued', async () => {
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    const body = { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER }
    expect((await exchange(h, body)).status).toBe(200)
    expectConnectError(await exchange(h, body), 'invalid_code')
    expect((await connectRowCounts(h)).keys).toBe(2)
  })

  test('a code is good for 5 minutes exactly: 5 min + 1 ms later → invalid_code', async () => {
    const late = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    const onTime = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    h.clock.advance(5 * 60_000)
    expect(
      (await exchange(h, { client: 'chrome-extension', code: onTime, codeVerifier: RFC7636_VERIFIER })).status,
    ).toBe(200)
    h.clock.advance(1)
    expectConnectError(
      await exchange(h, { client: 'chrome-extension', code: late, codeVerifier: RFC7636_VERIFIER }),
      'invalid_code',
    )
    expect((await connectRowCounts(h)).keys).toBe(2)
  })

  test('a code issued to the other client → client_mismatch, and the code is spent', async () => {
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    expectConnectError(
      await exchange(h, { client: 'raycast', code, codeVerifier: RFC7636_VERIFIER }),
      'client_mismatch',
    )
    expectConnectError(
      await exchange(h, { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER }),
      'invalid_code',
    )
    expect((await connectRowCounts(h)).keys).toBe(1)
  })

  test('a wrong verifier → invalid_verifier, and the code is spent: the right one then gets invalid_code', async () => {
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    const wrong = RFC7636_VERIFIER.slice(0, -1) + 'j'
    const reply = await exchange(h, { client: 'chrome-extension', code, codeVerifier: wrong })
    expectConnectError(reply, 'invalid_verifier')
    expect(reply.body.message).not.toContain(wrong)
    expectConnectError(
      await exchange(h, { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER }),
      'invalid_code',
    )
    expect((await connectRowCounts(h)).keys).toBe(1)
  })

  test('a malformed verifier (too short, or the challenge itself) → invalid_verifier', async () => {
    for (const codeVerifier of ['short', RFC7636_CHALLENGE, '']) {
      const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
      expectConnectError(await exchange(h, { client: 'chrome-extension', code, codeVerifier }), 'invalid_verifier')
    }
    expect((await connectRowCounts(h)).keys).toBe(1)
  })

  test('concurrent exchanges of one code: exactly one key, the others invalid_code', async () => {
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    const replies = await Promise.all(
      Array.from({ length: 12 }, () =>
        exchange(h, { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER }),
      ),
    )
    expect(replies.filter((reply) => reply.status === 200).length).toBe(1)
    for (const reply of replies.filter((r) => r.status !== 200)) expectConnectError(reply, 'invalid_code')
    expect((await connectRowCounts(h)).keys).toBe(2)
  })
})

describe('POST /connect/exchange: ValidationError for the shape, the code untouched', () => {
  test.each([
    ['a missing codeVerifier', { codeVerifier: undefined }, /^body\.codeVerifier: /],
    ['a missing code', { code: undefined }, /^body\.code: /],
    ['a missing client', { client: undefined }, /^body\.client: /],
    ['a numeric code', { code: 12345 }, /^body\.code: /],
    ['a null verifier', { codeVerifier: null }, /^body\.codeVerifier: /],
    ['an extra field', { redirectUri: 'https://raycast.com/redirect' }, 'body.redirectUri: unknown property'],
  ] as [string, Record<string, unknown>, RegExp | string][])('%s', async (_name, overrides, message) => {
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    const body: Record<string, unknown> = {
      client: 'chrome-extension',
      code,
      codeVerifier: RFC7636_VERIFIER,
      ...overrides,
    }
    for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete body[key]
    expectValidationError(await exchange(h, body), message)
    expect(await codeRow(h, code)).toMatchObject({ used_at: null })
    expect((await connectRowCounts(h)).keys).toBe(1)
    expect((await exchange(h, { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER })).status).toBe(200)
  })

  test('a non-JSON body is 415 UnsupportedMediaTypeError, still counted per IP', async () => {
    const reply = await h.call('POST', '/connect/exchange', {
      raw: 'code=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(reply.status).toBe(415)
    expect(reply.body._tag).toBe('UnsupportedMediaTypeError')
    expect(reply.headers.get('ratelimit-remaining')).toBe('19')
  })
})
