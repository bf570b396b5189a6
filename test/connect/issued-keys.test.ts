import { beforeEach, describe, expect, test } from 'bun:test'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { revokeApiKey } from '../../adapters/storage/api-keys.ts'
import { createHarness, type Harness } from '../helpers/harness.ts'
import { form, registerClient, send, signedIn, tokensFor } from '../oauth/oauth-helpers.ts'
import { codeFor, exchange, expectConnectError, pkcePair } from './connect-fixtures.ts'

// Regression for a revocation escape: a key minted through /connect/authorize outlived the OAuth grant or
// API key that minted it. Keys issued through the connect flow belong to that credential and die with it,
// transitively (docs/security.md#connect-issued-keys).

let h: Harness

beforeEach(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
})

/** Connects a client with `token` and returns the key the client gets. */
async function mint(token: string, scopes = ['saved-items:read']): Promise<string> {
  const { verifier, challenge } = pkcePair()
  const code = await codeFor(h, token, { codeChallenge: challenge, scopes })
  const reply = await exchange(h, { client: 'chrome-extension', code, codeVerifier: verifier })
  expect(reply.status).toBe(200)
  return reply.body.apiKey
}

const works = async (key: string): Promise<number> => (await h.call('GET', '/v1/saved-items', { token: key })).status

async function keyRow(key: string): Promise<Record<string, unknown>> {
  const result = await h.db.$client.execute({
    sql: 'SELECT * FROM api_keys WHERE key_hash = ?',
    args: [hashApiKey(key)],
  })
  return { ...result.rows[0] }
}

describe('keys issued through the connect flow', () => {
  test('record the API key that authorized them', async () => {
    const user = await h.user()
    const parent = await user.key()
    const child = await mint(parent)
    const parentRow = await keyRow(parent)
    expect(await keyRow(child)).toMatchObject({ issued_by_key_id: parentRow.id, issued_by_grant_id: null })
  })

  test('die with the API key that issued them, transitively', async () => {
    const user = await h.user()
    const parent = await user.key()
    const child = await mint(parent, ['saved-items:read', 'account:read'])
    const grandchild = await mint(child)
    const sibling = await user.key()
    expect([await works(child), await works(grandchild)]).toEqual([200, 200])
    expect(await revokeApiKey(h.db, user.id, String((await keyRow(parent)).id), h.clock.now().toISOString())).toBe(true)
    expect([await works(parent), await works(child), await works(grandchild)]).toEqual([401, 401, 401])
    expect(await works(sibling)).toBe(200)
  })

  test('revoking a middle key ends its descendants but not its issuer', async () => {
    const user = await h.user()
    const parent = await user.key()
    const child = await mint(parent, ['saved-items:read', 'account:read'])
    const grandchild = await mint(child)
    await revokeApiKey(h.db, null, String((await keyRow(child)).id), h.clock.now().toISOString())
    expect([await works(parent), await works(child), await works(grandchild)]).toEqual([200, 401, 401])
  })

  test('die with the OAuth grant whose token issued them: RFC 7009 revocation', async () => {
    const browser = await signedIn(h)
    const client = await registerClient(h)
    const tokens = await tokensFor(h, { clientId: client.client_id, browser, scope: 'saved-items:read offline_access' })
    const minted = await mint(tokens.access_token)
    expect(await keyRow(minted)).toMatchObject({ issued_by_key_id: null, issued_by_grant_id: expect.any(String) })
    expect(await works(minted)).toBe(200)
    const revoked = await send(
      h,
      'POST',
      '/api/auth/oauth2/revoke',
      form({ token: tokens.refresh_token!, client_id: client.client_id }),
    )
    expect(revoked.status).toBe(200)
    expect(await works(minted)).toBe(401)
  })

  test('die with the OAuth grant revoked in settings ("Connected agents")', async () => {
    const browser = await signedIn(h)
    const client = await registerClient(h)
    const tokens = await tokensFor(h, { clientId: client.client_id, browser, scope: 'saved-items:read' })
    const minted = await mint(tokens.access_token)
    const grantId = String((await keyRow(minted)).issued_by_grant_id)
    const reply = await send(h, 'POST', `/settings/agents/${grantId}/revoke`, {
      headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: browser.csrf }).toString(),
    })
    expect(reply.status).toBe(303)
    expect(await works(minted)).toBe(401)
  })

  test('a code whose issuer was revoked before the exchange yields no key (invalid_code)', async () => {
    const user = await h.user()
    const parent = await user.key()
    const { verifier, challenge } = pkcePair()
    const code = await codeFor(h, parent, { codeChallenge: challenge, scopes: ['saved-items:read'] })
    await revokeApiKey(h.db, user.id, String((await keyRow(parent)).id), h.clock.now().toISOString())
    const before = (await h.db.$client.execute('SELECT count(*) AS n FROM api_keys')).rows[0]!.n
    expectConnectError(await exchange(h, { client: 'chrome-extension', code, codeVerifier: verifier }), 'invalid_code')
    expect((await h.db.$client.execute('SELECT count(*) AS n FROM api_keys')).rows[0]!.n).toBe(before)
  })

  test('a key connected from a signed-in web session is personal: it outlives the session', async () => {
    const browser = await signedIn(h)
    const { verifier, challenge } = pkcePair()
    const authorized = await send(h, 'POST', '/connect/authorize', {
      headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({
        client: 'raycast',
        redirectUri: 'raycast://callback',
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
        scopes: ['saved-items:read'],
        label: 'Raycast',
      }),
    })
    expect(authorized.status).toBe(200)
    const reply = await exchange(h, { client: 'raycast', code: authorized.body.code, codeVerifier: verifier })
    expect(await keyRow(reply.body.apiKey)).toMatchObject({ issued_by_key_id: null, issued_by_grant_id: null })
    await h.db.$client.execute({ sql: 'DELETE FROM web_sessions WHERE user_id = ?', args: [browser.userId] })
    expect(await works(reply.body.apiKey)).toBe(200)
  })
})
