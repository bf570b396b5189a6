import { describe, expect, test } from 'bun:test'
import {
  base64url,
  challengeOf,
  chromiumName,
  CONNECT_SCOPES,
  connectPageUrl,
  deviceHint,
  newVerifier,
  originPattern,
  readRedirect,
  serverAddress,
} from '../../extension/src/connect.ts'

// docs/extension.md#connect: the pure parts of the connect flow.

describe('serverAddress', () => {
  test('an address as typed becomes an origin and path, https by default', () => {
    expect(serverAddress('https://read.example.com/')).toBe('https://read.example.com')
    expect(serverAddress('  read.example.com ')).toBe('https://read.example.com')
    expect(serverAddress('http://localhost:3000')).toBe('http://localhost:3000')
    expect(serverAddress('https://example.com/readlater/?x=1#y')).toBe('https://example.com/readlater')
    expect(serverAddress('localhost:3000')).toBe('https://localhost:3000')
  })
  test('anything else is refused', () => {
    for (const bad of [
      '',
      '   ',
      'ftp://example.com',
      'javascript://alert(1)',
      'https://user:pw@example.com',
      'http://',
    ])
      expect(serverAddress(bad)).toBeNull()
  })
})

test('the host permission is the server’s scheme and host, any port', () => {
  expect(originPattern('http://localhost:3000')).toBe('http://localhost/*')
  expect(originPattern('https://example.com/readlater')).toBe('https://example.com/*')
})

describe('PKCE', () => {
  test('a verifier is 43 base64url characters; the challenge is BASE64URL(SHA-256(verifier))', async () => {
    const verifier = newVerifier()
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(newVerifier()).not.toBe(verifier)
    const challenge = await challengeOf(verifier)
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // RFC 7636, appendix B.
    expect(await challengeOf('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    )
    expect(base64url(new Uint8Array([251, 255]))).toBe('-_8')
  })
})

test('the connect page’s URL carries every parameter the page takes', () => {
  const url = new URL(
    connectPageUrl('https://read.example.com/sub', {
      redirectUri: 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      state: 'st',
      label: 'Readlater for Chromium',
      deviceHint: 'Chromium on Linux',
    }),
  )
  expect(url.origin + url.pathname).toBe('https://read.example.com/sub/connect')
  expect(Object.fromEntries(url.searchParams)).toEqual({
    client: 'chrome-extension',
    redirectUri: 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    codeChallengeMethod: 'S256',
    scopes: 'saved-items:capture,saved-items:read,saved-items:write,folders:read,account:read',
    label: 'Readlater for Chromium',
    deviceHint: 'Chromium on Linux',
    state: 'st',
  })
  expect(CONNECT_SCOPES).toHaveLength(5)
})

test('the redirect: a code, an error, or a state that is not ours', () => {
  const base = 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/'
  expect(readRedirect(`${base}?code=abc&state=s1`, 's1')).toEqual({ code: 'abc' })
  expect(readRedirect(`${base}?error=access_denied&state=s1`, 's1')).toEqual({ error: 'access_denied' })
  expect(readRedirect(`${base}?code=abc&state=other`, 's1')).toEqual({ error: 'state_mismatch' })
  expect(readRedirect(`${base}?state=s1`, 's1')).toEqual({ error: 'no_code' })
})

test('the device hint and the browser’s name', () => {
  expect(deviceHint('Chromium', 'linux')).toBe('Chromium on Linux')
  expect(deviceHint('Firefox', 'mac')).toBe('Firefox on macOS')
  expect(chromiumName([{ brand: 'Not)A;Brand' }, { brand: 'Chromium' }, { brand: 'Google Chrome' }])).toBe(
    'Google Chrome',
  )
  expect(chromiumName([{ brand: 'Chromium' }, { brand: 'Not_A Brand' }])).toBe('Chromium')
  expect(chromiumName(undefined)).toBe('Chromium')
})
