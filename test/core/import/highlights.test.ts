import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { FUZZY_BUDGET } from '../../../core/highlights/anchor.ts'
import {
  checkImportHighlights,
  type ImportHighlight,
  markdownText,
  omnivoreHighlights,
  placeImportedHighlights,
} from '../../../core/import/highlights.ts'

// docs/import-export.md#highlights: an entry's highlights read and checked on the import thread (a bad one is
// named, the entry still imported), Omnivore's Markdown read as text, and placing them on the item.

const NOW = new Date('2025-06-01T00:00:00.000Z')
const good = {
  id: '01935c6e-8b1c-7d3e-9f00-2a1b3c4d5e6f',
  quote: { exact: 'memory safety', prefix: 'Rust gives ', suffix: ' without' },
  position: { start: 11, end: 24 },
  color: 'green',
  note: 'Compare with Go',
  createdAt: '2024-03-01T10:00:00.123Z',
  updatedAt: '2024-03-02T10:00:00.000Z',
}

describe('checkImportHighlights()', () => {
  test('our export’s shape, read as it is: createdAt kept to the millisecond', () => {
    assert.deepEqual(checkImportHighlights([good], NOW), {
      highlights: [
        {
          sourceId: good.id,
          quote: good.quote,
          position: good.position,
          color: 'green',
          note: 'Compare with Go',
          createdAt: '2024-03-01T10:00:00.123Z',
          updatedAt: '2024-03-02T10:00:00.000Z',
        },
      ],
      problem: null,
    })
  })

  test('absent or null: none, and nothing wrong', () => {
    assert.deepEqual(checkImportHighlights(undefined, NOW), { highlights: [], problem: null })
    assert.deepEqual(checkImportHighlights(null, NOW), { highlights: [], problem: null })
  })

  test('defaults: context "", colour yellow, a blank note null, no dates', () => {
    const [read] = checkImportHighlights([{ quote: { exact: 'x' }, note: '  \n' }], NOW).highlights
    assert.deepEqual(read, {
      sourceId: null,
      quote: { exact: 'x', prefix: '', suffix: '' },
      position: null,
      color: 'yellow',
      note: null,
      createdAt: null,
      updatedAt: null,
    })
  })

  test('hostile highlights are left out and named, the good ones kept; never a throw', () => {
    const bad: unknown[] = [
      'not an object',
      { quote: 'x' },
      { quote: { exact: 42 } },
      { quote: { exact: '' } },
      { quote: { exact: 'x'.repeat(10_001) } },
      { quote: { exact: 'x', prefix: 'p'.repeat(33) } },
      { quote: { exact: 'x' }, note: 'n'.repeat(10_001) },
      { quote: { exact: 'x' }, note: 7 },
      { quote: { exact: 'x' }, color: 'red' },
      { quote: { exact: 'x' }, position: { start: 5, end: 5 } },
      { quote: { exact: 'x' }, position: [1, 2] },
      { quote: { exact: 'half \ud83d' } },
      { quote: { exact: 'x' }, createdAt: 'yesterday' },
      { quote: { exact: 'x' }, createdAt: { $date: 1 } },
      { quote: { exact: 'x' }, createdAt: 0 },
      { quote: { exact: 'x' }, __proto__: { polluted: true }, constructor: 'x' },
    ]
    const checked = checkImportHighlights([good, ...bad], NOW)
    assert.equal(checked.highlights.length, 2, 'the good one and the one with odd extra keys')
    assert.equal(
      checked.problem,
      '15 of its highlights were not imported: highlight 2: it is not a JSON object; highlight 3: quote is not an object; ' +
        'highlight 4: quote.exact is not a string; highlight 5: quote.exact: must be 1 to 10,000 characters; ' +
        'highlight 6: quote.exact: must be 1 to 10,000 characters; and 10 more',
    )
    const each = (value: unknown) => checkImportHighlights([value], NOW).problem
    assert.match(each(bad[5]) ?? '', /quote\.prefix: must be at most 32 characters/)
    assert.match(each(bad[6]) ?? '', /note: must be at most 10,000 characters/)
    assert.match(each(bad[8]) ?? '', /color must be one of yellow, green, blue, pink, purple/)
    assert.match(each(bad[9]) ?? '', /position: start and end must be integers with 0 ≤ start < end/)
    assert.match(each(bad[11]) ?? '', /lone surrogate/)
    assert.match(each(bad[12]) ?? '', /createdAt "yesterday" cannot be read as a date/)
    assert.match(each(bad[14]) ?? '', /createdAt "0" .* is before 1990/)
  })

  test('highlights that are not an array', () => {
    assert.deepEqual(checkImportHighlights({ 0: good }, NOW), { highlights: [], problem: 'highlights is not an array' })
  })

  test('1,001 highlights: the first 1,000 read, the rest counted and never looked at', () => {
    const many = Array.from({ length: 1_001 }, (_, i) => ({ quote: { exact: `passage ${i}` } }))
    const checked = checkImportHighlights(many, NOW)
    assert.equal(checked.highlights.length, 1_000)
    assert.equal(checked.problem, '1 highlights past the 1,000 an item may have were not imported')
  })

  test('a date in the future is the import’s time; updatedAt never before createdAt', () => {
    const [read] = checkImportHighlights(
      [{ quote: { exact: 'x' }, createdAt: '2030-01-01T00:00:00Z', updatedAt: '2020-01-01T00:00:00Z' }],
      NOW,
    ).highlights
    assert.equal(read!.createdAt, '2025-06-01T00:00:00.000Z')
    assert.equal(read!.updatedAt, '2025-06-01T00:00:00.000Z')
  })
})

