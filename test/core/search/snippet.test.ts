import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { parseQuery } from '../../../core/search/query.ts'
import { SNIPPET_MAX_CHARS, snippetOf } from '../../../core/search/snippet.ts'

// docs/search.md#results: the snippet of each result, from the page's own text.

const LONG = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')

const cases: readonly [name: string, query: string, fields: (string | null)[], expected: string | null][] = [
  ['a word, marked', 'rust', ['Why Rust is fast.'], 'Why «Rust» is fast.'],
  ['case and accents folded', 'cafe resume', ['Le Café and my Résumé'], 'Le «Café» and my «Résumé»'],
  ['an accented query finds the plain word', 'café', ['the cafe downstairs'], 'the «cafe» downstairs'],
  ['a prefix on the last word', 'typesc', ['Learning TypeScript generics'], 'Learning «TypeScript» generics'],
  ['a word that is not the last is whole', 'type script', ['typescript type script'], 'typescript «type» «script»'],
  [
    'a phrase is one mark',
    '"memory safety"',
    ['Rust gives memory safety without GC'],
    'Rust gives «memory safety» without GC',
  ],
  ['a phrase needs its words in order', '"safety memory"', ['memory safety'], null],
  ['OR marks either word', 'vim OR emacs', ['I use emacs and vim'], 'I use «emacs» and «vim»'],
  ['a negated word is not marked', 'rust -go', ['rust and go'], '«rust» and go'],
  ['filters only: no snippet', 'is:unread', ['anything'], null],
  ['no field holds the words', 'kubernetes', ['nothing here', null], null],
  [
    'the first field holding every word wins',
    'rust memory',
    ['rust memory in the article', 'rust memory in the title'],
    '«rust» «memory» in the article',
  ],
  [
    'a later field holding more words wins',
    'rust memory',
    ['only rust here', 'rust and memory'],
    '«rust» and «memory»',
  ],
  ['whitespace runs become one space', 'rust', ['a\n\n  rust\tb'], 'a «rust» b'],
  ['symbols between words are kept', 'node', ['Node.js (v22) — fast'], '«Node».js (v22) — fast'],
  ['emoji and RTL text do not break it', 'שלום', ['🎉 שלום עולם 🎉'], '🎉 «שלום» עולם 🎉'],
]

describe('snippetOf()', () => {
  for (const [name, query, fields, expected] of cases)
    test(`${name}: ${JSON.stringify(query)}`, () => {
      assert.equal(snippetOf(fields, parseQuery(query)), expected)
    })

  test('a match deep in a long text: a few words before it, cut marks at both ends, within the limit', () => {
    const text = `${LONG} needle ${LONG}`
    const snippet = snippetOf([text], parseQuery('needle'))!
    assert.ok(snippet.startsWith('…word56 word57 word58 word59 «needle» word0 word1'), snippet)
    assert.ok(snippet.endsWith('…'), snippet)
    assert.ok(snippet.length <= SNIPPET_MAX_CHARS, `${snippet.length}`)
  })

  test('the passage with the most of the words is chosen over the first match', () => {
    const text = `rust ${LONG} rust memory`
    assert.equal(snippetOf([text], parseQuery('rust memory')), '…word56 word57 word58 word59 «rust» «memory»')
  })

  test('one word: around its first match, however many matches come later', () => {
    const text = `Intro text mentions walrus once here. ${LONG} Later walrus walrus walrus in a row.`
    assert.ok(snippetOf([text], parseQuery('walrus'))!.startsWith('Intro text mentions «walrus» once here.'))
    // A prefix too: the first word it starts, not the densest run of them.
    const fillers = Array.from({ length: 100 }, (_, i) => `filler${i}`).join(' ')
    assert.ok(
      snippetOf([fillers], parseQuery('filler5'))!.startsWith(
        'filler0 filler1 filler2 filler3 filler4 «filler5» filler6',
      ),
    )
  })

  test('a word longer than a snippet: its start, marked and closed', () => {
    const word = 'a'.repeat(500)
    const snippet = snippetOf([`x ${word}`], parseQuery('aaa'))!
    assert.equal(snippet.length, SNIPPET_MAX_CHARS)
    assert.ok(snippet.startsWith('x «aaaa'), snippet)
    assert.ok(snippet.endsWith('»…'), snippet)
  })

  test('long words before the match are not let push it out of the snippet', () => {
    const long = 'x'.repeat(80)
    assert.equal(snippetOf([`${long} ${long} short needle`], parseQuery('needle')), '…short «needle»')
  })

  test('never over the limit, marks always balanced, for texts of every length', () => {
    for (let words = 1; words < 120; words += 7) {
      const text = Array.from({ length: words }, (_, i) => (i % 5 === 0 ? 'match' : `filler${i}`)).join(' ')
      const snippet = snippetOf([text], parseQuery('match'))!
      assert.ok(snippet.length <= SNIPPET_MAX_CHARS, `${words} words: ${snippet.length}`)
      assert.equal(snippet.split('«').length, snippet.split('»').length, snippet)
    }
  })
})
