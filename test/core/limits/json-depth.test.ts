import { test } from 'node:test'
import assert from 'node:assert/strict'
import { jsonDepth, MAX_JSON_DEPTH, requireShallowJson } from '../../../core/limits/json-depth.ts'

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)
const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth)

test('jsonDepth() measures arrays and objects alike', () => {
  const rows: [string, number][] = [
    ['1', 0],
    ['"x"', 0],
    ['[]', 1],
    ['{}', 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['[[],[[]],[]]', 3],
    [nested(32), 32],
  ]
  for (const [text, depth] of rows) assert.equal(jsonDepth(bytes(text)), depth, text)
})

test('jsonDepth() skips brackets inside strings, escaped quotes included', () => {
  assert.equal(jsonDepth(bytes('{"url":"https://x.test/[[[[{{{{"}')), 1)
  assert.equal(jsonDepth(bytes('["a\\"[[[[", ["b"]]')), 2)
  assert.equal(jsonDepth(bytes('["\\\\", [[]]]')), 3)
})

test('jsonDepth() reads a string as it reads its UTF-8 bytes', () => {
  for (const text of ['{"é":["[", {"ü": []}]}', nested(40), '["\\"]'])
    assert.equal(jsonDepth(text), jsonDepth(bytes(text)), text)
})

test('jsonDepth() stops counting once past the limit', () => {
  assert.equal(jsonDepth(bytes('['.repeat(65_536)), 32), 33)
})

test('requireShallowJson() accepts 32 levels and refuses 33 with a ValidationError', () => {
  requireShallowJson(bytes(nested(MAX_JSON_DEPTH)))
  assert.throws(
    () => requireShallowJson(bytes(nested(MAX_JSON_DEPTH + 1))),
    (error: unknown) => {
      assert.equal((error as { _tag?: string })._tag, 'ValidationError')
      assert.equal((error as Error).message, 'body: nested deeper than 32 levels')
      return true
    },
  )
})

test('requireShallowJson() measures 64 KiB of "[" in one pass', () => {
  assert.throws(() => requireShallowJson(bytes('['.repeat(64 * 1024))), /nested deeper than 32/)
})
