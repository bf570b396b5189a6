import { test } from 'node:test'
import assert from 'node:assert/strict'
import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { type ChangesPosition, decodeChangesCursor, encodeChangesCursor } from '../../../core/changes/cursor.ts'
import { ValidationError } from '../../../core/errors.ts'

// docs/api.md#changes: the feed's cursor names a position in the log, or in the first (snapshot) reading.

const positions: ChangesPosition[] = [
  { phase: 'log', seq: 0 },
  { phase: 'log', seq: 123456789 },
  { phase: 'snapshot', upto: 0, after: null },
  { phase: 'snapshot', upto: 42, after: { kind: 0, id: '01a202b2-c500-7d5c-ba1b-5f1516a05059' } },
  { phase: 'snapshot', upto: 42, after: { kind: 1, id: '01a202b2-c500-7d5c-ba1b-5f1516a05059' } },
  // Highlights come after items in the snapshot.
  { phase: 'snapshot', upto: 42, after: { kind: 2, id: '01a202b2-c500-7d5c-ba1b-5f1516a05059' } },
]

test('a cursor reads back as the position it was made for', () => {
  for (const position of positions) assert.deepEqual(decodeChangesCursor(encodeChangesCursor(position)), position)
})

const raw = (value: unknown) => encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify(value)))

test('anything else is a ValidationError that says to start over', () => {
  for (const cursor of [
    '',
    'not base64 !',
    raw('c'),
    raw(['c']),
    raw(['c', -1]),
    raw(['c', 1.5]),
    raw(['c', '1']),
    raw(['x', 1]),
    raw(['c', 1, 3, 'id']),
    raw(['c', 1, 0, '']),
    raw(['c', 1, 0, 'x'.repeat(65)]),
    raw(['c', 1, -1, 'id']),
    raw({ c: 1 }),
    'A'.repeat(600),
  ]) {
    assert.throws(
      () => decodeChangesCursor(cursor),
      (error: unknown) => error instanceof ValidationError && /start over without since/.test(error.message),
      cursor,
    )
  }
})
