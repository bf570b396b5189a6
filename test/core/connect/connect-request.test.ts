import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CONNECT_CODE_TTL_MS } from '../../../core/auth/lifetimes.ts'
import { ConnectError, ValidationError } from '../../../core/errors.ts'
import {
  CODE_CHALLENGE_PATTERN,
  checkConnectAuthorize,
  connectCodeExpiry,
  type ConnectAuthorizeInput,
} from '../../../core/connect/connect-request.ts'
import { isS256CodeChallenge } from '../../../core/oauth/pkce.ts'
import { SCOPES } from '../../../core/types.ts'

// RFC 7636 Appendix B.
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
const valid: ConnectAuthorizeInput = {
  client: 'raycast',
  redirectUri: 'https://raycast.com/redirect?packageName=Extension',
  codeChallenge: CHALLENGE,
  scopes: ['saved-items:capture', 'saved-items:read'],
  label: 'Raycast on my laptop',
}

function connectCode(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    assert.ok(error instanceof ConnectError, `expected a ConnectError, got ${String(error)}`)
    return error.code
  }
  assert.fail('expected a ConnectError')
}

function validationMessage(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    assert.ok(error instanceof ValidationError, `expected a ValidationError, got ${String(error)}`)
    return error.message
  }
  assert.fail('expected a ValidationError')
}

test('checkConnectAuthorize() returns what the code is bound to, label trimmed, device hint null when absent', () => {
  assert.deepEqual(checkConnectAuthorize({ ...valid, label: '  Raycast on my laptop \t' }, SCOPES), {
    client: 'raycast',
    redirectUri: valid.redirectUri,
    codeChallenge: CHALLENGE,
    scopes: ['saved-items:capture', 'saved-items:read'],
    label: 'Raycast on my laptop',
    deviceHint: null,
  })
  assert.equal(checkConnectAuthorize({ ...valid, deviceHint: ' MacBook Air ' }, SCOPES).deviceHint, 'MacBook Air')
  assert.equal(checkConnectAuthorize({ ...valid, deviceHint: null }, SCOPES).deviceHint, null)
  assert.equal(checkConnectAuthorize({ ...valid, deviceHint: '   ' }, SCOPES).deviceHint, null)
})

test('checkConnectAuthorize() drops duplicate scopes, keeping the first order', () => {
  const grant = checkConnectAuthorize(
    { ...valid, scopes: ['folders:read', 'saved-items:read', 'folders:read'] },
    SCOPES,
  )
  assert.deepEqual(grant.scopes, ['folders:read', 'saved-items:read'])
})

test('checkConnectAuthorize(): unknown client → unknown_client, checked first', () => {
  assert.equal(
    connectCode(() => checkConnectAuthorize({ ...valid, client: 'firefox' }, SCOPES)),
    'unknown_client',
  )
  assert.equal(
    connectCode(() => checkConnectAuthorize({ ...valid, client: 'firefox', redirectUri: 'x', scopes: [] }, [])),
    'unknown_client',
  )
})

test('checkConnectAuthorize(): a redirect URI the client may not use → invalid_redirect_uri', () => {
  assert.equal(
    connectCode(() => checkConnectAuthorize({ ...valid, redirectUri: 'https://evil.example/redirect' }, SCOPES)),
    'invalid_redirect_uri',
  )
  assert.equal(
    connectCode(() => checkConnectAuthorize({ ...valid, client: 'chrome-extension' }, SCOPES)),
    'invalid_redirect_uri',
  )
})

test('checkConnectAuthorize(): the chrome-extension client takes the Firefox redirect, and its refusal names both forms', () => {
  const firefox = 'https://0123456789abcdef0123456789abcdef01234567.extensions.allizom.org/'
  const grant = checkConnectAuthorize({ ...valid, client: 'chrome-extension', redirectUri: firefox }, SCOPES)
  assert.equal(grant.redirectUri, firefox)
  try {
    checkConnectAuthorize({ ...valid, client: 'chrome-extension' }, SCOPES)
    assert.fail('expected a ConnectError')
  } catch (error) {
    assert.ok(error instanceof ConnectError)
    assert.equal(
      error.message,
      'redirectUri must be https://<extension id>.chromiumapp.org/… (the value of chrome.identity.getRedirectURL()) or, in Firefox, https://<40 hex digits>.extensions.allizom.org/… (the value of browser.identity.getRedirectURL())',
    )
  }
})

test('checkConnectAuthorize(): no scope, an unknown scope or offline_access → invalid_scope', () => {
  for (const scopes of [[], ['saved-items:everything'], ['saved-items:read', 'offline_access'], ['SAVED-ITEMS:READ']]) {
    assert.equal(
      connectCode(() => checkConnectAuthorize({ ...valid, scopes }, SCOPES)),
      'invalid_scope',
      scopes.join(','),
    )
  }
})

