import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { parseQuery, QUERY_MAX_CHARS, tokensOf, type SearchQuery } from '../../../core/search/query.ts'
import { ValidationError } from '../../../core/errors.ts'

// docs/search.md#query-syntax: what each query means, and which ones are refused (and why).

const word = (token: string, prefix = false) => ({ tokens: [token], prefix })
const phrase = (...tokens: string[]) => ({ tokens, prefix: false })
const all = (...terms: ReturnType<typeof word>[]) => ({ negated: false, alternatives: terms })
const none = (...terms: ReturnType<typeof word>[]) => ({ negated: true, alternatives: terms })

const parsed: readonly [query: string, expected: SearchQuery][] = [
  ['typesc', { clauses: [all(word('typesc', true))], filters: [] }],
  ['TypeScript generics', { clauses: [all(word('typescript')), all(word('generics', true))], filters: [] }],
  ['rust "memory safety"', { clauses: [all(word('rust')), all(phrase('memory', 'safety'))], filters: [] }],
  ['rust -gc', { clauses: [all(word('rust')), none(word('gc'))], filters: [] }],
  ['rust -"garbage collector"', { clauses: [all(word('rust')), none(phrase('garbage', 'collector'))], filters: [] }],
  ['vim OR emacs', { clauses: [all(word('vim'), word('emacs', true))], filters: [] }],
  ['vim OR emacs OR helix', { clauses: [all(word('vim'), word('emacs'), word('helix', true))], filters: [] }],
  ['vim OR emacs editor', { clauses: [all(word('vim'), word('emacs')), all(word('editor', true))], filters: [] }],
  ['vim or emacs', { clauses: [all(word('vim')), all(word('or')), all(word('emacs', true))], filters: [] }],
  ['Café RÉSUMÉ', { clauses: [all(word('cafe')), all(word('resume', true))], filters: [] }],
  ['e-mail', { clauses: [all({ tokens: ['e', 'mail'], prefix: true })], filters: [] }],
  ['"unbalanced phrase', { clauses: [all(phrase('unbalanced', 'phrase'))], filters: [] }],
  [
    'NEAR(a b) ^c* (d)',
    { clauses: [all(phrase('near', 'a')), all(word('b')), all(word('c')), all(word('d', true))], filters: [] },
  ],
  ["'; DROP TABLE x; --", { clauses: [all(word('drop')), all(word('table')), all(word('x', true))], filters: [] }],
  ['title:rust', { clauses: [all({ tokens: ['title', 'rust'], prefix: true })], filters: [] }],
  ['OR rust OR', { clauses: [all(word('rust', true))], filters: [] }],
  ['is:read', { clauses: [], filters: [{ kind: 'is', read: true }] }],
  ['is:unread rust', { clauses: [all(word('rust', true))], filters: [{ kind: 'is', read: false }] }],
  ['type:video', { clauses: [], filters: [{ kind: 'type', type: 'video' }] }],
  ['tag:front-end', { clauses: [], filters: [{ kind: 'tag', tag: 'front-end' }] }],
  ['site:www.Example.COM', { clauses: [], filters: [{ kind: 'site', host: 'example.com' }] }],
  ['folder:"Reading list"', { clauses: [], filters: [{ kind: 'folder', name: 'Reading list' }] }],
  ['folder:Later rust', { clauses: [all(word('rust', true))], filters: [{ kind: 'folder', name: 'Later' }] }],
  ['folder:none', { clauses: [], filters: [{ kind: 'folder-none' }] }],
  ['status:failed', { clauses: [], filters: [{ kind: 'status', status: 'failed' }] }],
  [
    'after:2026-01-01 before:2026-12-31',
    {
      clauses: [],
      filters: [
        { kind: 'after', date: '2026-01-01' },
        { kind: 'before', date: '2026-12-31' },
      ],
    },
  ],
  ['IS:read', { clauses: [], filters: [{ kind: 'is', read: true }] }],
  // docs/highlights.md#search: items with at least one highlight.
  ['has:highlights', { clauses: [], filters: [{ kind: 'has-highlights' }] }],
  ['rust HAS:highlights', { clauses: [all(word('rust', true))], filters: [{ kind: 'has-highlights' }] }],
  ['rust -is:read', { clauses: [all(word('rust')), none(phrase('is', 'read'))], filters: [] }],
]

describe('parseQuery() reads what a person typed', () => {
  for (const [query, expected] of parsed) {
    test(JSON.stringify(query), () => {
      assert.deepEqual(parseQuery(query), expected)
    })
  }
})

const refused: readonly [query: string, message: RegExp][] = [
  ['', /q: must not be empty/],
  ['   \t\n', /q: must not be empty/],
  ['***', /q: has no word to search for/],
  ['-', /q: has no word to search for/],
  ['OR', /q: has no word to search for/],
  ['-rust', /q: needs a word to find/],
  ['-rust -go', /q: needs a word to find/],
  ['type:podcast', /q: type:"podcast" is not a filter value; expected type:article\|video\|website\|repository/],
  ['after:yesterday', /q: after:"yesterday" is not a filter value; expected after:YYYY-MM-DD/],
  ['after:2026-02-30', /after:"2026-02-30"/],
  ['before:2026-13-01', /before:"2026-13-01"/],
  ['is:starred', /is:"starred"/],
  ['tag:cooking', /tag:"cooking"/],
  ['status:done', /status:"done"/],
  ['has:notes', /q: has:"notes" is not a filter value; expected has:highlights/],
  ['has:Highlights', /has:"Highlights"/],
  ['has:', /has: is not a filter value/],
  ['folder:', /folder: is not a filter value/],
  ['site:', /site: is not a filter value/],
  ['site:..', /site:".."/],
  ['x'.repeat(QUERY_MAX_CHARS + 1), /q: at most 1000 characters/],
  [Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '), /q: at most 32 words or phrases/],
]

describe('parseQuery() refuses, with a message naming the problem', () => {
  for (const [query, message] of refused) {
    test(JSON.stringify(query.length > 60 ? `${query.slice(0, 40)}… (${query.length} chars)` : query), () => {
      assert.throws(
        () => parseQuery(query),
        (error: unknown) => error instanceof ValidationError && message.test(error.message),
      )
    })
  }

  test('a query of only filters and negations is fine: the filters pick the items', () => {
    assert.deepEqual(parseQuery('is:unread -rust'), {
      clauses: [none(word('rust'))],
      filters: [{ kind: 'is', read: false }],
    })
  })
})

describe('tokensOf() splits as the index does', () => {
  const cases: readonly [text: string, tokens: string[]][] = [
    ['Hello, World!', ['hello', 'world']],
    ['naïve façade', ['naive', 'facade']],
    ['C++ and C#', ['c', 'and', 'c']],
    ['東京 タワー', ['東京', 'タワー']],
    ['emoji 🎉 here', ['emoji', 'here']],
    ['שלום עולם', ['שלום', 'עולם']],
    ['ﬁle', ['file']],
    ['', []],
  ]
  for (const [text, tokens] of cases) test(JSON.stringify(text), () => assert.deepEqual(tokensOf(text), tokens))
})
