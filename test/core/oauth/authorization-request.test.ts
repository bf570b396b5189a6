import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  authorizationResponseLocation,
  checkAuthorizationRequest,
  type RegisteredClient,
} from '../../../core/oauth/authorization-request.ts'

const BASE = 'https://readlater.example'
const ISS = `${BASE}/api/auth`
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
const CLIENT: RegisteredClient = {
  id: 'client-1',
  name: 'Agent',
  redirectUris: ['https://agent.example/cb', 'http://127.0.0.1/cb'],
  grantTypes: ['authorization_code', 'refresh_token'],
  scope: null,
}

function params(overrides: Record<string, string | null> = {}): URLSearchParams {
  const base: Record<string, string | null> = {
    response_type: 'code',
    client_id: 'client-1',
    redirect_uri: 'https://agent.example/cb',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state: 'st-1',
    scope: 'saved-items:read',
    ...overrides,
  }
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(base)) if (value !== null) search.append(name, value)
  return search
}

function redirectError(check: ReturnType<typeof checkAuthorizationRequest>): URL {
  assert.equal(check.kind, 'error-redirect')
  return new URL((check as { location: string }).location)
}

test('checkAuthorizationRequest() accepts a complete request and defaults the resource to {base}', () => {
  assert.deepEqual(checkAuthorizationRequest(params(), CLIENT, BASE), {
    kind: 'valid',
    request: {
      clientId: 'client-1',
      redirectUri: 'https://agent.example/cb',
      scopes: ['saved-items:read'],
      codeChallenge: CHALLENGE,
      state: 'st-1',
      resource: BASE,
    },
  })
})

test('checkAuthorizationRequest() shows a page, never redirects, for an unknown client or redirect URI', () => {
  assert.equal(checkAuthorizationRequest(params(), null, BASE).kind, 'error-page')
  assert.equal(checkAuthorizationRequest(params({ client_id: null }), CLIENT, BASE).kind, 'error-page')
  assert.equal(
    checkAuthorizationRequest(params({ redirect_uri: 'https://evil.example/cb' }), CLIENT, BASE).kind,
    'error-page',
  )
  assert.equal(checkAuthorizationRequest(params({ redirect_uri: null }), CLIENT, BASE).kind, 'error-page')
  // Even an otherwise broken request must not redirect to an unregistered URI.
  assert.equal(
    checkAuthorizationRequest(params({ redirect_uri: 'https://evil.example/cb', response_type: 'token' }), CLIENT, BASE)
      .kind,
    'error-page',
  )
})

test('checkAuthorizationRequest() redirects errors with state and iss', () => {
  const cases: [Record<string, string | null>, string][] = [
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ response_type: null }, 'invalid_request'],
    [{ code_challenge: null }, 'invalid_request'],
    [{ code_challenge_method: null }, 'invalid_request'],
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge: 'too-short' }, 'invalid_request'],
    [{ scope: 'saved-items:read admin' }, 'invalid_scope'],
    [{ resource: 'https://other.example' }, 'invalid_target'],
    [{ resource: `${BASE}/` }, 'invalid_target'],
    [{ prompt: 'none' }, 'consent_required'],
  ]
  for (const [overrides, error] of cases) {
    const url = redirectError(checkAuthorizationRequest(params(overrides), CLIENT, BASE))
    assert.equal(url.origin + url.pathname, 'https://agent.example/cb')
    assert.equal(url.searchParams.get('error'), error, JSON.stringify(overrides))
    assert.equal(url.searchParams.get('state'), 'st-1')
    assert.equal(url.searchParams.get('iss'), ISS)
    assert.ok(url.searchParams.get('error_description'))
  }
})

test('checkAuthorizationRequest() refuses repeated parameters', () => {
  const search = params()
  search.append('scope', 'folders:read')
  assert.equal(
    redirectError(checkAuthorizationRequest(search, CLIENT, BASE)).searchParams.get('error'),
    'invalid_request',
  )
  const twoResources = params({ resource: BASE })
  twoResources.append('resource', `${BASE}/mcp`)
  assert.equal(
    redirectError(checkAuthorizationRequest(twoResources, CLIENT, BASE)).searchParams.get('error'),
    'invalid_target',
  )
})

test('checkAuthorizationRequest() takes {base}/mcp as a resource', () => {
  const check = checkAuthorizationRequest(params({ resource: `${BASE}/mcp` }), CLIENT, BASE)
  assert.equal(check.kind === 'valid' && check.request.resource, `${BASE}/mcp`)
})

test('checkAuthorizationRequest() without scope uses the registered scope, else saved-items:read folders:read', () => {
  const plain = checkAuthorizationRequest(params({ scope: null }), CLIENT, BASE)
  assert.deepEqual(plain.kind === 'valid' && plain.request.scopes, ['saved-items:read', 'folders:read'])
  const registered = checkAuthorizationRequest(
    params({ scope: '' }),
    { ...CLIENT, scope: 'account:read offline_access' },
    BASE,
  )
  assert.deepEqual(registered.kind === 'valid' && registered.request.scopes, ['account:read', 'offline_access'])
})

test('checkAuthorizationRequest() splits scope on spaces and plus signs, deduplicated, in canonical order', () => {
  const check = checkAuthorizationRequest(
    params({ scope: 'offline_access+folders:read saved-items:read folders:read' }),
    CLIENT,
    BASE,
  )
  assert.deepEqual(check.kind === 'valid' && check.request.scopes, [
    'saved-items:read',
    'folders:read',
    'offline_access',
  ])
})

test('checkAuthorizationRequest() lets loopback redirects use any port and answers to that port', () => {
  const check = checkAuthorizationRequest(
    params({ redirect_uri: 'http://127.0.0.1:49152/cb', response_type: 'token' }),
    CLIENT,
    BASE,
  )
  const url = redirectError(check)
  assert.equal(url.host, '127.0.0.1:49152')
})

test('checkAuthorizationRequest() refuses offline_access for a client without the refresh_token grant', () => {
  const url = redirectError(
    checkAuthorizationRequest(
      params({ scope: 'offline_access' }),
      { ...CLIENT, grantTypes: ['authorization_code'] },
      BASE,
    ),
  )
  assert.equal(url.searchParams.get('error'), 'invalid_scope')
})

test('authorizationResponseLocation() keeps the redirect URI query and leaves out a missing state', () => {
  const location = new URL(
    authorizationResponseLocation('https://agent.example/cb?tenant=a', BASE, { code: 'c0de', state: null }),
  )
  assert.deepEqual(
    [...location.searchParams],
    [
      ['tenant', 'a'],
      ['code', 'c0de'],
      ['iss', ISS],
    ],
  )
  const custom = authorizationResponseLocation('com.example.app:/cb', BASE, { error: 'access_denied', state: 'x y' })
  assert.equal(custom, `com.example.app:/cb?error=access_denied&state=x+y&iss=${encodeURIComponent(ISS)}`)
})
