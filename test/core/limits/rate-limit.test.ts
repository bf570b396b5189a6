import { test } from 'node:test'
import assert from 'node:assert/strict'
import { decideRateLimit, rateLimitWindowStart } from '../../../core/limits/rate-limit.ts'

test('rateLimitWindowStart() aligns fixed windows to the epoch', () => {
  assert.equal(rateLimitWindowStart(0, 60), 0)
  assert.equal(rateLimitWindowStart(59_999, 60), 0)
  assert.equal(rateLimitWindowStart(60_000, 60), 60_000)
  assert.equal(rateLimitWindowStart(1_700_000_123_456, 60), 1_700_000_100_000)
  assert.equal(rateLimitWindowStart(1_700_000_123_456, 1), 1_700_000_123_000)
})

test('rateLimitWindowStart() rejects a non-positive window', () => {
  assert.throws(() => rateLimitWindowStart(1000, 0), RangeError)
  assert.throws(() => rateLimitWindowStart(1000, -60), RangeError)
  assert.throws(() => rateLimitWindowStart(1000, Number.NaN), RangeError)
})

const window = { limit: 3, windowStartMs: 60_000, windowSeconds: 60 }

test('decideRateLimit() allows up to and including the limit', () => {
  assert.deepEqual(decideRateLimit({ ...window, count: 1, nowMs: 60_000 }), {
    allowed: true,
    limit: 3,
    remaining: 2,
    resetSeconds: 60,
  })
  assert.deepEqual(decideRateLimit({ ...window, count: 3, nowMs: 90_000 }), {
    allowed: true,
    limit: 3,
    remaining: 0,
    resetSeconds: 30,
  })
})

test('decideRateLimit() refuses past the limit with remaining 0', () => {
  assert.deepEqual(decideRateLimit({ ...window, count: 4, nowMs: 90_000 }), {
    allowed: false,
    limit: 3,
    remaining: 0,
    resetSeconds: 30,
  })
  assert.deepEqual(decideRateLimit({ ...window, count: 100, nowMs: 90_000 }).remaining, 0)
})

test('decideRateLimit() rounds resetSeconds up', () => {
  assert.equal(decideRateLimit({ ...window, count: 1, nowMs: 60_001 }).resetSeconds, 60)
  assert.equal(decideRateLimit({ ...window, count: 1, nowMs: 118_001 }).resetSeconds, 2)
})

test('decideRateLimit() reports at least 1 second to reset', () => {
  assert.equal(decideRateLimit({ ...window, count: 4, nowMs: 119_999 }).resetSeconds, 1)
  assert.equal(decideRateLimit({ ...window, count: 4, nowMs: 120_000 }).resetSeconds, 1)
})
