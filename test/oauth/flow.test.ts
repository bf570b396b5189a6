import { afterAll, beforeAll, expect, test } from 'bun:test'
import * as oauth from 'oauth4webapi'
import type { Browser, Page } from 'playwright-core'
import { uuidv7 } from '../../core/ids.ts'
import { hashPassword } from '../../adapters/app/passwords.ts'
import { insertUser } from '../../adapters/storage/users.ts'
import { launchBrowser, startLiveServer, type LiveServer } from '../helpers/browser.ts'
import { random } from '../helpers/harness.ts'

// The whole OAuth 2.1 flow as a third-party client sees it: oauth4webapi does discovery, registration,
// PKCE, the code exchange, refresh and revocation against the service on a real port, and Debian's
// Chromium plays the person who signs in and clicks "Allow".

const EMAIL = 'agent-owner@example.com'
const PASSWORD = 'correct horse battery staple'
// Plain http on loopback is the test setup; oauth4webapi refuses it unless told.
const INSECURE = { [oauth.allowInsecureRequests]: true } as const

let live: LiveServer
let browser: Browser
let callbacks: ReturnType<typeof Bun.serve>
let nextCallback: ((url: URL) => void) | null = null

beforeAll(async () => {
  ;[live, browser] = await Promise.all([startLiveServer({ env: { IP_RATE_LIMIT_MAX: '1000' } }), launchBrowser()])
  // The agent's loopback listener (RFC 8252 §7.3), on a port the OS picks.
  callbacks = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const url = new URL(request.url)
      if (url.pathname !== '/cb') return new Response('not found', { status: 404 })
      nextCallback?.(url)
      return new Response('<!doctype html><title>Done</title><p>You can close this window.</p>', {
        headers: { 'content-type': 'text/html' },
      })
    },
  })
  const now = new Date()
  await insertUser(live.harness.db, {
    id: uuidv7(now.getTime(), random),
    email: EMAIL,
    passwordHash: await hashPassword(PASSWORD),
    createdAt: now.toISOString(),
  })
})

afterAll(async () => {
  await browser?.close()
  await callbacks?.stop(true)
  await live?.stop()
})

function callbackReceived(): Promise<URL> {
  return new Promise((resolve) => {
    nextCallback = resolve
  })
}

/** Sends the browser to the authorization URL, signs in if asked, checks the consent page and clicks "Allow". */
async function consentInBrowser(
  page: Page,
  authorizationUrl: URL,
  expectedScopes: string[],
  expectSignIn: boolean,
): Promise<URL> {
  const received = callbackReceived()
  await page.goto(authorizationUrl.href)
  const landed = new URL(page.url())
  expect(landed.pathname).toBe(expectSignIn ? '/sign-in' : '/api/auth/oauth2/authorize')
  if (expectSignIn) {
    expect(landed.searchParams.get('next')).toBe(authorizationUrl.pathname + authorizationUrl.search)
    await page.getByLabel('Email', { exact: true }).fill(EMAIL)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  }
  await page.getByRole('button', { name: 'Allow', exact: true }).waitFor()
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('oauth4webapi test agent')
  expect(await page.getByRole('list', { name: 'Requested permissions' }).locator('li code').allTextContents()).toEqual(
    expectedScopes,
  )
  await expect(page.getByRole('button', { name: 'Deny', exact: true }).isVisible()).resolves.toBe(true)
  await page.getByRole('button', { name: 'Allow', exact: true }).click()
  return received
}

