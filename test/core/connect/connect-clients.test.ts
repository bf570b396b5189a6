import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  isAllowedRedirectUri,
  isConnectClient,
  MAX_REDIRECT_URI_LENGTH,
} from '../../../core/connect/connect-clients.ts'

const EXTENSION_ID = 'abcdefghijklmnopabcdefghijklmnop' // 32 letters a–p, the alphabet of Chrome extension ids
// What Firefox's browser.identity.getRedirectURL() puts before .extensions.allizom.org: 40 lowercase hex digits.
const FIREFOX_HASH = '0123456789abcdef0123456789abcdef01234567'

test('isConnectClient() knows exactly chrome-extension and raycast', () => {
  assert.equal(isConnectClient('chrome-extension'), true)
  assert.equal(isConnectClient('raycast'), true)
  for (const value of ['', 'Raycast', 'chrome', 'firefox-extension', 'api', 'raycast ', 'web-companion'])
    assert.equal(isConnectClient(value), false, value)
})

test('isAllowedRedirectUri() accepts what chrome.identity.getRedirectURL() returns', () => {
  for (const uri of [
    `https://${EXTENSION_ID}.chromiumapp.org/`,
    `https://${EXTENSION_ID}.chromiumapp.org/callback`,
    `https://${EXTENSION_ID}.chromiumapp.org/cb?x=1&y=2`,
    `https://${'p'.repeat(32)}.chromiumapp.org/`,
  ])
    assert.equal(isAllowedRedirectUri('chrome-extension', uri), true, uri)
})

test('isAllowedRedirectUri() refuses chrome-extension URIs with another host, scheme, port, user or fragment', () => {
  for (const uri of [
    `https://${EXTENSION_ID}.chromiumapp.org`, // no path: the rule says …/…
    `http://${EXTENSION_ID}.chromiumapp.org/`,
    `https://${EXTENSION_ID.slice(1)}.chromiumapp.org/`, // 31 letters
    `https://${EXTENSION_ID}a.chromiumapp.org/`, // 33 letters
    `https://${'q'.repeat(32)}.chromiumapp.org/`, // q is outside a–p
    `https://${EXTENSION_ID.toUpperCase()}.chromiumapp.org/`,
    `https://${EXTENSION_ID}.chromiumapp.org:443/`,
    `https://${EXTENSION_ID}.chromiumapp.org.evil.example/`,
    `https://evil.example/${EXTENSION_ID}.chromiumapp.org/`,
    `https://evil.example@${EXTENSION_ID}.chromiumapp.org/`,
    `https://${EXTENSION_ID}.chromiumapp.org@evil.example/`,
    `https://${EXTENSION_ID}.chromiumapp.org/#token`,
    `https://${EXTENSION_ID}.chromiumapp.org/ cb`,
    `https://${EXTENSION_ID}.chromiumapp.org/\ncb`,
    ` https://${EXTENSION_ID}.chromiumapp.org/`,
    `chrome-extension://${EXTENSION_ID}/cb.html`,
    'https://raycast.com/redirect',
    'javascript:alert(1)',
    '',
  ])
    assert.equal(isAllowedRedirectUri('chrome-extension', uri), false, uri)
})

test("isAllowedRedirectUri() accepts, for chrome-extension, what Firefox's browser.identity.getRedirectURL() returns", () => {
  for (const uri of [
    `https://${FIREFOX_HASH}.extensions.allizom.org/`,
    `https://${FIREFOX_HASH}.extensions.allizom.org/callback`,
    `https://${FIREFOX_HASH}.extensions.allizom.org/cb?x=1&y=2`,
    `https://${'f'.repeat(40)}.extensions.allizom.org/`,
    `https://${'0'.repeat(40)}.extensions.allizom.org/`,
  ])
    assert.equal(isAllowedRedirectUri('chrome-extension', uri), true, uri)
  // It is the extension's redirect, not Raycast's.
  assert.equal(isAllowedRedirectUri('raycast', `https://${FIREFOX_HASH}.extensions.allizom.org/`), false)
})

