import { tokensOf, type SearchQuery, type SearchTerm } from './query.ts'

/** The longest snippet, in characters, marks and `…` included (docs/search.md). */
export const SNIPPET_MAX_CHARS = 200
/** The passage a snippet is chosen by: this many tokens from a match on. */
const WINDOW_TOKENS = 24
/** Tokens shown before the passage's first match, when the text has them. */
const LEAD_TOKENS = 4
const LEAD_MAX_CHARS = 60
/** A match ending this early in its text is shown with the text from its start. */
const EARLY_MATCH_CHARS = 120

// The index's tokens (SQLite FTS5 unicode61, as in query.ts), found in the text as written.
const TOKEN = /[\p{L}\p{N}\p{M}]+/gu
const ASCII = /^[\x00-\x7f]*$/

/** One index token of a text: where it is in the text, and its folded form. */
interface Token {
  start: number
  end: number
  folded: string
}

/** A term found in a text: tokens `first`..`last`, for the clause it belongs to. */
interface Match {
  first: number
  last: number
  clause: number
}

/**
 * A snippet for a search result (docs/search.md#results): from the first of `fields` (in order of
 * preference, for example the article, then the description, then the title) with the first passage of
 * {@link WINDOW_TOKENS} tokens that holds the most of the query's clauses, the text around that passage's
 * first match (for a query of one word, its first match), matched words wrapped in `«` and `»`, cut text
 * marked `…`, at most {@link SNIPPET_MAX_CHARS} characters. Words are matched as the index matches them
 * (case and accents folded, prefix on a term the query marks as one, phrases as consecutive words). Null
 * when no field holds a match, which happens only when the index matched a field not given here.
 *
 * FTS5's own snippet() costs a walk of each term's posting list per result (3 to 8 ms for a page of 20
 * at 100,000 items); this reads only the page's own text.
 */
export function snippetOf(fields: readonly (string | null | undefined)[], query: SearchQuery): string | null {
  const terms: { term: SearchTerm; clause: number }[] = []
  query.clauses.forEach((clause, index) => {
    if (!clause.negated) for (const term of clause.alternatives) terms.push({ term, clause: index })
  })
  if (terms.length === 0) return null
  const clauses = new Set(terms.map((t) => t.clause)).size
  let best: { tokens: Token[]; text: string; matches: Match[]; anchor: number; distinct: number } | null = null
  for (const text of fields) {
    if (!text) continue
    const tokens = tokensIfAny(text, terms)
    if (!tokens) continue
    const matches = findMatches(tokens, terms)
    if (matches.length === 0) continue
    const { anchor, distinct } = bestPassage(matches)
    if (!best || distinct > best.distinct) best = { tokens, text, matches, anchor, distinct }
    // No passage can hold more clauses than the query has: the first field to hold all of them wins.
    if (distinct === clauses) break
  }
  return best ? render(best.text, best.tokens, best.matches, best.anchor) : null
}

const ASCII_TOKEN = /[a-z0-9]+/g

/**
 * A text's tokens, or null when it cannot hold any term. Text in ASCII (most of it) is lowercased once,
 * which keeps every offset, and skipped without tokenizing when no term's first token appears in it.
 */
function tokensIfAny(text: string, terms: { term: SearchTerm }[]): Token[] | null {
  if (!ASCII.test(text)) return tokenize(text)
  const lower = text.toLowerCase()
  if (!terms.some(({ term }) => lower.includes(term.tokens[0]!))) return null
  const tokens: Token[] = []
  for (const match of lower.matchAll(ASCII_TOKEN))
    tokens.push({ start: match.index, end: match.index + match[0].length, folded: match[0] })
  return tokens
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  for (const match of text.matchAll(TOKEN)) {
    const start = match.index
    const end = start + match[0].length
    if (ASCII.test(match[0])) tokens.push({ start, end, folded: match[0].toLowerCase() })
    // Folding may split a token ("½" is "1⁄2"): each part keeps the span of the whole.
    else for (const folded of tokensOf(match[0])) tokens.push({ start, end, folded })
  }
  return tokens
}