test('oauth4webapi: discovery, registration, consent in Chromium, code exchange, API calls, refresh with reuse detection, revocation', async () => {
  const api = (path: string) => new URL(`${live.url}${path}`)
  const call = (accessToken: string, path: string, init: RequestInit = {}) =>
    fetch(api(path), { ...init, headers: { ...init.headers, authorization: `Bearer ${accessToken}` } })

  // 1. A call without a credential points at the protected-resource metadata.
  try {
    await oauth.protectedResourceRequest('not-a-token', 'GET', api('/v1/saved-items'), undefined, undefined, INSECURE)
    throw new Error('expected a 401 challenge')
  } catch (error) {
    if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error
    expect(error.status).toBe(401)
    const challenge = error.cause.find((c) => c.scheme === 'bearer')!
    expect(challenge.parameters.error).toBe('invalid_token')
    expect(challenge.parameters.resource_metadata).toBe(`${live.url}/.well-known/oauth-protected-resource`)
  }
  const anonymous = await fetch(api('/v1/saved-items'))
  expect(anonymous.status).toBe(401)
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(anonymous.headers.get('www-authenticate') ?? '')![1]!

  // 2. Protected-resource metadata names the authorization server.
  const resource = await oauth.processResourceDiscoveryResponse(new URL(live.url), await fetch(metadataUrl))
  expect(resource.resource).toBe(live.url)
  const issuer = new URL(resource.authorization_servers![0]!)
  expect(issuer.href).toBe(`${live.url}/api/auth`)

  // 3. Authorization-server metadata (RFC 8414 path, issuer checked by the library).
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE }),
  )
  expect(as.code_challenge_methods_supported).toEqual(['S256'])
  expect(as.authorization_response_iss_parameter_supported).toBe(true)

  // 4. Dynamic registration with a port-less loopback redirect URI; the listener's port is used at run time.
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: 'oauth4webapi test agent',
        redirect_uris: ['http://127.0.0.1/cb'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'saved-items:read saved-items:capture offline_access',
      },
      INSECURE,
    ),
  )
  expect(registered.client_secret).toBeUndefined()
  const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' }
  const redirectUri = `http://127.0.0.1:${callbacks.port}/cb`

  async function authorize(page: Page, expectSignIn: boolean): Promise<oauth.TokenEndpointResponse> {
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const url = new URL(as.authorization_endpoint!)
    url.searchParams.set('client_id', client.client_id)
    url.searchParams.set('redirect_uri', redirectUri)
    url.searchParams.set('response_type', 'code')
    url.searchParams.set('scope', 'saved-items:read saved-items:capture offline_access')
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier))
    url.searchParams.set('code_challenge_method', 'S256')
    url.searchParams.set('state', state)
    url.searchParams.set('resource', live.url)

    // 5. The person signs in and allows; the listener receives code, state and iss.
    const callback = await consentInBrowser(
      page,
      url,
      ['saved-items:capture', 'saved-items:read', 'offline_access'],
      expectSignIn,
    )
    expect(callback.searchParams.get('iss')).toBe(as.issuer)
    const params = oauth.validateAuthResponse(as, client, callback, state)

    // 6. Code exchange with the verifier.
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      {
        ...INSECURE,
        additionalParameters: { resource: live.url },
      },
    )
    expect(response.headers.get('cache-control')).toBe('no-store')
    return oauth.processAuthorizationCodeResponse(as, client, response)
  }

  const context = await browser.newContext()
  // Below the test's own timeout, so a stuck step fails with Playwright's message naming it.
  context.setDefaultTimeout(15_000)
  const page = await context.newPage()
  const tokens = await authorize(page, true)
  expect(tokens.token_type).toBe('bearer')
  expect(tokens.expires_in).toBe(3600)
  expect(tokens.scope).toBe('saved-items:capture saved-items:read offline_access')
  expect(tokens.refresh_token).toBeString()

  // 7. The REST API accepts the token, within its scopes.
  const captured = await oauth.protectedResourceRequest(
    tokens.access_token,
    'POST',
    api('/v1/captures'),
    new Headers({ 'content-type': 'application/json' }),
    JSON.stringify({ url: 'https://example.org/oauth-article' }),
    INSECURE,
  )
  expect(captured.status).toBe(201)
  const listed = await oauth.protectedResourceRequest(
    tokens.access_token,
    'GET',
    api('/v1/saved-items'),
    undefined,
    undefined,
    INSECURE,
  )
  expect(listed.status).toBe(200)
  expect(
    ((await listed.json()) as { savedItems: { normalizedUrl: string }[] }).savedItems.map((i) => i.normalizedUrl),
  ).toEqual(['https://example.org/oauth-article'])
  expect((await call(tokens.access_token, '/v1/folders')).status).toBe(403)

  // 8. Refresh rotates: the new tokens work; the old refresh token fails, and that reuse revokes the grant.
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, INSECURE),
  )
  expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
  expect((await call(refreshed.access_token, '/v1/saved-items')).status).toBe(200)
  const reuse = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, INSECURE)
  const reuseError = await oauth.processRefreshTokenResponse(as, client, reuse).then(
    () => null,
    (error: unknown) => error,
  )
  expect(reuseError).toBeInstanceOf(oauth.ResponseBodyError)
  expect((reuseError as oauth.ResponseBodyError).error).toBe('invalid_grant')
  const afterReuse = await call(refreshed.access_token, '/v1/saved-items')
  expect(afterReuse.status).toBe(401)
  expect(afterReuse.headers.get('www-authenticate')).toContain('error="invalid_token"')

  // 9. A second authorization (already signed in: straight to consent), then revocation ends it.
  const again = await authorize(page, false)
  expect((await call(again.access_token, '/v1/saved-items')).status).toBe(200)
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, client, oauth.None(), again.access_token, INSECURE),
  )
  const afterRevocation = await call(again.access_token, '/v1/saved-items')
  expect(afterRevocation.status).toBe(401)
  expect(afterRevocation.headers.get('www-authenticate')).toBe(
    `Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", resource_metadata="${live.url}/.well-known/oauth-protected-resource"`,
  )
  const refreshAfterRevocation = await oauth.refreshTokenGrantRequest(
    as,
    client,
    oauth.None(),
    again.refresh_token!,
    INSECURE,
  )
  expect(refreshAfterRevocation.status).toBe(400)
}, 60_000)