describe('omnivoreHighlights()', () => {
  test('quotes, notes, labels kept in the note, multi-paragraph quotes, a page note before the first quote dropped', () => {
    const markdown = [
      'A note on the whole article.',
      '',
      '',
      '',
      '> First **quote**, with a [link](https://example.com/a_b). ',
      '',
      '#label #another',
      '',
      'The note.',
      '',
      '> Second paragraph one.',
      '> ',
      'Second paragraph two. ',
      '',
      '> Third, no note. ',
    ].join('\n')
    assert.deepEqual(omnivoreHighlights(markdown), [
      { quote: { exact: 'First quote, with a link.' }, note: '#label #another\n\nThe note.' },
      { quote: { exact: 'Second paragraph one.\n\nSecond paragraph two.' }, note: null },
      { quote: { exact: 'Third, no note.' }, note: null },
    ])
  })

  test('CR LF files read the same; an empty file has none', () => {
    assert.deepEqual(omnivoreHighlights('> a \r\n\r\nnote\r\n'), [{ quote: { exact: 'a' }, note: 'note' }])
    assert.deepEqual(omnivoreHighlights(''), [])
  })
})

describe('markdownText()', () => {
  test('what Omnivore’s converter writes, as text', () => {
    assert.equal(markdownText('An _emphasised_ and **strong** word'), 'An emphasised and strong word')
    assert.equal(markdownText('Escaped \\*stars\\* and \\_under\\_ and \\#1'), 'Escaped *stars* and _under_ and #1')
    assert.equal(
      markdownText('![alt](https://img.example/x.png)A [link](https://x.example "t") and `code`'),
      'A link and code',
    )
    assert.equal(markdownText('snake_case_name stays'), 'snake_case_name stays')
    assert.equal(markdownText('* item one\n* item two\n\n1. first'), 'item one item two\n\nfirst')
    assert.equal(markdownText('## Heading\n\nBody   text\nwrapped'), 'Heading\n\nBody text wrapped')
  })
})

describe('placeImportedHighlights()', () => {
  const TEXT = 'Rust gives memory safety without a garbage collector. Go gives memory safety with one.'
  const imported = (exact: string, changes: Partial<ImportHighlight> = {}): ImportHighlight => ({
    sourceId: null,
    quote: { exact, prefix: '', suffix: '' },
    position: null,
    color: 'yellow',
    note: null,
    createdAt: null,
    updatedAt: null,
    ...changes,
  })
  const budget = () => ({ remaining: FUZZY_BUDGET })
  const second = TEXT.lastIndexOf('memory safety')

  test('at its position when the text there is its quote; the context read from the text', () => {
    const placed = placeImportedHighlights(
      TEXT,
      [],
      [imported('memory safety', { position: { start: second, end: second + 13 } })],
      budget(),
    )
    assert.deepEqual(placed.insert[0]!.position, { start: second, end: second + 13 })
    assert.equal(placed.insert[0]!.quote.prefix, TEXT.slice(second - 32, second))
  })

  test('else by its quote and context; else approximately; else null. No text: null', () => {
    const placed = placeImportedHighlights(
      TEXT,
      [],
      [
        imported('memory safety', { quote: { exact: 'memory safety', prefix: 'Go gives ', suffix: '' } }),
        imported('without a garbage colector', {
          quote: { exact: 'without a garbage colector', prefix: '', suffix: '' },
        }),
        imported('not in this text at all, anywhere'),
      ],
      budget(),
    )
    assert.deepEqual(
      placed.insert.map((p) => p.position),
      [{ start: second, end: second + 13 }, { start: 25, end: 52 }, null],
    )
    // Found approximately: the quote is the person's, never rewritten.
    assert.equal(placed.insert[1]!.quote.exact, 'without a garbage colector')
    assert.deepEqual(placeImportedHighlights(null, [], [imported('memory safety')], budget()).insert[0]!.position, null)
  })

  test('repeats are left out: the same id, the same place, or the same context; each existing one once', () => {
    const existing = [
      {
        id: 'h1',
        quote: { exact: 'memory safety', prefix: 'Rust gives ', suffix: ' without a' },
        position: { start: 11, end: 24 },
      },
      { id: 'h2', quote: { exact: 'with one', prefix: 'a', suffix: 'b' }, position: null },
    ]
    const placed = placeImportedHighlights(
      TEXT,
      existing,
      [
        imported('memory safety', { position: { start: 11, end: 24 } }),
        imported('memory safety', { position: { start: 11, end: 24 } }),
        imported('with one', { quote: { exact: 'with one', prefix: 'a', suffix: 'b' } }),
        imported('Go gives', { sourceId: 'h2' }),
      ],
      budget(),
    )
    assert.equal(placed.repeats, 2)
    assert.deepEqual(
      placed.insert.map((p) => p.highlight.quote.exact),
      ['memory safety', 'Go gives'],
      'the second "memory safety" is new: the existing one answered for the first',
    )
  })

  test('the item keeps at most 1,000', () => {
    const existing = Array.from({ length: 999 }, (_, i) => ({
      id: `h${i}`,
      quote: { exact: `e${i}`, prefix: '', suffix: '' },
      position: null,
    }))
    const placed = placeImportedHighlights(null, existing, [imported('a'), imported('b')], budget())
    assert.equal(placed.insert.length, 1)
    assert.equal(placed.overLimit, 1)
  })
})
