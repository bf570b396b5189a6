import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  decideAfterFailure,
  isExhausted,
  LEASE_MS,
  MAX_ATTEMPTS,
  mergeTags,
  RETRY_DELAYS_MS,
} from '../../../core/enrichment/retry-policy.ts'

const NOW = Date.parse('2026-11-22T10:00:00.000Z')

test('three attempts: the second 5 s after the first failed, the third 10 s after the second (docs/enrichment.md)', () => {
  assert.equal(MAX_ATTEMPTS, 3)
  assert.deepEqual(RETRY_DELAYS_MS, [5_000, 10_000])
  assert.deepEqual(decideAfterFailure(1, false, NOW), { kind: 'retry', runAfterMs: NOW + 5_000 })
  assert.deepEqual(decideAfterFailure(2, false, NOW), { kind: 'retry', runAfterMs: NOW + 10_000 })
  assert.deepEqual(decideAfterFailure(3, false, NOW), { kind: 'fail' })
  assert.deepEqual(decideAfterFailure(4, false, NOW), { kind: 'fail' })
})

test('a permanent refusal fails at once, whatever the attempt', () => {
  for (const attempts of [1, 2, 3]) assert.deepEqual(decideAfterFailure(attempts, true, NOW), { kind: 'fail' })
})

test('a job claimed more often than allowed (interrupted every time) is exhausted', () => {
  assert.equal(isExhausted(1), false)
  assert.equal(isExhausted(3), false)
  assert.equal(isExhausted(4), true)
})

test('the lease outlasts the 10 s fetch timeout', () => {
  assert.ok(LEASE_MS > 10_000)
})

test("mergeTags keeps the person's tags first and in order, adds new ones, never removes or repeats", () => {
  assert.deepEqual(mergeTags(['design', 'ai'], ['ai', 'security']), ['design', 'ai', 'security'])
  assert.deepEqual(mergeTags(['tools'], []), ['tools'])
  assert.deepEqual(mergeTags([], ['backend', 'backend']), ['backend'])
})
