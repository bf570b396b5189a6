import { ValidationError } from '../errors.ts'
import { ENRICHMENT_STATUSES, ITEM_TYPES, TAGS, type EnrichmentStatus, type ItemType, type Tag } from '../types.ts'

/**
 * A search as typed, parsed (docs/search.md#query-syntax). Terms hold only index tokens (runs of letters,
 * marks and digits, lowercased), so nothing a person types can reach the full-text engine as syntax.
 */
export interface SearchQuery {
  /** Every clause must match (AND); a negated one must not. */
  clauses: SearchClause[]
  filters: SearchFilter[]
}

/** One of its alternatives (joined by `OR` as typed) must match; or, negated, none may. */
export interface SearchClause {
  negated: boolean
  alternatives: SearchTerm[]
}

/**
 * `tokens` in this order, next to each other (one token: a word). `prefix`: the last token also matches
 * longer words ("typesc" finds "TypeScript").
 */
export interface SearchTerm {
  tokens: string[]
  prefix: boolean
}

export type SearchFilter =
  | { kind: 'is'; read: boolean }
  | { kind: 'type'; type: ItemType }
  | { kind: 'tag'; tag: Tag }
  | { kind: 'site'; host: string }
  | { kind: 'folder'; name: string }
  | { kind: 'folder-none' }
  | { kind: 'status'; status: EnrichmentStatus }
  | { kind: 'after'; date: string }
  | { kind: 'before'; date: string }
  /** `has:highlights`: items with at least one highlight (docs/highlights.md#search). */
  | { kind: 'has-highlights' }

/** The longest query accepted, in characters. */
export const QUERY_MAX_CHARS = 1000
/** Terms past this many are refused: each costs the engine a posting-list walk. */
export const QUERY_MAX_TERMS = 32

const FILTER_NAMES = ['is', 'type', 'tag', 'site', 'folder', 'status', 'after', 'before', 'has'] as const
type FilterName = (typeof FILTER_NAMES)[number]

// What the index calls a token (SQLite FTS5's unicode61: letters, numbers, marks). Everything else separates.
const TOKEN = /[\p{L}\p{N}\p{M}]+/gu
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const HOST = /^[a-z0-9.-]+$/
const FILTER_AT = /([a-z]+):/iy

/** Index tokens of a piece of text, lowercased and without diacritics, as the index stores them. */
export function tokensOf(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
  return [...folded.matchAll(TOKEN)].map((match) => match[0])
}

/**
 * Parses a query: words (all must match), `"a phrase"`, `-word` or `-"a phrase"` (must not match), `OR`
 * between two terms, and the filters `is:` `type:` `tag:` `site:` `folder:` `status:` `after:` `before:`
 * `has:`.
 * Anything else a person can type is read as words or ignored: unbalanced quotes close at the end,
 * operators and punctuation separate words. Throws ValidationError for an empty query, one over
 * {@link QUERY_MAX_CHARS} characters or {@link QUERY_MAX_TERMS} terms, and a filter value it does not know.
 * @see docs/search.md#query-syntax
 */
export function parseQuery(raw: string): SearchQuery {
  if (raw.length > QUERY_MAX_CHARS) throw new ValidationError(`q: at most ${QUERY_MAX_CHARS} characters`)
  if (raw.trim() === '') throw new ValidationError('q: must not be empty')
  const clauses: SearchClause[] = []
  const filters: SearchFilter[] = []
  let pendingOr = false
  let last: SearchTerm | null = null

  for (const piece of pieces(raw)) {
    if (piece.kind === 'or') {
      // `OR` joins the clause before it with the term after it; anywhere else it is nothing.
      pendingOr = clauses.length > 0 && !clauses.at(-1)!.negated
      continue
    }
    if (piece.kind === 'filter') {
      filters.push(readFilter(piece.name, piece.value))
      pendingOr = false
      continue
    }
    const tokens = tokensOf(piece.text)
    if (tokens.length === 0) {
      pendingOr = false
      continue
    }
    const term: SearchTerm = { tokens, prefix: false }
    if (pendingOr && !piece.negated) clauses.at(-1)!.alternatives.push(term)
    else clauses.push({ negated: piece.negated, alternatives: [term] })
    pendingOr = false
    last = piece.quoted || piece.negated ? null : term
  }
  // The last word as typed may be unfinished: it matches as a prefix.
  if (last && last === lastTerm(clauses)) last.prefix = true
  const terms = clauses.reduce((count, clause) => count + clause.alternatives.length, 0)
  if (terms > QUERY_MAX_TERMS) throw new ValidationError(`q: at most ${QUERY_MAX_TERMS} words or phrases`)
  if (terms === 0 && filters.length === 0) throw new ValidationError('q: has no word to search for')
  if (clauses.length > 0 && clauses.every((clause) => clause.negated) && filters.length === 0)
    throw new ValidationError('q: needs a word to find, not only words to leave out')
  return { clauses, filters }
}

