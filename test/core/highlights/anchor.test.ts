import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  anchorQuote,
  contextAround,
  findExact,
  FUZZY_BUDGET,
  MAX_OCCURRENCES,
  reanchorQuote,
  reanchorQuotes,
} from '../../../core/highlights/anchor.ts'

// docs/highlights.md#anchoring and #re-anchoring: finding a passage when it is highlighted, and again after
// the article is extracted anew.

const quote = (exact: string, prefix = '', suffix = '') => ({ exact, prefix, suffix })

const TEXT =
  'Memory safety is a property of some programming languages.\n\nRust gives memory safety without a garbage collector. ' +
  "Go gives memory safety with one.\n\nIn C, memory safety is the programmer's problem."

test('contextAround: up to 32 characters each side, never half of a surrogate pair', () => {
  const at = TEXT.indexOf('without')
  const { prefix, suffix } = contextAround(TEXT, at, at + 'without'.length)
  assert.equal(prefix, TEXT.slice(at - 32, at))
  assert.equal(suffix, TEXT.slice(at + 7, at + 39))
  assert.deepEqual(contextAround('abc', 0, 3), { prefix: '', suffix: '' })
  // 31 characters then an emoji right at the 32-character boundary on each side.
  const text = `😀${'a'.repeat(31)}X${'b'.repeat(31)}😀`
  const x = text.indexOf('X')
  assert.deepEqual(contextAround(text, x, x + 1), { prefix: 'a'.repeat(31), suffix: 'b'.repeat(31) })
  const whole = `😀${'a'.repeat(30)}X${'b'.repeat(30)}😀`
  const y = whole.indexOf('X')
  assert.deepEqual(contextAround(whole, y, y + 1), { prefix: `😀${'a'.repeat(30)}`, suffix: `${'b'.repeat(30)}😀` })
})

test('anchorQuote: at the position when the text there is the quote, even among repeats', () => {
  const second = TEXT.indexOf('memory safety', TEXT.indexOf('memory safety') + 1)
  const anchored = anchorQuote(TEXT, quote('memory safety'), { start: second, end: second + 13 })
  assert.deepEqual(anchored!.position, { start: second, end: second + 13 })
  // The stored context is the text's, whatever the client sent.
  const sent = anchorQuote(TEXT, quote('memory safety', 'nonsense', 'more nonsense'), {
    start: second,
    end: second + 13,
  })
  assert.deepEqual(sent!.quote, { exact: 'memory safety', ...contextAround(TEXT, second, second + 13) })
})

test('anchorQuote: by the quote when the position is wrong or absent, the first of repeats without context', () => {
  const first = TEXT.indexOf('memory safety')
  assert.deepEqual(anchorQuote(TEXT, quote('memory safety'), null)!.position, { start: first, end: first + 13 })
  assert.deepEqual(anchorQuote(TEXT, quote('memory safety'), { start: 0, end: 13 })!.position, {
    start: first,
    end: first + 13,
  })
  assert.equal(anchorQuote(TEXT, quote('memory leaks'), null), null)
  assert.equal(anchorQuote('', quote('x'), null), null)
})

test('anchorQuote: among repeats, the prefix and suffix choose, then nearness to the position, then the first', () => {
  const go = TEXT.indexOf('Go gives ') + 'Go gives '.length
  const c = TEXT.indexOf('In C, ') + 'In C, '.length
  assert.equal(anchorQuote(TEXT, quote('memory safety', 'Go gives '), null)!.position.start, go)
  assert.equal(anchorQuote(TEXT, quote('memory safety', '', " is the programmer's"), null)!.position.start, c)
  // Partial context still counts: more matching characters win.
  assert.equal(anchorQuote(TEXT, quote('memory safety', 'XXXX, '), null)!.position.start, c)
  // The same context everywhere: nearest to the position given.
  const repeated = 'ab ab ab ab ab'
  assert.equal(anchorQuote(repeated, quote('ab'), { start: 7, end: 20 })!.position.start, 6)
  assert.equal(anchorQuote(repeated, quote('ab'), { start: 8, end: 20 })!.position.start, 9)
  // Equally near on both sides: the earlier.
  assert.equal(anchorQuote('ab--ab', quote('ab'), { start: 2, end: 9 })!.position.start, 0)
  // Context outweighs nearness.
  assert.equal(anchorQuote(TEXT, quote('memory safety', 'Go gives '), { start: 0, end: 1 })!.position.start, go)
})

test('findExact compares at most MAX_OCCURRENCES occurrences, nearest the hint first', () => {
  const text = `${'x '.repeat(5_000)}needle-ctx x`
  // The context as a whole is nowhere, so occurrences are compared; the best-surrounded one (11 characters
  // of its prefix) is beyond the first MAX_OCCURRENCES from the start: not compared, the first with the most
  // of "x " before it wins.
  assert.equal(findExact(text, quote('x', 'Qneedle-ctx '), null), 2)
  // From a hint near it, it is.
  assert.equal(findExact(text, quote('x', 'Qneedle-ctx '), text.length - 1), text.length - 1)
  // The whole context, when it occurs, is found wherever it is.
  assert.equal(findExact(text, quote('x', 'needle-ctx '), null), text.length - 1)
  assert.ok(MAX_OCCURRENCES <= 1_000)
})

