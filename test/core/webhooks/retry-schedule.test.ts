import { test } from 'node:test'
import assert from 'node:assert/strict'
import { afterFailedAttempt, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../../core/webhooks/retry-schedule.ts'

// docs/webhooks.md#delivery: retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then the delivery is failed.

test('each failed attempt is followed by the next delay of the schedule', () => {
  const now = 1_000_000
  const delays = []
  for (let attempts = 1; attempts < MAX_ATTEMPTS; attempts++) {
    const next = afterFailedAttempt(attempts, now, false)
    assert.equal(next.kind, 'retry')
    if (next.kind === 'retry') delays.push(next.runAfterMs - now)
  }
  assert.deepEqual(delays, [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000])
  assert.deepEqual(delays, [...RETRY_DELAYS_MS])
})

test('after the seventh attempt the delivery is failed', () => {
  assert.equal(MAX_ATTEMPTS, 7)
  assert.deepEqual(afterFailedAttempt(7, 0, false), { kind: 'failed' })
  // Attempts past the last (a crash mid-attempt used one up) fail too.
  assert.deepEqual(afterFailedAttempt(9, 0, false), { kind: 'failed' })
})

test('a refusal by the address guard is final at once', () => {
  assert.deepEqual(afterFailedAttempt(1, 0, true), { kind: 'failed' })
})