function lastTerm(clauses: SearchClause[]): SearchTerm | undefined {
  return clauses.at(-1)?.alternatives.at(-1)
}

type Piece =
  | { kind: 'text'; text: string; negated: boolean; quoted: boolean }
  | { kind: 'filter'; name: FilterName; value: string }
  | { kind: 'or' }

/** Splits a query into words, phrases, `OR`s and filters, the way a person reads it. */
function* pieces(raw: string): Generator<Piece> {
  let i = 0
  while (i < raw.length) {
    while (i < raw.length && /\s/u.test(raw[i]!)) i++
    if (i >= raw.length) return
    let negated = false
    if (raw[i] === '-' && i + 1 < raw.length && !/\s/u.test(raw[i + 1]!)) {
      negated = true
      i++
    }
    if (raw[i] === '"') {
      const end = raw.indexOf('"', i + 1)
      const text = raw.slice(i + 1, end === -1 ? raw.length : end)
      i = end === -1 ? raw.length : end + 1
      yield { kind: 'text', text, negated, quoted: true }
      continue
    }
    // A filter: name:value, or name:"a value with spaces".
    FILTER_AT.lastIndex = i
    const filter = FILTER_AT.exec(raw)
    const name = filter?.[1]!.toLowerCase() ?? ''
    if (!negated && filter && (FILTER_NAMES as readonly string[]).includes(name)) {
      let start = i + filter[0].length
      let stop: number
      if (raw[start] === '"') {
        start++
        const close = raw.indexOf('"', start)
        stop = close === -1 ? raw.length : close
        i = close === -1 ? raw.length : close + 1
      } else {
        stop = start
        while (stop < raw.length && !/\s/u.test(raw[stop]!)) stop++
        i = stop
      }
      yield { kind: 'filter', name: name as FilterName, value: raw.slice(start, stop) }
      continue
    }
    let end = i
    while (end < raw.length && !/\s/u.test(raw[end]!)) end++
    const word = raw.slice(i, end)
    i = end
    if (!negated && word === 'OR') {
      yield { kind: 'or' }
      continue
    }
    yield { kind: 'text', text: word, negated, quoted: false }
  }
}

function readFilter(name: FilterName, raw: string): SearchFilter {
  const value = raw.trim()
  const refuse = (expected: string): never => {
    throw new ValidationError(
      `q: ${name}:${value ? JSON.stringify(value) : ''} is not a filter value; expected ${expected}`,
    )
  }
  switch (name) {
    case 'is':
      if (value === 'read' || value === 'unread') return { kind: 'is', read: value === 'read' }
      return refuse('is:read or is:unread')
    case 'type':
      if ((ITEM_TYPES as readonly string[]).includes(value)) return { kind: 'type', type: value as ItemType }
      return refuse(`type:${ITEM_TYPES.join('|')}`)
    case 'tag':
      if ((TAGS as readonly string[]).includes(value)) return { kind: 'tag', tag: value as Tag }
      return refuse(`tag:${TAGS.join('|')}`)
    case 'status':
      if ((ENRICHMENT_STATUSES as readonly string[]).includes(value))
        return { kind: 'status', status: value as EnrichmentStatus }
      return refuse(`status:${ENRICHMENT_STATUSES.join('|')}`)
    case 'site': {
      const host = value
        .toLowerCase()
        .replace(/^www\./, '')
        .replace(/\.$/, '')
      if (host && HOST.test(host) && !host.startsWith('.') && !host.includes('..')) return { kind: 'site', host }
      return refuse('site:<host>, e.g. site:example.com')
    }
    case 'folder':
      if (value === 'none') return { kind: 'folder-none' }
      if (value) return { kind: 'folder', name: value }
      return refuse('folder:<name> (quotes for spaces) or folder:none')
    case 'has':
      if (value === 'highlights') return { kind: 'has-highlights' }
      return refuse('has:highlights')
    case 'after':
    case 'before': {
      const date = DATE.exec(value)
      if (date && isCalendarDate(Number(date[1]), Number(date[2]), Number(date[3]))) return { kind: name, date: value }
      return refuse(`${name}:YYYY-MM-DD`)
    }
  }
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}