test('isAllowedRedirectUri() refuses look-alikes of the Firefox redirect', () => {
  for (const uri of [
    `https://${FIREFOX_HASH}.extensions.allizom.org`, // no path
    `http://${FIREFOX_HASH}.extensions.allizom.org/`,
    `https://${FIREFOX_HASH.slice(1)}.extensions.allizom.org/`, // 39 hex digits
    `https://${FIREFOX_HASH}a.extensions.allizom.org/`, // 41
    `https://${FIREFOX_HASH.toUpperCase()}.extensions.allizom.org/`,
    `https://${'0123456789ABCDEF'.repeat(2)}01234567.extensions.allizom.org/`, // some uppercase
    `https://${'g'.repeat(40)}.extensions.allizom.org/`, // g is not hex
    `https://${EXTENSION_ID}.extensions.allizom.org/`, // a Chrome id under Firefox's host
    `https://${FIREFOX_HASH}.chromiumapp.org/`, // a Firefox hash under Chrome's host
    `https://${FIREFOX_HASH}.extensions.allizom.org:443/`,
    `https://${FIREFOX_HASH}.extensions.allizom.org:8443/`,
    `https://user@${FIREFOX_HASH}.extensions.allizom.org/`,
    `https://${FIREFOX_HASH}.extensions.allizom.org@evil.example/`,
    `https://${FIREFOX_HASH}.extensions.allizom.org.evil.com/`,
    `https://${FIREFOX_HASH}.extensions.allizom.org.evil.com/cb`,
    `https://evil.com/${FIREFOX_HASH}.extensions.allizom.org/`,
    `https://x.${FIREFOX_HASH}.extensions.allizom.org/`,
    `https://${FIREFOX_HASH}.allizom.org/`,
    `https://${FIREFOX_HASH}.extensions.mozilla.org/`,
    `https://${FIREFOX_HASH}.extensions.allizom.org/#token`,
    `https://${FIREFOX_HASH}.extensions.allizom.org/cb#`,
    `https://${FIREFOX_HASH}.extensions.allizom.org/ cb`,
    `moz-extension://${FIREFOX_HASH}/cb.html`,
  ])
    assert.equal(isAllowedRedirectUri('chrome-extension', uri), false, uri)
})

test('isAllowedRedirectUri() checks the Firefox redirect as a browser resolves it too', () => {
  // Dot segments stay on the host (only the path changes), so they are allowed; a `\` after the host is a
  // `/` to a browser, so `\@evil.com` would be a path there, but the string as given fails the pattern.
  assert.equal(isAllowedRedirectUri('chrome-extension', `https://${FIREFOX_HASH}.extensions.allizom.org/a/../b`), true)
  assert.equal(
    isAllowedRedirectUri('chrome-extension', `https://${FIREFOX_HASH}.extensions.allizom.org\\@evil.com/`),
    false,
  )
})

test('isAllowedRedirectUri() accepts the Raycast redirect proxy and the raycast: scheme', () => {
  for (const uri of [
    'https://raycast.com/redirect',
    'https://raycast.com/redirect?packageName=Extension',
    'https://raycast.com/redirect/extension',
    'raycast://oauth?package_name=readlater',
    'raycast://extensions/readlater/save',
  ])
    assert.equal(isAllowedRedirectUri('raycast', uri), true, uri)
})

test('isAllowedRedirectUri() refuses raycast URIs on another host or scheme, or with a fragment', () => {
  for (const uri of [
    'http://raycast.com/redirect',
    'https://raycast.com/',
    'https://raycast.com/other',
    'https://raycast.com/redirector', // a different path that merely starts the same
    'https://raycast.com.evil.example/redirect',
    'https://www.raycast.com/redirect',
    'https://raycast.com:8443/redirect',
    'https://evil.example@raycast.com/redirect',
    'https://raycast.com/redirect#frag',
    'raycast://oauth#frag',
    'RAYCAST://oauth',
    'raycast:oauth',
    `https://${EXTENSION_ID}.chromiumapp.org/`,
    'data:text/html,hi',
  ])
    assert.equal(isAllowedRedirectUri('raycast', uri), false, uri)
})

test('isAllowedRedirectUri() refuses raycast URIs whose dot segments leave the redirect path', () => {
  for (const uri of [
    'https://raycast.com/redirect/../../evil',
    'https://raycast.com/redirect/..',
    'https://raycast.com/redirect/%2e%2e/evil',
    'https://raycast.com/redirect/%2E%2E/%2e%2e/evil',
    'https://raycast.com/redirect/.%2e/x',
  ])
    assert.equal(isAllowedRedirectUri('raycast', uri), false, uri)
  // Dot segments that stay under /redirect change nothing a browser would do differently.
  assert.equal(isAllowedRedirectUri('raycast', 'https://raycast.com/redirect/a/../b'), true)
})

test(`isAllowedRedirectUri() refuses URIs longer than ${MAX_REDIRECT_URI_LENGTH} characters`, () => {
  const base = 'https://raycast.com/redirect?x='
  assert.equal(isAllowedRedirectUri('raycast', base + 'a'.repeat(MAX_REDIRECT_URI_LENGTH - base.length)), true)
  assert.equal(isAllowedRedirectUri('raycast', base + 'a'.repeat(MAX_REDIRECT_URI_LENGTH - base.length + 1)), false)
})
