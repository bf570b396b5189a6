import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { cleanText, collapseText, cutSummary, TextCollector } from '../../../core/enrichment/clean-text.ts'
import { PREVIEW_SUMMARY_MAX } from '../../../core/enrichment/page-metadata.ts'

describe('collapseText() and cleanText()', () => {
  test('collapseText() turns tabs and line breaks into spaces and drops other control characters', () => {
    assert.equal(
      collapseText('\t a\nb\r\nc\u000bd\u000ce \u0000f\u001fg\u007fh\u0080i\u009fj\u00a0k\u2028l '),
      'a b c d e fghij k l',
    )
  })

  test('collapseText() drops unpaired surrogates but keeps pairs', () => {
    assert.equal(collapseText('a\ud800b\udc00c 😀'), 'abc 😀')
  })

  test('cleanText() caps without splitting a surrogate pair and gives null for nothing', () => {
    assert.equal(cleanText('ab😀', 3), 'ab')
    assert.equal(cleanText('abc d', 4), 'abc')
    assert.equal(cleanText(' \u0000 ', 10), null)
    assert.equal(cleanText(null, 10), null)
  })
})

describe('TextCollector', () => {
  test('TextCollector joins text nodes, with a space only at whitespace or a block boundary', () => {
    const collector = new TextCollector()
    collector.append('  Hel')
    collector.append('lo ')
    collector.append(' world')
    collector.separate()
    collector.append('next')
    collector.append('\n')
    collector.separate()
    assert.equal(collector.text, 'Hello world next')
  })

  test('TextCollector stops growing soon after the summary limit', () => {
    const collector = new TextCollector()
    collector.append('word '.repeat(100_000))
    assert.equal(collector.full, true)
    assert.ok(collector.text.length < PREVIEW_SUMMARY_MAX + 2000)
  })
})

describe('cutSummary()', () => {
  test('cutSummary() keeps text up to 300 characters whole', () => {
    assert.equal(cutSummary('Short text.'), 'Short text.')
    assert.equal(cutSummary('x'.repeat(300)), 'x'.repeat(300))
    assert.equal(cutSummary(''), null)
  })

  test('cutSummary() cuts before the word that would not fit with the ellipsis', () => {
    const text = `${'a'.repeat(290)} bbbbbbbbb cc`
    assert.equal(cutSummary(text), `${'a'.repeat(290)}…`)
    // Exactly 299 characters of whole words leave room for the ellipsis at 300.
    const exact = `${'a'.repeat(289)} bbbbbbbbb cc`
    assert.equal(cutSummary(exact), `${'a'.repeat(289)} bbbbbbbbb…`)
    assert.equal(cutSummary(exact)?.length, 300)
  })

  test('cutSummary() drops punctuation left dangling before the ellipsis', () => {
    assert.equal(cutSummary(`${'a'.repeat(280)}, ${'b'.repeat(40)}`), `${'a'.repeat(280)}…`)
  })

  test('cutSummary() cuts text without spaces at a word boundary the segmenter finds', () => {
    const japanese = '吾輩は猫である。名前はまだ無い。'.repeat(30)
    const summary = cutSummary(japanese) ?? ''
    assert.ok(summary.length <= PREVIEW_SUMMARY_MAX)
    assert.ok(summary.endsWith('…'))
    assert.ok(japanese.startsWith(summary.slice(0, -1)))
    assert.ok(summary.length > 250, `${summary.length} characters`)
  })

  test('cutSummary() cuts a single token longer than the limit inside it, never inside a surrogate pair', () => {
    assert.equal(cutSummary('y'.repeat(400)), `${'y'.repeat(299)}…`)
    const emoji = cutSummary(`${'y'.repeat(298)}😀😀`) ?? ''
    assert.ok(emoji.length <= 300)
    assert.ok(!/[\ud800-\udbff]…$/.test(emoji))
  })
})

test('TextCollector keeps a surrogate pair split across text nodes', () => {
  const collector = new TextCollector()
  collector.append('smile \ud83d')
  collector.append('\ude00 and ')
  // Long text is read in 1024-character slices; this pair straddles the first boundary.
  collector.append(`${' '.repeat(1023)}\ud83d\ude00 end`)
  assert.equal(collector.text, 'smile 😀 and 😀 end')
})
