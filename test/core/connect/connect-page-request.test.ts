import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  checkConnectPageRequest,
  connectResponseLocation,
  MAX_CONNECT_STATE_LENGTH,
} from '../../../core/connect/connect-page-request.ts'
import { SCOPES } from '../../../core/types.ts'

// RFC 7636 Appendix B.
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
const CHROME = 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/cb'
const FIREFOX = 'https://0123456789abcdef0123456789abcdef01234567.extensions.allizom.org/'

const VALID = {
  client: 'chrome-extension',
  redirectUri: CHROME,
  codeChallenge: CHALLENGE,
  codeChallengeMethod: 'S256',
  scopes: 'saved-items:capture,saved-items:read',
  label: 'Chrome on my laptop',
  deviceHint: 'MacBook Air',
  state: 'st-1',
}

/** The page's parameters: VALID with `changes` (undefined leaves a parameter out, an array repeats it). */
function params(changes: Record<string, string | string[] | undefined> = {}): URLSearchParams {
  const all: Record<string, string | string[] | undefined> = { ...VALID, ...changes }
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(all))
    if (value !== undefined) for (const v of [value].flat()) search.append(name, v)
  return search
}

test('checkConnectPageRequest(): a valid request, what its code will be bound to, and its state', () => {
  const check = checkConnectPageRequest(params(), SCOPES)
  assert.equal(check.kind, 'valid')
  if (check.kind !== 'valid') return
  assert.deepEqual(check.grant, {
    client: 'chrome-extension',
    redirectUri: CHROME,
    codeChallenge: CHALLENGE,
    scopes: ['saved-items:capture', 'saved-items:read'],
    label: 'Chrome on my laptop',
    deviceHint: 'MacBook Air',
  })
  assert.equal(check.state, 'st-1')
  const bare = checkConnectPageRequest(params({ deviceHint: undefined, state: undefined }), SCOPES)
  assert.equal(bare.kind, 'valid')
  if (bare.kind === 'valid') {
    assert.equal(bare.grant.deviceHint, null)
    assert.equal(bare.state, null)
  }
})

test('checkConnectPageRequest(): Firefox redirect, raycast:// and the Raycast proxy are valid for their clients', () => {
  for (const [client, redirectUri] of [
    ['chrome-extension', FIREFOX],
    ['raycast', 'raycast://oauth?package_name=readlater'],
    ['raycast', 'https://raycast.com/redirect?packageName=Extension'],
  ] as const)
    assert.equal(checkConnectPageRequest(params({ client, redirectUri }), SCOPES).kind, 'valid', redirectUri)
})

