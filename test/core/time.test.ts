import { test } from 'node:test'
import assert from 'node:assert/strict'
import { systemClock, toTimestamp, webRandom } from '../../core/time.ts'

test('toTimestamp() writes RFC 3339 UTC with milliseconds', () => {
  assert.equal(toTimestamp(new Date(Date.UTC(2026, 10, 22, 10, 4, 5, 123))), '2026-11-22T10:04:05.123Z')
  assert.equal(toTimestamp(new Date(0)), '1970-01-01T00:00:00.000Z')
})

test('toTimestamp() converts offsets to UTC', () => {
  assert.equal(toTimestamp(new Date('2026-11-22T12:04:05+02:00')), '2026-11-22T10:04:05.000Z')
})

test('toTimestamp() rejects invalid and out-of-range dates', () => {
  assert.throws(() => toTimestamp(new Date(Number.NaN)), RangeError)
  assert.throws(() => toTimestamp(new Date(Date.UTC(10000, 0, 1))), RangeError)
})

test('systemClock.now() returns the current time', () => {
  const before = Date.now()
  const now = systemClock.now().getTime()
  assert.ok(now >= before && now <= Date.now())
})

test('webRandom.fill() fills and returns the same array', () => {
  const bytes = new Uint8Array(64)
  assert.equal(webRandom.fill(bytes), bytes)
  assert.ok(bytes.some((byte) => byte !== 0))
})

test('webRandom.fill() fills arrays larger than one getRandomValues call', () => {
  const bytes = new Uint8Array(65536 * 2 + 10)
  webRandom.fill(bytes)
  assert.ok(bytes.subarray(0, 65536).some((byte) => byte !== 0))
  assert.ok(bytes.subarray(65536, 131072).some((byte) => byte !== 0))
  assert.ok(bytes.subarray(131072).some((byte) => byte !== 0))
})
