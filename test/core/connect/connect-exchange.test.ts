import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ConnectError } from '../../../core/errors.ts'
import { checkExchange, checkExchangeClient } from '../../../core/connect/connect-exchange.ts'
import { CONNECT_ERROR_CODES } from '../../../core/connect/connect-errors.ts'

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
const spent = { client: 'chrome-extension', codeChallenge: CHALLENGE }

function codeOf(run: () => unknown): string | null {
  try {
    run()
    return null
  } catch (error) {
    assert.ok(error instanceof ConnectError)
    assert.ok((CONNECT_ERROR_CODES as readonly string[]).includes(error.code))
    return error.code
  }
}

test('checkExchangeClient() passes the two clients and refuses anything else with unknown_client', () => {
  assert.equal(checkExchangeClient('raycast'), 'raycast')
  assert.equal(checkExchangeClient('chrome-extension'), 'chrome-extension')
  assert.equal(
    codeOf(() => checkExchangeClient('safari-extension')),
    'unknown_client',
  )
})

test('checkExchange() accepts the RFC 7636 Appendix B verifier for its challenge', () => {
  assert.equal(
    codeOf(() => checkExchange(spent, 'chrome-extension', VERIFIER)),
    null,
  )
})

test('checkExchange(): no live code → invalid_code', () => {
  assert.equal(
    codeOf(() => checkExchange(null, 'chrome-extension', VERIFIER)),
    'invalid_code',
  )
})

test('checkExchange(): a code of the other client → client_mismatch, before the verifier is looked at', () => {
  assert.equal(
    codeOf(() => checkExchange(spent, 'raycast', VERIFIER)),
    'client_mismatch',
  )
  assert.equal(
    codeOf(() => checkExchange(spent, 'raycast', 'wrong')),
    'client_mismatch',
  )
})

test('checkExchange(): a wrong or malformed verifier → invalid_verifier', () => {
  for (const verifier of [
    VERIFIER.slice(0, -1) + 'j',
    VERIFIER.slice(1),
    '',
    CHALLENGE,
    `${VERIFIER} `,
    'a'.repeat(129),
  ]) {
    assert.equal(
      codeOf(() => checkExchange(spent, 'chrome-extension', verifier)),
      'invalid_verifier',
      verifier,
    )
  }
})

test('checkExchange() messages never repeat the verifier', () => {
  const verifier = 'x'.repeat(43)
  assert.throws(
    () => checkExchange(spent, 'chrome-extension', verifier),
    (error: Error) => !error.message.includes(verifier),
  )
})
