import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ValidationError } from '../../../core/errors.ts'
import {
  checkHighlightInput,
  checkHighlightPatch,
  HIGHLIGHT_COLORS,
  normalizeNote,
  toHighlightDto,
} from '../../../core/highlights/highlight.ts'
import { decodeHighlightCursor, encodeHighlightCursor } from '../../../core/highlights/list-cursor.ts'

// docs/highlights.md#limits and #notes: the value rules of a create request and a patch, for every caller.

const isValidation = (pattern: RegExp) => (error: unknown) =>
  error instanceof ValidationError && error._tag === 'ValidationError' && pattern.test(error.message)

test('checkHighlightInput fills the defaults: empty context, yellow, no note, no position', () => {
  assert.deepEqual(checkHighlightInput({ quote: { exact: 'a passage' } }), {
    quote: { exact: 'a passage', prefix: '', suffix: '' },
    position: null,
    color: 'yellow',
    note: null,
  })
  assert.deepEqual(
    checkHighlightInput({
      quote: { exact: 'x', prefix: 'p', suffix: 's' },
      position: { start: 3, end: 4 },
      color: 'purple',
      note: ' kept as sent ',
    }),
    {
      quote: { exact: 'x', prefix: 'p', suffix: 's' },
      position: { start: 3, end: 4 },
      color: 'purple',
      note: ' kept as sent ',
    },
  )
})

test('exact is 1 to 10,000 characters (UTF-16 code units), prefix and suffix at most 32, note at most 10,000', () => {
  assert.throws(
    () => checkHighlightInput({ quote: { exact: '' } }),
    isValidation(/^body\.quote\.exact: must be 1 to 10,000/),
  )
  assert.equal(checkHighlightInput({ quote: { exact: 'x'.repeat(10_000) } }).quote.exact.length, 10_000)
  assert.throws(() => checkHighlightInput({ quote: { exact: 'x'.repeat(10_001) } }), isValidation(/exact/))
  // An emoji is two code units: 5,000 of them are 10,000 characters, one more is over.
  assert.ok(checkHighlightInput({ quote: { exact: '😀'.repeat(5_000) } }))
  assert.throws(() => checkHighlightInput({ quote: { exact: '😀'.repeat(5_001) } }), isValidation(/exact/))
  assert.ok(checkHighlightInput({ quote: { exact: 'x', prefix: 'p'.repeat(32), suffix: 's'.repeat(32) } }))
  assert.throws(() => checkHighlightInput({ quote: { exact: 'x', prefix: 'p'.repeat(33) } }), isValidation(/prefix/))
  assert.throws(() => checkHighlightInput({ quote: { exact: 'x', suffix: 's'.repeat(33) } }), isValidation(/suffix/))
  assert.equal(checkHighlightInput({ quote: { exact: 'x' }, note: 'n'.repeat(10_000) }).note!.length, 10_000)
  assert.throws(() => checkHighlightInput({ quote: { exact: 'x' }, note: 'n'.repeat(10_001) }), isValidation(/note/))
})

test('lone surrogates are refused in every text field', () => {
  for (const input of [
    { quote: { exact: 'a\uD83D' } },
    { quote: { exact: '\uDE00b' } },
    { quote: { exact: 'x', prefix: '\uD83D' } },
    { quote: { exact: 'x', suffix: 'y\uDE00' } },
    { quote: { exact: 'x' }, note: 'note \uD83D' },
  ])
    assert.throws(() => checkHighlightInput(input), isValidation(/well-formed/))
  assert.ok(checkHighlightInput({ quote: { exact: 'a 😀 b' }, note: '😀' }))
})

test('a position needs integers with 0 ≤ start < end', () => {
  for (const position of [
    { start: -1, end: 2 },
    { start: 2, end: 2 },
    { start: 3, end: 2 },
    { start: 0.5, end: 2 },
    { start: 0, end: Number.POSITIVE_INFINITY },
  ])
    assert.throws(() => checkHighlightInput({ quote: { exact: 'x' }, position }), isValidation(/^body\.position/))
  assert.deepEqual(checkHighlightInput({ quote: { exact: 'x' }, position: { start: 0, end: 1 } }).position, {
    start: 0,
    end: 1,
  })
})

test('a note blank after trimming is stored as null; any other note exactly as sent', () => {
  for (const blank of ['', ' ', '\n\t  ', '\u3000']) assert.equal(normalizeNote(blank), null)
  assert.equal(normalizeNote(null), null)
  assert.equal(normalizeNote(undefined), null)
  assert.equal(normalizeNote('  **bold** idea\n'), '  **bold** idea\n')
})

test('checkHighlightPatch: at least one field; a colour from the five; null or a blank note clears it', () => {
  assert.throws(() => checkHighlightPatch({}), isValidation(/at least one/))
  assert.deepEqual(checkHighlightPatch({ color: 'blue' }), { color: 'blue' })
  assert.deepEqual(checkHighlightPatch({ note: null }), { note: null })
  assert.deepEqual(checkHighlightPatch({ note: '   ' }), { note: null })
  assert.deepEqual(checkHighlightPatch({ note: 'n', color: 'pink' }), { color: 'pink', note: 'n' })
  assert.throws(() => checkHighlightPatch({ color: 'red' as never }), isValidation(/^body\.color/))
  assert.deepEqual([...HIGHLIGHT_COLORS], ['yellow', 'green', 'blue', 'pink', 'purple'])
})

test('toHighlightDto: the wire shape, every field in order, no owner', () => {
  const dto = toHighlightDto({
    id: 'h',
    savedItemId: 'i',
    quote: { exact: 'e', prefix: '', suffix: 's' },
    position: null,
    color: 'green',
    note: null,
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
  })
  assert.deepEqual(Object.keys(dto), [
    'id',
    'savedItemId',
    'quote',
    'position',
    'color',
    'note',
    'createdAt',
    'updatedAt',
  ])
})

test('the list cursor names (createdAt, id) and refuses anything else', () => {
  const cursor = encodeHighlightCursor('2026-11-22T10:00:00.000Z', '01a2')
  assert.match(cursor, /^[A-Za-z0-9_-]+$/)
  assert.deepEqual(decodeHighlightCursor(cursor), { createdAt: '2026-11-22T10:00:00.000Z', id: '01a2' })
  const b64url = (text: string) => btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
  for (const bad of [
    '',
    '!!!',
    b64url('[1,2]'),
    b64url('["newest","a","b"]'),
    b64url('["highlights","a"]'),
    b64url('["highlights",1,"b"]'),
  ])
    assert.throws(() => decodeHighlightCursor(bad), isValidation(/^cursor:/))
})
