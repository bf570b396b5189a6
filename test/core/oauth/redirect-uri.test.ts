import { test } from 'node:test'
import assert from 'node:assert/strict'
import { matchesRegisteredRedirectUri, redirectUriProblem } from '../../../core/oauth/redirect-uri.ts'

test('redirectUriProblem() accepts https, loopback http and private-use schemes', () => {
  for (const uri of [
    'https://app.example.com/callback',
    'https://app.example.com/callback?x=1',
    'http://127.0.0.1/cb',
    'http://127.0.0.1:8765/cb',
    'http://[::1]:8765/cb',
    'http://localhost:3000/oauth/callback',
    'com.example.app:/cb',
    'cursor://anysphere.cursor-retrieval/oauth/callback',
  ])
    assert.equal(redirectUriProblem(uri), null, uri)
})

test('redirectUriProblem() rejects script, data and file schemes, fragments and non-loopback http', () => {
  const cases: [string, RegExp][] = [
    ['javascript:alert(1)', /scheme "javascript:"/],
    ['JavaScript:alert(1)', /scheme "javascript:"/],
    ['data:text/html,<script>alert(1)</script>', /scheme "data:"/],
    ['file:///etc/passwd', /scheme "file:"/],
    ['https://app.example.com/cb#frag', /fragment/],
    ['https://app.example.com/cb#', /fragment/],
    ['http://app.example.com/cb', /http: on a host other than/],
    ['http://127.0.0.2/cb', /http: on a host other than/],
    ['http://localhost.evil.example/cb', /http: on a host other than/],
    ['https://user:pass@app.example.com/cb', /credentials/],
    ['/relative/cb', /not an absolute URI/],
    ['', /empty/],
    ['https://app.example.com/\ncb', /whitespace or control/],
    ['ws://127.0.0.1/cb', /scheme "ws:"/],
    ['https://x.example/' + 'a'.repeat(2000), /at most 2000/],
  ]
  for (const [uri, reason] of cases) assert.match(redirectUriProblem(uri) ?? 'accepted', reason, uri)
})

test('matchesRegisteredRedirectUri() wants the exact string', () => {
  const registered = ['https://app.example.com/cb', 'com.example.app:/cb']
  assert.equal(matchesRegisteredRedirectUri(registered, 'https://app.example.com/cb'), true)
  assert.equal(matchesRegisteredRedirectUri(registered, 'com.example.app:/cb'), true)
  for (const uri of [
    'https://app.example.com/cb/',
    'https://app.example.com/cb?x=1',
    'https://APP.example.com/cb',
    'https://app.example.com:443/cb',
    'https://app.example.com/a/../cb',
    'https://app.example.com/cb#x',
    'https://evil.example/cb',
    'com.example.app:/cb2',
  ])
    assert.equal(matchesRegisteredRedirectUri(registered, uri), false, uri)
})

test('matchesRegisteredRedirectUri() lets loopback http use any port (RFC 8252 §7.3)', () => {
  assert.equal(matchesRegisteredRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:51234/cb'), true)
  assert.equal(matchesRegisteredRedirectUri(['http://127.0.0.1:8000/cb'], 'http://127.0.0.1:51234/cb'), true)
  assert.equal(matchesRegisteredRedirectUri(['http://[::1]/cb'], 'http://[::1]:9/cb'), true)
  assert.equal(matchesRegisteredRedirectUri(['http://localhost/cb'], 'http://localhost:3000/cb'), true)
})

test('matchesRegisteredRedirectUri() keeps host, path and query exact on loopback', () => {
  assert.equal(matchesRegisteredRedirectUri(['http://127.0.0.1/cb'], 'http://localhost:5000/cb'), false)
  assert.equal(matchesRegisteredRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/other'), false)
  assert.equal(matchesRegisteredRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb?x=1'), false)
  assert.equal(matchesRegisteredRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:70000/cb'), false)
  assert.equal(matchesRegisteredRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb#x'), false)
  // Any port is for http on loopback only.
  assert.equal(matchesRegisteredRedirectUri(['https://127.0.0.1/cb'], 'https://127.0.0.1:5000/cb'), false)
  assert.equal(matchesRegisteredRedirectUri(['https://app.example.com/cb'], 'https://app.example.com:8443/cb'), false)
})
