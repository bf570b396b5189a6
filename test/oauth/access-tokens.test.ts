import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as oauth from 'oauth4webapi'
import { SignJWT, decodeJwt } from 'jose'
import { issueAccessToken, verifyAccessToken } from '../../adapters/oauth/access-tokens.ts'
import { loadSigningKeys } from '../../adapters/oauth/signing-keys.ts'
import type { AppDeps } from '../../adapters/app/deps.ts'
import { openDatabase } from '../../adapters/storage/open-database.ts'
import { BASE, countRows, createHarness, random, TestClock, type Harness } from '../helpers/harness.ts'
import { ISSUER, registerClient, send, signedIn, tokensFor, type Browserless } from './oauth-helpers.ts'

let h: Harness
let deps: AppDeps
let clientId: string
let browser: Browserless

beforeEach(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
  deps = { db: h.db, config: h.config, clock: h.clock, random, log: () => {} }
  clientId = (await registerClient(h)).client_id
  browser = await signedIn(h)
})

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function grantId(accessToken: string): Promise<string> {
  return decodeJwt(accessToken).grant_id as string
}

async function signWithOurKey(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const keys = await loadSigningKeys(h.db, h.clock)
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: keys.active.kid, typ: 'at+jwt', ...header })
    .sign(keys.active.privateKey)
}

describe('verifyAccessToken()', () => {
  test('turns a valid token into the person, the scopes the grant still holds, and the grant as credential', async () => {
    const tokens = await tokensFor(h, { clientId, browser, scope: 'saved-items:read folders:read offline_access' })
    expect(await verifyAccessToken(deps, tokens.access_token, BASE)).toEqual({
      userId: browser.userId,
      scopes: ['saved-items:read', 'folders:read'],
      credentialId: `grant:${await grantId(tokens.access_token)}`,
      kind: 'oauth',
      connectClient: null,
      offlineAccess: true,
    })
    const used = await h.db.$client.execute('SELECT last_used_at FROM oauth_grants')
    expect(used.rows[0]!.last_used_at).toBe(h.clock.now().toISOString())
  })

  test("passes oauth4webapi's RFC 9068 JWT access token validation", async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    const options = {
      [oauth.customFetch]: (url: string, init: RequestInit) => h.server.fetch(new Request(url, init)),
      [oauth.allowInsecureRequests]: true,
    }
    const as = await oauth.processDiscoveryResponse(
      new URL(ISSUER),
      await oauth.discoveryRequest(new URL(ISSUER), { ...options, algorithm: 'oauth2' }),
    )
    // oauth4webapi checks against the real time; our test clock is fixed, so give it a generous tolerance.
    const skew = Math.round((Date.now() - h.clock.now().getTime()) / 1000)
    const claims = await oauth.validateJwtAccessToken(
      { ...as, ...options } as oauth.AuthorizationServer,
      new Request(BASE, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
      BASE,
      {
        ...options,
        [oauth.clockSkew]: -skew,
      },
    )
    expect(claims).toMatchObject({ iss: ISSUER, aud: BASE, sub: browser.userId, client_id: clientId })
  })

  test('rejects a tampered signature, another issuer, alg none, a wrong typ and an unknown kid', async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    const valid = decodeJwt(tokens.access_token)
    const [head, payload, signature] = tokens.access_token.split('.')
    const flipped = signature!.slice(0, 10) + (signature![10] === 'A' ? 'B' : 'A') + signature!.slice(11)
    const widened = Buffer.from(JSON.stringify({ ...valid, scope: 'saved-items:read saved-items:delete' })).toString(
      'base64url',
    )
    const rejected = [
      `${head}.${payload}.${flipped}`,
      `${head}.${widened}.${signature}`,
      await signWithOurKey({ ...valid, iss: 'https://evil.example/api/auth' }),
      await signWithOurKey(valid, { typ: 'JWT' }),
      await signWithOurKey(valid, { typ: 'consent+jwt' }),
      await signWithOurKey(valid, { kid: 'someone-else' }),
      await signWithOurKey({ ...valid, aud: [BASE, `${BASE}/mcp`] }),
      `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`,
    ]
    for (const token of rejected) expect(await verifyAccessToken(deps, token, BASE)).toBeNull()
    expect(await verifyAccessToken(deps, tokens.access_token, BASE)).not.toBeNull()
  })

  test('rejects a token after its hour and one for the other audience', async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    expect(await verifyAccessToken(deps, tokens.access_token, `${BASE}/mcp`)).toBeNull()
    h.clock.advance(3_599_000)
    expect(await verifyAccessToken(deps, tokens.access_token, BASE)).not.toBeNull()
    h.clock.advance(1_000)
    expect(await verifyAccessToken(deps, tokens.access_token, BASE)).toBeNull()
    expect(
      (await send(h, 'GET', '/v1/saved-items', { headers: { authorization: `Bearer ${tokens.access_token}` } })).status,
    ).toBe(401)
  })

  test('rejects a token whose grant was revoked, from the next request on', async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    await h.db.$client.execute({ sql: 'UPDATE oauth_grants SET revoked_at = ?', args: [h.clock.now().toISOString()] })
    expect(await verifyAccessToken(deps, tokens.access_token, BASE)).toBeNull()
  })

  test("the consent form's ticket is not a bearer credential", async () => {
    const page = await send(
      h,
      'GET',
      `/api/auth/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&code_challenge=${'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'}&code_challenge_method=S256`,
      { headers: { cookie: browser.cookie } },
    )
    const ticket = /name="ticket" value="([^"]+)"/.exec(page.text)![1]!
    expect((await send(h, 'GET', '/v1/saved-items', { headers: { authorization: `Bearer ${ticket}` } })).status).toBe(
      401,
    )
  })

  test('a token signed by a forged key with our kid is refused', async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    const { generateKeyPair } = await import('jose')
    const forger = await generateKeyPair('ES256')
    const keys = await loadSigningKeys(h.db, h.clock)
    const forged = await new SignJWT(decodeJwt(tokens.access_token))
      .setProtectedHeader({ alg: 'ES256', kid: keys.active.kid, typ: 'at+jwt' })
      .sign(forger.privateKey)
    expect(await verifyAccessToken(deps, forged, BASE)).toBeNull()
  })
})

