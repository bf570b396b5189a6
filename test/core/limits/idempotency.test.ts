import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sha256 } from '@oslojs/crypto/sha2'
import { encodeHexLowerCase } from '@oslojs/encoding'
import {
  decideIdempotency,
  fingerprintRequest,
  IDEMPOTENCY_LEASE_SECONDS,
  IDEMPOTENCY_TTL_SECONDS,
  validateIdempotencyKey,
} from '../../../core/limits/idempotency.ts'
import type { IdempotencyRecordView } from '../../../core/limits/idempotency.ts'

function assertValidationError(value: string, message: RegExp): void {
  assert.throws(
    () => validateIdempotencyKey(value),
    (error: unknown) => {
      assert.equal((error as { _tag?: unknown })._tag, 'ValidationError')
      assert.match((error as Error).message, message)
      return true
    },
  )
}

test('IDEMPOTENCY constants match the contract', () => {
  assert.equal(IDEMPOTENCY_TTL_SECONDS, 24 * 60 * 60)
  assert.equal(IDEMPOTENCY_LEASE_SECONDS, 60)
})

test('validateIdempotencyKey() returns valid keys unchanged', () => {
  for (const key of [
    'a',
    'f47ac10b-58cc-4372-a567-0e02b2c3d479',
    ' spaced key ',
    '~!@#$%^&*()_+{}|:"<>?',
    'k'.repeat(255),
  ]) {
    assert.equal(validateIdempotencyKey(key), key)
  }
})

test('validateIdempotencyKey() rejects an empty key', () => {
  assertValidationError('', /^Cannot use Idempotency-Key: it is empty$/)
})

test('validateIdempotencyKey() rejects 256 characters', () => {
  assertValidationError('k'.repeat(256), /^Cannot use Idempotency-Key: it is 256 characters long, the limit is 255$/)
})

test('validateIdempotencyKey() rejects characters outside printable ASCII', () => {
  assertValidationError(
    'caf\u00e9',
    /^Cannot use Idempotency-Key: it contains U\+00E9, only printable ASCII \(0x20-0x7E\) is allowed$/,
  )
  assertValidationError('a\tb', /U\+0009/)
  assertValidationError('a\u007f', /U\+007F/)
  assertValidationError('🔑', /U\+1F511/)
})

test('fingerprintRequest() hashes method, path and body separated by newlines', async () => {
  const body = new TextEncoder().encode('{"url":"https://example.com"}')
  const expected = encodeHexLowerCase(
    sha256(new TextEncoder().encode('POST\n/v1/captures?x=1\n{"url":"https://example.com"}')),
  )
  assert.equal(await fingerprintRequest('POST', '/v1/captures?x=1', body), expected)
})

test('fingerprintRequest() hashes an empty body', async () => {
  assert.equal(
    await fingerprintRequest('DELETE', '/v1/folders/a', new Uint8Array(0)),
    encodeHexLowerCase(sha256(new TextEncoder().encode('DELETE\n/v1/folders/a\n'))),
  )
})

test('fingerprintRequest() differs when method, path or body differ', async () => {
  const body = new Uint8Array([1, 2, 3])
  const base = await fingerprintRequest('POST', '/v1/folders', body)
  assert.notEqual(await fingerprintRequest('PUT', '/v1/folders', body), base)
  assert.notEqual(await fingerprintRequest('POST', '/v1/folders?a=1', body), base)
  assert.notEqual(await fingerprintRequest('POST', '/v1/folders', new Uint8Array([1, 2, 4])), base)
  assert.equal(await fingerprintRequest('POST', '/v1/folders', new Uint8Array([1, 2, 3])), base)
})

const now = 1_700_000_000_000
const lease = IDEMPOTENCY_LEASE_SECONDS * 1000
function record(overrides: Partial<IdempotencyRecordView>): IdempotencyRecordView {
  return { fingerprint: 'fp', state: 'done', lockedAtMs: now - 1000, expiresAtMs: now + 1000, ...overrides }
}

test('decideIdempotency() proceeds without a record', () => {
  assert.equal(decideIdempotency(null, 'fp', now), 'proceed')
})

test('decideIdempotency() proceeds once the record has expired', () => {
  assert.equal(decideIdempotency(record({ expiresAtMs: now }), 'fp', now), 'proceed')
  assert.equal(decideIdempotency(record({ expiresAtMs: now - 1, fingerprint: 'other' }), 'fp', now), 'proceed')
})

test('decideIdempotency() reports reuse-conflict for a different request', () => {
  assert.equal(decideIdempotency(record({ fingerprint: 'other' }), 'fp', now), 'reuse-conflict')
  assert.equal(decideIdempotency(record({ fingerprint: 'other', state: 'in-flight' }), 'fp', now), 'reuse-conflict')
})

test('decideIdempotency() replays a finished identical request', () => {
  assert.equal(decideIdempotency(record({ state: 'done', lockedAtMs: now - 10 * lease }), 'fp', now), 'replay')
})

test('decideIdempotency() reports in-flight within the lease', () => {
  assert.equal(decideIdempotency(record({ state: 'in-flight', lockedAtMs: now }), 'fp', now), 'in-flight')
  assert.equal(decideIdempotency(record({ state: 'in-flight', lockedAtMs: now - lease }), 'fp', now), 'in-flight')
})

test('decideIdempotency() takes over an in-flight record past the lease', () => {
  assert.equal(decideIdempotency(record({ state: 'in-flight', lockedAtMs: now - lease - 1 }), 'fp', now), 'take-over')
})
