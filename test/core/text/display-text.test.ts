import { test } from 'node:test'
import assert from 'node:assert/strict'
import { disguisingCharacter, displayTextProblem, hasVisibleCharacter } from '../../../core/text/display-text.ts'

test('disguisingCharacter() finds controls, bidi controls and zero-width characters', () => {
  const rows: [string, string][] = [
    ['a\u0000b', 'U+0000'],
    ['line\nbreak', 'U+000A'],
    ['del\u007f', 'U+007F'],
    ['c1\u0085', 'U+0085'],
    ['Readlater\u202egnp.exe', 'U+202E'],
    ['iso\u2066late', 'U+2066'],
    ['mark\u200fx', 'U+200F'],
    ['arabic\u061cmark', 'U+061C'],
    ['zero\u200bwidth', 'U+200B'],
    ['joiner\u200d', 'U+200D'],
    ['word\u2060joiner', 'U+2060'],
    ['\ufeffbom', 'U+FEFF'],
    ['soft\u00adhyphen', 'U+00AD'],
    ['sep\u2028x', 'U+2028'],
    ['lone \ud800 surrogate', 'U+D800'],
  ]
  for (const [text, found] of rows) assert.equal(disguisingCharacter(text), found, JSON.stringify(text))
})

test('disguisingCharacter() accepts ordinary names in any script', () => {
  for (const text of [
    'Claude Desktop',
    'Chrome on my laptop · Büro',
    'MacBook Air, Chrome 142',
    'مساعد القراءة',
    '読み上げ',
    'Ωmega 🚀',
    'tab-free ok',
  ]) {
    assert.equal(disguisingCharacter(text), null, text)
  }
})

test('displayTextProblem() refuses disguising characters first, then counts code points against the limit', () => {
  assert.equal(displayTextProblem('MacBook Air', 200), null)
  assert.equal(displayTextProblem('🚀'.repeat(100), 100), null)
  assert.equal(displayTextProblem('🚀'.repeat(101), 100), 'must be at most 100 characters')
  assert.equal(
    displayTextProblem('a\u202eb', 100),
    'must not contain control, invisible or bidirectional characters (found U+202E)',
  )
})

// Names that look like nothing at all: Hangul fillers, the combining grapheme joiner, the braille blank,
// spaces and format characters (docs/api.md#hostile-input). "Allow ㅤ to use your account?" names no one.
const INVISIBLE_ONLY = [
  '\u3164',
  '\u115f',
  '\u1160',
  '\uffa0',
  '\u034f',
  '\u2800',
  '\u3164\u2800 ',
  '\u2800\u2800',
  ' \u034f\u3164 ',
]

test('hasVisibleCharacter() is false for text made only of spaces, format characters and fillers', () => {
  for (const text of [...INVISIBLE_ONLY, '', ' \u00a0\u3000', '\u200b', '\u200d\u200c', '\ufe0f', '\u{e0041}']) {
    assert.equal(hasVisibleCharacter(text), false, JSON.stringify(text))
  }
})

test('hasVisibleCharacter() is true as soon as one character shows', () => {
  for (const text of [
    'a',
    'Read \u3164later',
    '\u2800x',
    '読',
    'مساعد',
    '🚀',
    '👩\u200d💻',
    '.',
    '\u00e9',
    'e\u0301',
  ]) {
    assert.equal(hasVisibleCharacter(text), true, JSON.stringify(text))
  }
})

test('displayTextProblem() refuses a name with no visible character', () => {
  for (const text of INVISIBLE_ONLY) {
    assert.equal(
      displayTextProblem(text.trim(), 100),
      'must contain at least one visible character',
      JSON.stringify(text),
    )
  }
  assert.equal(displayTextProblem('Read \u3164later', 100), null)
})
