import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  calculatePkceS256Challenge,
  isCodeVerifier,
  isS256CodeChallenge,
  verifyPkceS256,
} from '../../../core/oauth/pkce.ts'

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'

test('calculatePkceS256Challenge() matches the RFC 7636 Appendix B vector', () => {
  assert.equal(calculatePkceS256Challenge(VERIFIER), CHALLENGE)
})

test('calculatePkceS256Challenge() agrees with crypto.subtle.digest', async () => {
  const verifier = 'a'.repeat(43) + '-._~' + 'Z9'.repeat(20)
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
  const expected = btoa(String.fromCharCode(...digest))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
  assert.equal(calculatePkceS256Challenge(verifier), expected)
})

test('verifyPkceS256() accepts the RFC 7636 Appendix B pair', () => {
  assert.equal(verifyPkceS256(VERIFIER, CHALLENGE), true)
})

test('verifyPkceS256() rejects a wrong verifier, a plain challenge and malformed input', () => {
  assert.equal(verifyPkceS256(VERIFIER.slice(0, -1) + 'Y', CHALLENGE), false)
  // `plain`: the challenge equals the verifier; it must never verify as S256.
  assert.equal(verifyPkceS256(VERIFIER, VERIFIER), false)
  assert.equal(verifyPkceS256('', CHALLENGE), false)
  assert.equal(verifyPkceS256('short', calculatePkceS256Challenge('short')), false)
  assert.equal(verifyPkceS256(VERIFIER, CHALLENGE + '='), false)
  assert.equal(verifyPkceS256(VERIFIER, ''), false)
})

test('isCodeVerifier() allows 43–128 unreserved characters only', () => {
  assert.equal(isCodeVerifier('a'.repeat(43)), true)
  assert.equal(isCodeVerifier('a'.repeat(128)), true)
  assert.equal(isCodeVerifier('a'.repeat(42)), false)
  assert.equal(isCodeVerifier('a'.repeat(129)), false)
  assert.equal(isCodeVerifier('a'.repeat(42) + '+'), false)
  assert.equal(isCodeVerifier('a'.repeat(42) + ' '), false)
})

test('isS256CodeChallenge() wants exactly 43 base64url characters', () => {
  assert.equal(isS256CodeChallenge(CHALLENGE), true)
  assert.equal(isS256CodeChallenge(CHALLENGE.slice(1)), false)
  assert.equal(isS256CodeChallenge(CHALLENGE.slice(1) + '+'), false)
})