test('checkConnectPageRequest(): client, redirect URI and state problems are shown, never sent back', () => {
  const cases: [string, Record<string, string | string[] | undefined>, RegExp][] = [
    ['no client', { client: undefined }, /client is missing or repeated/],
    ['an empty client', { client: '' }, /client is missing or repeated/],
    ['client twice', { client: ['chrome-extension', 'chrome-extension'] }, /client is missing or repeated/],
    ['an unknown client', { client: 'firefox' }, /must be "chrome-extension" or "raycast"/],
    ['no redirect URI', { redirectUri: undefined }, /redirectUri is missing or repeated/],
    ['redirect URI twice', { redirectUri: [CHROME, CHROME] }, /redirectUri is missing or repeated/],
    ['a foreign redirect URI', { redirectUri: 'https://evil.example/cb' }, /chromiumapp\.org.*allizom\.org/],
    ['a Firefox look-alike', { redirectUri: FIREFOX.replace('allizom.org/', 'allizom.org.evil.com/') }, /allizom\.org/],
    ['the other client’s redirect', { client: 'raycast' }, /raycast\.com\/redirect/],
    ['state twice', { state: ['a', 'b'] }, /repeats state/],
    ['an overlong state', { state: 'x'.repeat(MAX_CONNECT_STATE_LENGTH + 1) }, /at most 1024 printable ASCII/],
    ['a state with a line break', { state: 'a\r\nb' }, /state must be/],
    ['a state with a NUL', { state: 'a\u0000b' }, /state must be/],
    ['a state with non-ASCII', { state: 'é' }, /state must be/],
    // The client and redirect come first: a bad scope as well changes nothing.
    ['an unknown client and a bad scope', { client: 'nope', scopes: 'x' }, /must be "chrome-extension"/],
  ]
  for (const [name, changes, message] of cases) {
    const check = checkConnectPageRequest(params(changes), SCOPES)
    assert.equal(check.kind, 'error-page', name)
    if (check.kind === 'error-page') assert.match(check.message, message, name)
  }
  // Any printable ASCII up to the limit comes back as it was, the empty state too.
  for (const state of ['x'.repeat(MAX_CONNECT_STATE_LENGTH), '', ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~']) {
    const check = checkConnectPageRequest(params({ state }), SCOPES)
    assert.equal(check.kind === 'valid' && check.state, state)
  }
})

test('checkConnectPageRequest(): every other problem goes back to the client with its error and the state', () => {
  const cases: [string, Record<string, string | string[] | undefined>, string][] = [
    ['an unknown scope', { scopes: 'saved-items:read,saved-items:everything' }, 'invalid_scope'],
    ['an empty scope list', { scopes: '' }, 'invalid_scope'],
    ['an empty scope in the list', { scopes: 'saved-items:read,,folders:read' }, 'invalid_scope'],
    ['offline_access', { scopes: 'offline_access' }, 'invalid_scope'],
    ['space-separated scopes', { scopes: 'saved-items:read folders:read' }, 'invalid_scope'],
    ['no scopes parameter', { scopes: undefined }, 'invalid_request'],
    ['scopes twice', { scopes: ['saved-items:read', 'folders:read'] }, 'invalid_request'],
    ['no challenge', { codeChallenge: undefined }, 'invalid_request'],
    ['an empty challenge', { codeChallenge: '' }, 'invalid_request'],
    ['a challenge of 42 characters', { codeChallenge: CHALLENGE.slice(1) }, 'invalid_request'],
    ['a padded challenge', { codeChallenge: `${CHALLENGE}=` }, 'invalid_request'],
    ['challenge twice', { codeChallenge: [CHALLENGE, CHALLENGE] }, 'invalid_request'],
    ['no method', { codeChallengeMethod: undefined }, 'invalid_request'],
    ['the plain method', { codeChallengeMethod: 'plain' }, 'invalid_request'],
    ['s256 in lower case', { codeChallengeMethod: 's256' }, 'invalid_request'],
    ['no label', { label: undefined }, 'invalid_request'],
    ['a blank label', { label: '   ' }, 'invalid_request'],
    ['a label of 101 characters', { label: 'x'.repeat(101) }, 'invalid_request'],
    ['a label with a line break', { label: 'a\nb' }, 'invalid_request'],
    ['a label with a bidi override', { label: 'a\u202eb' }, 'invalid_request'],
    ['label twice', { label: ['a', 'b'] }, 'invalid_request'],
    ['a device hint of 201 characters', { deviceHint: 'x'.repeat(201) }, 'invalid_request'],
    ['a device hint with a control', { deviceHint: 'a\u0007b' }, 'invalid_request'],
    ['device hint twice', { deviceHint: ['a', 'b'] }, 'invalid_request'],
  ]
  for (const [name, changes, error] of cases) {
    const check = checkConnectPageRequest(params(changes), SCOPES)
    assert.equal(check.kind, 'error-redirect', name)
    if (check.kind !== 'error-redirect') continue
    assert.deepEqual(
      { error: check.error, redirectUri: check.redirectUri, state: check.state },
      {
        error,
        redirectUri: CHROME,
        state: 'st-1',
      },
      name,
    )
    assert.ok(check.message.length > 0)
  }
})

test('checkConnectPageRequest(): a scope the caller does not hold → invalid_scope; unknown parameters are ignored', () => {
  const narrow = checkConnectPageRequest(params(), ['saved-items:read'])
  assert.equal(narrow.kind === 'error-redirect' && narrow.error, 'invalid_scope')
  const extra = params()
  extra.append('csrf', 'x')
  extra.append('decision', 'allow')
  extra.append('scope', 'offline_access')
  assert.equal(checkConnectPageRequest(extra, SCOPES).kind, 'valid')
})

test('connectResponseLocation() adds the parameters after the redirect URI’s own query, percent-encoded', () => {
  assert.equal(
    connectResponseLocation(CHROME, { code: 'abc_-1', state: 'a b&c=d/é' }),
    `${CHROME}?code=abc_-1&state=a%20b%26c%3Dd%2F%C3%A9`,
  )
  assert.equal(
    connectResponseLocation('https://raycast.com/redirect?packageName=Extension', { code: 'c', state: null }),
    'https://raycast.com/redirect?packageName=Extension&code=c',
  )
  // The client's own query stays byte for byte (no re-encoding of `%20` into `+`).
  assert.equal(
    connectResponseLocation('raycast://oauth?package_name=read%20later&x', { error: 'access_denied', state: 's' }),
    'raycast://oauth?package_name=read%20later&x&error=access_denied&state=s',
  )
  assert.equal(connectResponseLocation(`${FIREFOX}?`, { code: 'c' }), `${FIREFOX}?code=c`)
  assert.equal(connectResponseLocation(`${FIREFOX}?a=1&`, { code: 'c' }), `${FIREFOX}?a=1&code=c`)
  // As a browser resolves it: dot segments gone, non-ASCII percent-encoded.
  assert.equal(
    connectResponseLocation('https://raycast.com/redirect/a/../é', { code: 'c' }),
    'https://raycast.com/redirect/%C3%A9?code=c',
  )
})
