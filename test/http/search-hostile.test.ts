import { expect, test } from 'bun:test'
import { createHarness } from '../helpers/harness.ts'

// docs/search.md#query-syntax: any string a person can type is a query or a 400 naming the problem, never
// a 500 — FTS5 syntax, SQL, operators, huge strings, emoji, right-to-left text and combining marks included.

const FRAGMENTS = [
  '"',
  '""',
  '*',
  '^',
  '-',
  '(',
  ')',
  ':',
  '+',
  '{',
  '}',
  ',',
  ';',
  "'",
  '\\',
  '%',
  '_',
  '.',
  '/',
  'NEAR',
  'NEAR(',
  'NEAR(a b, 3)',
  'AND',
  'OR',
  'NOT',
  'and',
  'or',
  'not',
  'title:',
  'body:',
  '{title body}:',
  'search_index',
  'rowid',
  'rank',
  'bm25(',
  'MATCH',
  "'; DROP TABLE saved_items; --",
  '" OR 1=1 --',
  'UNION SELECT',
  '/* */',
  'rust',
  'typescript',
  'memory',
  'safety',
  'is:',
  'is:read',
  'type:',
  'tag:',
  'site:',
  'site:.',
  'folder:',
  'folder:"',
  'status:',
  'after:',
  'before:2026-01-01',
  '🎉',
  '👩‍👩‍👧',
  'שלום',
  'مرحبا',
  '\u202e',
  '\u200f',
  'é',
  'e\u0301',
  'Z̵̡̢͖̤͍̰̙̪͎̈́̓̃͌̍a̸͍̋l̵̩̈g̷͎̀o̴̙͝',
  '東京',
  '\u0000',
  '\t',
  '\n',
  ' ',
  '  ',
]

/** A small seeded generator, so a failure names a query that reproduces it. */
function generator(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return state / 2 ** 32
  }
}

test('a generated corpus of hostile queries: every answer is 200 or 400 ValidationError, and nothing else', async () => {
  const h = await createHarness({ env: { RATE_LIMIT_MAX: '100000' } })
  const user = await h.user()
  const key = await user.key()
  for (const url of [
    'https://example.com/rust-memory-safety',
    'https://example.com/typescript',
    'https://example.org/NEAR-and-OR',
  ]) {
    await h.call('POST', '/v1/captures', { token: key, body: { url } })
  }
  const random = generator(20261125)
  const queries: string[] = [
    'x'.repeat(10 * 1024),
    `${'word '.repeat(2000)}`,
    '"'.repeat(999),
    '('.repeat(500) + ')'.repeat(499),
    '-'.repeat(1000),
    '🎉'.repeat(400),
    'e\u0301'.repeat(300),
  ]
  for (let i = 0; i < 600; i++) {
    const parts = 1 + Math.floor(random() * 8)
    let query = ''
    for (let j = 0; j < parts; j++) {
      query += FRAGMENTS[Math.floor(random() * FRAGMENTS.length)]!
      if (random() < 0.6) query += ' '
    }
    queries.push(query)
  }
  const statuses = new Map<number, number>()
  for (const q of queries) {
    const reply = await h.call('GET', `/v1/search?q=${encodeURIComponent(q)}&limit=5`, { token: key })
    statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
    if (reply.status === 400) {
      expect({ q, tag: reply.body._tag }).toEqual({ q, tag: 'ValidationError' })
      expect(reply.body.message).toMatch(/^(q|limit|cursor): /)
    } else expect({ q, status: reply.status }).toEqual({ q, status: 200 })
  }
  // The corpus exercises both answers, so it checks what it claims to.
  expect(statuses.get(200)).toBeGreaterThan(100)
  expect(statuses.get(400)).toBeGreaterThan(20)
  expect([...statuses.keys()].sort()).toEqual([200, 400])
  expect(h.logs.filter((entry) => entry.level === 'error')).toEqual([])
})

test('bytes that are not UTF-8 in the query string are read as replacement characters, not a 500', async () => {
  const h = await createHarness()
  const key = await (await h.user()).key()
  for (const raw of ['%ED%A0%80', '%FF%FE', '%C0%AF', 'rust%00memory', '%E2%80%AE']) {
    const reply = await h.call('GET', `/v1/search?q=${raw}`, { token: key })
    expect({ raw, ok: [200, 400].includes(reply.status) }).toEqual({ raw, ok: true })
  }
})