describe('signing keys', () => {
  test('are generated once: two processes starting at once on one database agree on one key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readlater-keys-'))
    dirs.push(dir)
    const url = `file:${join(dir, 'db.sqlite')}`
    const first = await openDatabase(url)
    const second = await openDatabase(url)
    const clock = new TestClock()
    const [a, b] = await Promise.all([loadSigningKeys(first, clock), loadSigningKeys(second, clock)])
    expect(a.active.kid).toBe(b.active.kid)
    expect(await countRows(first, 'signing_keys')).toBe(1)
    first.$client.close()
    second.$client.close()
  })

  test('survive a restart: a token issued before still verifies after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readlater-keys-'))
    dirs.push(dir)
    const dbUrl = `file:${join(dir, 'db.sqlite')}`
    const before = await createHarness({ dbUrl })
    const client = (await registerClient(before)).client_id
    const tokens = await tokensFor(before, { clientId: client, browser: await signedIn(before) })
    before.db.$client.close()
    const after = await createHarness({ dbUrl })
    expect(
      (await send(after, 'GET', '/v1/saved-items', { headers: { authorization: `Bearer ${tokens.access_token}` } }))
        .status,
    ).toBe(200)
    after.db.$client.close()
  })

  test('issueAccessToken() signs with the key the JWKS publishes', async () => {
    const token = await issueAccessToken(deps, {
      grantId: 'g',
      userId: 'u',
      clientId: 'c',
      scope: 'saved-items:read',
      audience: BASE,
    })
    const jwks = (await send(h, 'GET', '/api/auth/jwks')).body as { keys: { kid: string }[] }
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid).toBe(jwks.keys[0]!.kid)
  })
})