/** Every place a term matches, in text order. */
function findMatches(tokens: Token[], terms: { term: SearchTerm; clause: number }[]): Match[] {
  const matches: Match[] = []
  for (let i = 0; i < tokens.length; i++)
    for (const { term, clause } of terms) {
      const n = term.tokens.length
      if (i + n > tokens.length) continue
      let ok = true
      for (let k = 0; k < n && ok; k++) {
        const token = tokens[i + k]!.folded
        const want = term.tokens[k]!
        ok = term.prefix && k === n - 1 ? token.startsWith(want) : token === want
      }
      if (ok) matches.push({ first: i, last: i + n - 1, clause })
    }
  return matches
}

/**
 * The match that starts the first passage holding the most distinct clauses: for a query of one word, its
 * first match (docs/search.md#results).
 */
function bestPassage(matches: Match[]): { anchor: number; distinct: number } {
  let best = { anchor: 0, distinct: 0 }
  for (let i = 0; i < matches.length; i++) {
    const end = matches[i]!.first + WINDOW_TOKENS
    const seen = new Set<number>()
    for (let j = i; j < matches.length && matches[j]!.last < end; j++) seen.add(matches[j]!.clause)
    if (seen.size > best.distinct) best = { anchor: i, distinct: seen.size }
  }
  return best
}

/** The text from a few tokens before the anchor match, marks in, whitespace collapsed, cut to fit. */
function render(text: string, tokens: Token[], matches: Match[], anchor: number): string {
  const marked = new Array<boolean>(tokens.length).fill(false)
  // A match's tokens are one marked run (a phrase is «memory safety»); separate matches are separate runs.
  const runStart = new Set<number>()
  for (const match of matches) {
    runStart.add(match.first)
    for (let k = match.first; k <= match.last; k++) marked[k] = true
  }
  const first = matches[anchor]!.first
  // A few words of lead, never more than a third of the snippet, so the match always shows.
  let from = first
  // A match near the start: the text from its start.
  if (tokens[first]!.end <= EARLY_MATCH_CHARS) from = 0
  while (from > 0 && first - from < LEAD_TOKENS && tokens[first]!.start - tokens[from - 1]!.start <= LEAD_MAX_CHARS)
    from--
  // Room is kept for a closing mark and a final `…`.
  const budget = SNIPPET_MAX_CHARS - 2
  let out = from > 0 ? '…' : ''
  let open = false
  let cut = false
  // From the text's start (an opening quote, an emoji) or from a token.
  let previousEnd = from > 0 ? tokens[from]!.start : 0
  for (let i = from; i < tokens.length; i++) {
    const token = tokens[i]!
    // Tokens folded apart share a span: the text is written once.
    if (token.start < previousEnd) continue
    const gap =
      out === ''
        ? collapse(text.slice(previousEnd, token.start)).trimStart()
        : collapse(text.slice(previousEnd, token.start))
    const closes = open && (!marked[i] || runStart.has(i)) ? '»' : ''
    const opens = marked[i] && (!open || runStart.has(i)) ? '«' : ''
    const word = text.slice(token.start, token.end)
    if (out.length + closes.length + gap.length + opens.length + word.length > budget) {
      // The match itself does not fit (one word longer than a snippet): its start, so it is shown.
      if (i <= first) {
        out +=
          closes +
          gap +
          opens +
          word.slice(0, Math.max(0, budget - out.length - closes.length - gap.length - opens.length))
        open = marked[i]!
      }
      cut = true
      break
    }
    out += closes + gap + opens + word
    open = marked[i]!
    previousEnd = token.end
  }
  if (open) out += '»'
  if (cut) return `${out}…`
  // The text after the last word (a full stop, a closing quote) when it fits; else the cut is marked.
  const tail = collapse(text.slice(previousEnd)).trimEnd()
  return out.length + tail.length <= SNIPPET_MAX_CHARS ? out + tail : `${out}…`
}

/** Whitespace runs (newlines, tabs) as one space; other separators as written. */
function collapse(gap: string): string {
  return gap.replace(/\s+/g, ' ')
}