test('checkConnectAuthorize(): a scope the caller does not hold → invalid_scope naming it', () => {
  const error = (() => {
    try {
      checkConnectAuthorize({ ...valid, scopes: ['saved-items:read', 'folders:write'] }, ['saved-items:read'])
    } catch (caught) {
      return caught as ConnectError
    }
    assert.fail('expected a ConnectError')
  })()
  assert.equal(error.code, 'invalid_scope')
  assert.match(error.message, /folders:write/)
  assert.doesNotMatch(error.message, /saved-items:read/)
  assert.deepEqual(checkConnectAuthorize({ ...valid, scopes: ['saved-items:read'] }, ['saved-items:read']).scopes, [
    'saved-items:read',
  ])
})

test('checkConnectAuthorize(): a challenge that is not 43 base64url characters is a ValidationError', () => {
  const hex = 'a'.repeat(64)
  for (const codeChallenge of [
    '',
    CHALLENGE.slice(1),
    `${CHALLENGE}=`,
    CHALLENGE.replace('-', '+'),
    hex,
    'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk.',
  ]) {
    assert.match(
      validationMessage(() => checkConnectAuthorize({ ...valid, codeChallenge }, SCOPES)),
      /codeChallenge/,
      codeChallenge,
    )
  }
})

test('CODE_CHALLENGE_PATTERN (the HTTP schema) agrees with isS256CodeChallenge()', () => {
  const pattern = new RegExp(CODE_CHALLENGE_PATTERN)
  for (const value of [
    CHALLENGE,
    '',
    CHALLENGE.slice(1),
    `${CHALLENGE}=`,
    `${CHALLENGE}A`,
    CHALLENGE.replace('-', '/'),
    '~'.repeat(43),
    '_'.repeat(43),
  ]) {
    assert.equal(pattern.test(value), isS256CodeChallenge(value), value)
  }
})

test('checkConnectAuthorize(): a blank, overlong or multi-line label is a ValidationError', () => {
  assert.match(
    validationMessage(() => checkConnectAuthorize({ ...valid, label: '' }, SCOPES)),
    /^body\.label: must not be empty/,
  )
  assert.match(
    validationMessage(() => checkConnectAuthorize({ ...valid, label: ' \n\t ' }, SCOPES)),
    /^body\.label: must not be empty/,
  )
  assert.match(
    validationMessage(() => checkConnectAuthorize({ ...valid, label: 'x'.repeat(101) }, SCOPES)),
    /^body\.label: must be at most 100 characters$/,
  )
  assert.match(
    validationMessage(() => checkConnectAuthorize({ ...valid, label: 'two\nlines' }, SCOPES)),
    /^body\.label: must not contain control, invisible or bidirectional characters \(found U\+000A\)/,
  )
  for (const [field, text] of [
    ['label', 'Chrome\u202egnp.exe'],
    ['label', 'zero\u200bwidth'],
    ['deviceHint', 'Mac\u2066Book'],
    ['deviceHint', 'Mac\ufeffBook'],
  ] as const) {
    assert.match(
      validationMessage(() => checkConnectAuthorize({ ...valid, [field]: text }, SCOPES)),
      new RegExp(`^body\\.${field}: must not contain control, invisible or bidirectional`),
      text,
    )
  }
  // Lengths count code points after trimming: 100 emoji and surrounding spaces are fine.
  assert.equal(checkConnectAuthorize({ ...valid, label: ` ${'📚'.repeat(100)} ` }, SCOPES).label, '📚'.repeat(100))
})

test('checkConnectAuthorize(): a device hint over 200 characters or with controls is a ValidationError', () => {
  assert.equal(checkConnectAuthorize({ ...valid, deviceHint: 'd'.repeat(200) }, SCOPES).deviceHint, 'd'.repeat(200))
  assert.match(
    validationMessage(() => checkConnectAuthorize({ ...valid, deviceHint: 'd'.repeat(201) }, SCOPES)),
    /^body\.deviceHint: must be at most 200 characters$/,
  )
  assert.match(
    validationMessage(() => checkConnectAuthorize({ ...valid, deviceHint: 'a\u0000b' }, SCOPES)),
    /^body\.deviceHint: must not contain control/,
  )
})

test('checkConnectAuthorize(): a label or device hint with no visible character is a ValidationError', () => {
  for (const [field, text] of [
    ['label', '\u3164'],
    ['label', '\u3164\u2800 '],
    ['label', '\u034f\u115f\u1160'],
    ['deviceHint', '\uffa0'],
    ['deviceHint', ' \u2800 '],
  ] as const) {
    assert.equal(
      validationMessage(() => checkConnectAuthorize({ ...valid, [field]: text }, SCOPES)),
      `body.${field}: must contain at least one visible character`,
      JSON.stringify(text),
    )
  }
  assert.equal(checkConnectAuthorize({ ...valid, label: 'Read \u3164later' }, SCOPES).label, 'Read \u3164later')
})

test('connectCodeExpiry() is 5 minutes after issue', () => {
  assert.equal(CONNECT_CODE_TTL_MS, 300_000)
  assert.equal(connectCodeExpiry(new Date('2026-11-22T10:00:00.000Z')).toISOString(), '2026-11-22T10:05:00.000Z')
})