test('reanchorQuote: an unchanged text keeps every position', () => {
  const at = TEXT.indexOf('without a garbage collector')
  const anchored = anchorQuote(TEXT, quote('without a garbage collector'), null)!
  assert.deepEqual(reanchorQuote(TEXT, anchored.quote, anchored.position), { start: at, end: at + 27 })
})

test('reanchorQuote: a moved passage is found exactly, the repeat nearest its old position among equals', () => {
  const anchored = anchorQuote(TEXT, quote('Go gives memory safety with one.'), null)!
  const moved = `A new first paragraph.\n\n${TEXT}`
  const start = moved.indexOf('Go gives memory safety with one.')
  assert.deepEqual(reanchorQuote(moved, anchored.quote, anchored.position), { start, end: start + 32 })
  // A passage and its context repeated whole: nearest to where it was.
  const twice = 'one two three. one two three. one two three.'
  const mid = anchorQuote(twice, quote('two'), { start: 19, end: 22 })!
  assert.equal(reanchorQuote(twice, mid.quote, mid.position)!.start, 19)
})

test('reanchorQuote: an edited passage is found approximately; a removed one is not', () => {
  const sentence = 'Rust gives memory safety without a garbage collector.'
  const anchored = anchorQuote(TEXT, quote(sentence), null)!
  const edited = TEXT.replace(sentence, 'Rust gives memory-safety without any garbage collector!')
  const found = reanchorQuote(edited, anchored.quote, anchored.position)!
  assert.ok(found)
  assert.equal(found.start, edited.indexOf('Rust gives memory-safety'))
  assert.ok(Math.abs(found.end - (found.start + sentence.length)) <= 3)
  const removed = TEXT.replace(sentence, '')
  assert.equal(reanchorQuote(removed, anchored.quote, anchored.position), null)
  // No text at all: nothing is found.
  assert.equal(reanchorQuote('', anchored.quote, anchored.position), null)
})

test('reanchorQuote: a long passage edited in the middle is found by its beginning and end', () => {
  const paragraph =
    'The borrow checker enforces that every reference is valid for as long as it is used, and that no two ' +
    'parts of a program change the same data at the same time without coordination between them.'
  const text = `Intro paragraph here.\n\n${paragraph}\n\nClosing words.`
  const anchored = anchorQuote(text, quote(paragraph), null)!
  const edited = `Intro paragraph, longer now.\n\n${paragraph.replace('valid for as long as', 'valid while')}\n\nClosing words.`
  const found = reanchorQuote(edited, anchored.quote, anchored.position)!
  const start = edited.indexOf('The borrow checker')
  assert.deepEqual(found, { start, end: edited.indexOf('\n\nClosing') })
})

test('reanchorQuote: a short quote is found approximately only where its context agrees', () => {
  const text = 'We measured latency at the edge. Later we measured throughput.'
  const anchored = anchorQuote(text, quote('measured latency'), null)!
  // The phrase is gone, "measured throughput" is within a quarter of edits of nothing useful: orphan.
  const gone = 'Later we measured throughput. Nothing else here.'
  assert.equal(reanchorQuote(gone, anchored.quote, anchored.position), null)
  const retyped = 'We measured latencies at the edge. Later we measured throughput.'
  assert.equal(reanchorQuote(retyped, anchored.quote, anchored.position)!.start, 3)
})

test('reanchorQuotes: orphans are looked for again; several at once, in the order given', () => {
  const a = anchorQuote(TEXT, quote('Memory safety is a property'), null)!
  const b = anchorQuote(TEXT, quote("the programmer's problem"), null)!
  const positions = reanchorQuotes(`Preface.\n\n${TEXT}`, [
    { quote: a.quote, position: null },
    { quote: b.quote, position: b.position },
    { quote: quote('never there at all, not even close'), position: { start: 5, end: 39 } },
  ])
  assert.deepEqual(positions, [
    { start: 10, end: 37 },
    { start: b.position.start + 10, end: b.position.end + 10 },
    null,
  ])
})

test('re-anchoring is bounded: a text repeating itself uses the budget up instead of stalling', () => {
  const text = 'a'.repeat(300_000)
  const targets = Array.from({ length: 50 }, () => ({
    quote: quote(`${'a'.repeat(60)}b`, 'a'.repeat(32), ''),
    position: { start: 1_000, end: 1_061 },
  }))
  const budget = { remaining: FUZZY_BUDGET }
  const started = performance.now()
  reanchorQuotes(text, targets, budget)
  assert.ok(budget.remaining < FUZZY_BUDGET)
  // Generous (a loaded machine): unbounded, this is minutes.
  assert.ok(performance.now() - started < 5_000)
})
