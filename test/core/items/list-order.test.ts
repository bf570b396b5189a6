import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  decodeCursor,
  encodeCursor,
  MAX_PAGE_SIZE,
  parseLimit,
  parseSort,
  SORT_KEYS,
} from '../../../core/items/list-order.ts'
import { ValidationError } from '../../../core/errors.ts'
import { SORTS } from '../../../core/types.ts'

const isValidationError = (error: unknown): boolean =>
  error instanceof ValidationError && error._tag === 'ValidationError'
const b64url = (text: string): string => btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')

test('parseSort() defaults to newest when absent or empty', () => {
  assert.equal(parseSort(undefined), 'newest')
  assert.equal(parseSort(null), 'newest')
  assert.equal(parseSort(''), 'newest')
})

test('parseSort() accepts every sort value', () => {
  for (const sort of SORTS) assert.equal(parseSort(sort), sort)
})

test('parseSort() rejects unknown values with ValidationError', () => {
  for (const value of ['bogus', 'Newest', 'NEWEST', ' newest', 'title,newest']) {
    assert.throws(() => parseSort(value), isValidationError, value)
  }
})

test('parseLimit() is null when absent and a number from 1 to 500 otherwise', () => {
  assert.equal(parseLimit(undefined), null)
  assert.equal(parseLimit(null), null)
  assert.equal(parseLimit('1'), 1)
  assert.equal(parseLimit('25'), 25)
  assert.equal(parseLimit('500'), MAX_PAGE_SIZE)
  assert.equal(parseLimit('007'), 7)
})

test('parseLimit() rejects out-of-range and non-integer values with ValidationError', () => {
  for (const value of ['0', '501', '9999', '10000', 'abc', '', '-1', '1.5', '1e2', ' 5', '0x10']) {
    assert.throws(() => parseLimit(value), isValidationError, JSON.stringify(value))
  }
})

test('every sort order ends in id desc, so it is total', () => {
  for (const sort of SORTS) {
    const keys = SORT_KEYS[sort]
    assert.deepEqual(keys[keys.length - 1], { field: 'id', direction: 'desc' }, sort)
  }
  assert.deepEqual(SORT_KEYS.newest[0], { field: 'lastSavedAt', direction: 'desc' })
  assert.deepEqual(SORT_KEYS.oldest[0], { field: 'lastSavedAt', direction: 'asc' })
  assert.deepEqual(SORT_KEYS.unread[0], { field: 'isRead', direction: 'asc' })
  assert.deepEqual(SORT_KEYS.title.slice(0, 2), [
    { field: 'titleMissing', direction: 'asc' },
    { field: 'titleKey', direction: 'asc' },
  ])
})

test('encodeCursor() and decodeCursor() round-trip the key values of every sort', () => {
  const samples = {
    newest: ['2026-11-22T10:00:00.000Z', '0190f5e3-1c2d-7a4b-8c5d-6e7f8a9b0c1d'],
    oldest: ['2026-11-22T10:00:00.000Z', '0190f5e3-1c2d-7a4b-8c5d-6e7f8a9b0c1d'],
    title: [0, 'ünïcode "quoted" title/with?chars', '0190f5e3-1c2d-7a4b-8c5d-6e7f8a9b0c1d'],
    unread: [1, '2026-11-22T10:00:00.000Z', '0190f5e3-1c2d-7a4b-8c5d-6e7f8a9b0c1d'],
  } as const
  for (const sort of SORTS) {
    const cursor = encodeCursor(sort, [...samples[sort]])
    assert.match(cursor, /^[A-Za-z0-9_-]+$/, 'URL-safe without padding')
    assert.deepEqual(decodeCursor(cursor, sort), samples[sort])
  }
})

test('decodeCursor() rejects a cursor made for another sort', () => {
  const cursor = encodeCursor('newest', ['2026-11-22T10:00:00.000Z', 'id'])
  for (const sort of ['oldest', 'title', 'unread'] as const)
    assert.throws(() => decodeCursor(cursor, sort), isValidationError, sort)
})

test('decodeCursor() rejects garbage and malformed cursors with ValidationError', () => {
  const bad = [
    '',
    'not a cursor!',
    '%%%',
    b64url('hello'),
    b64url('{"sort":"newest"}'),
    b64url('"newest"'),
    b64url('["newest"]'),
    b64url('["newest","2026-11-22T10:00:00.000Z"]'),
    b64url('["newest","2026-11-22T10:00:00.000Z","id","extra"]'),
    b64url('["newest",null,"id"]'),
    b64url('["newest",{},"id"]'),
    b64url('["newest",["x"],"id"]'),
    b64url('[null,"2026-11-22T10:00:00.000Z","id"]'),
  ]
  for (const cursor of bad) assert.throws(() => decodeCursor(cursor, 'newest'), isValidationError, cursor)
})

test('decodeCursor() rejects bytes that are not UTF-8', () => {
  const bytes = new Uint8Array([0x5b, 0xff, 0xfe, 0x5d])
  const cursor = btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '')
  assert.throws(() => decodeCursor(cursor, 'newest'), isValidationError)
})
