import approxSearch from 'approx-string-match'
import { CONTEXT_LENGTH, type TextPosition, type TextQuote } from './highlight.ts'

/**
 * Finding a highlight's passage in an article's `text` (docs/highlights.md#anchoring): when it is created
 * (`anchorQuote`: exact matches only) and again after the article is extracted anew (`reanchorQuote` and
 * `reanchorQuotes`: exact first, then approximate, the way Hypothesis's client anchors a quote with the
 * `approx-string-match` package, src/annotator/anchoring/match-quote.ts). Every offset is a UTF-16 index
 * into `text`. The work is bounded whatever the input, since re-anchoring runs inside the article's write
 * (docs/highlights.md#re-anchoring).
 */

/** The most occurrences of a quote compared by their context, the nearest to the hint (or the first) first. */
export const MAX_OCCURRENCES = 1_000
/** An approximate match may differ from the quote in at most this share of its characters (and 256). */
export const FUZZY_ERROR_RATE = 0.25
/** Quotes shorter than this are found exactly or not at all: a few edits turn a short quote into anything. */
export const MIN_FUZZY_LENGTH = 8
/** Below this length an approximate match must also keep at least half of its context. */
export const SHORT_QUOTE_LENGTH = 32
/** The text searched first around where a passage is expected, on each side. */
export const FUZZY_WINDOW = 1_000
/**
 * How much approximate searching one re-anchoring may do, in characters scanned × 32-character pattern
 * blocks (the cost of approx-string-match's Myers search), and the matches found: about 25 searches of a whole 10,000-word
 * article (about 40 ms here). A passage past it stays unanchored (`position: null`) until the next extraction.
 */
export const FUZZY_BUDGET = 3_000_000

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** The up to CONTEXT_LENGTH characters before and after `[start, end)`, never half of a surrogate pair. */
export function contextAround(text: string, start: number, end: number): { prefix: string; suffix: string } {
  let from = Math.max(0, start - CONTEXT_LENGTH)
  if (from > 0 && isLow(text.charCodeAt(from)) && isHigh(text.charCodeAt(from - 1))) from++
  let to = Math.min(text.length, end + CONTEXT_LENGTH)
  if (to < text.length && isLow(text.charCodeAt(to)) && isHigh(text.charCodeAt(to - 1))) to--
  return { prefix: text.slice(from, start), suffix: text.slice(end, to) }
}

/** The occurrence of `needle` nearest to `hint` (the earlier one on a tie), or the first without a hint; -1 if none. */
function nearestOccurrence(text: string, needle: string, hint: number | null): number {
  if (hint === null) return text.indexOf(needle)
  const at = Math.min(Math.max(0, hint), text.length)
  const after = text.indexOf(needle, at)
  if (after === at) return after
  const before = at > 0 ? text.lastIndexOf(needle, at - 1) : -1
  if (before === -1) return after
  if (after === -1) return before
  return at - before <= after - at ? before : after
}

/** How many characters of the stored context the text has around an occurrence at `start`. */
function contextScore(text: string, start: number, quote: TextQuote): number {
  const { exact, prefix, suffix } = quote
  let matched = 0
  while (
    matched < prefix.length &&
    start - 1 - matched >= 0 &&
    text.charCodeAt(start - 1 - matched) === prefix.charCodeAt(prefix.length - 1 - matched)
  )
    matched++
  const end = start + exact.length
  let after = 0
  while (
    after < suffix.length &&
    end + after < text.length &&
    text.charCodeAt(end + after) === suffix.charCodeAt(after)
  )
    after++
  return matched + after
}

/**
 * Where `quote.exact` occurs in `text`, chosen among its occurrences by how much of `prefix` and `suffix`
 * surrounds it, then by nearness to `hint`, then first; -1 when it does not occur. An occurrence with all
 * of its context is looked for directly; otherwise at most MAX_OCCURRENCES occurrences are compared,
 * visited outward from the hint (or from the start).
 */
export function findExact(text: string, quote: TextQuote, hint: number | null): number {
  const { exact, prefix, suffix } = quote
  if (exact.length === 0) return -1
  const full = prefix.length + suffix.length
  if (full > 0) {
    const whole = nearestOccurrence(text, prefix + exact + suffix, hint === null ? null : hint - prefix.length)
    if (whole !== -1) return whole + prefix.length
  }
  let best = -1
  let bestScore = -1
  const consider = (at: number): boolean => {
    const score = contextScore(text, at, quote)
    if (score > bestScore) {
      best = at
      bestScore = score
    }
    return score === full
  }
  if (hint === null) {
    for (let at = text.indexOf(exact), seen = 0; at !== -1 && seen < MAX_OCCURRENCES; seen++) {
      if (consider(at)) break
      at = text.indexOf(exact, at + 1)
    }
    return best
  }
  // Outward from the hint: the nearer of the next occurrence after it and the next one before it.
  const origin = Math.min(Math.max(0, hint), text.length)
  let after = text.indexOf(exact, origin)
  let before = origin > 0 ? text.lastIndexOf(exact, origin - 1) : -1
  for (let seen = 0; seen < MAX_OCCURRENCES && (after !== -1 || before !== -1); seen++) {
    const takeBefore = before !== -1 && (after === -1 || origin - before <= after - origin)
    const at = takeBefore ? before : after
    if (consider(at)) break
    if (takeBefore) before = before > 0 ? text.lastIndexOf(exact, before - 1) : -1
    else after = text.indexOf(exact, after + 1)
  }
  return best
}

/**
 * Anchors a new highlight (docs/highlights.md#anchoring): at `position` when the text there is exactly
 * `quote.exact`, else at an occurrence of it chosen by `findExact` (nearest to `position.start` among the
 * best-surrounded). Answers the position and the quote as stored, its `prefix` and `suffix` read from the
 * text around the passage; null when the text does not contain the quote.
 */
export function anchorQuote(
  text: string,
  quote: TextQuote,
  position: TextPosition | null,
): { quote: TextQuote; position: TextPosition } | null {
  const { exact } = quote
  let start: number
  if (position !== null && position.end - position.start === exact.length && text.startsWith(exact, position.start))
    start = position.start
  else start = findExact(text, quote, position?.start ?? null)
  if (start === -1) return null
  const end = start + exact.length
  return { quote: { exact, ...contextAround(text, start, end) }, position: { start, end } }
}

/** One highlight to find again: its quote and its position in the previous text (null: not found there). */
export interface ReanchorTarget {
  quote: TextQuote
  position: TextPosition | null
}

/** The approximate search's allowance, shared by the highlights of one re-anchoring (see FUZZY_BUDGET). */
export interface FuzzyBudget {
  remaining: number
}

/** The text is searched approximately in chunks of this many characters, each paid for before it is searched. */
const FUZZY_CHUNK = 8_192
/** Longer quotes are found approximately by their first and last HEAD characters (as dom-anchor-text-quote does). */
const LONG_QUOTE = 64
const HEAD = 32

interface Span {
  start: number
  end: number
  errors: number
}

/**
 * Approximate matches of `pattern` in `text[from, to)`, chunk by chunk while the budget lasts. Each chunk
 * costs its length × the pattern's 32-character blocks (Myers' search) plus, for every match it reports,
 * the pattern's length again (finding where the match starts): a text that repeats itself, with a match at
 * every character, uses the budget up instead of stalling the write.
 */
function approxMatches(
  text: string,
  from: number,
  to: number,
  pattern: string,
  maxErrors: number,
  budget: FuzzyBudget,
): Span[] {
  const blocks = Math.ceil(pattern.length / 32)
  const overlap = pattern.length + maxErrors
  const found = new Map<string, Span>()
  for (let at = from; at < to; at += FUZZY_CHUNK) {
    const end = Math.min(to, at + FUZZY_CHUNK + overlap)
    const cost = (end - at) * blocks
    if (cost > budget.remaining) break
    budget.remaining -= cost
    const matches = approxSearch(text.slice(at, end), pattern, maxErrors)
    budget.remaining -= matches.length * overlap * blocks
    for (const match of matches)
      found.set(`${match.start + at}:${match.end + at}`, {
        start: match.start + at,
        end: match.end + at,
        errors: match.errors,
      })
    if (end === to) break
  }
  return [...found.values()]
}

/** Similarity of `actual` to `expected`, 0 to 1, as Hypothesis scores context (1 when nothing is expected). */
function similarity(actual: string, expected: string): number {
  if (expected.length === 0) return 1
  if (actual.length === 0) return 0
  const [match] = approxSearch(actual, expected, expected.length)
  return match ? 1 - match.errors / expected.length : 0
}

/**
 * Where the quote may be in `text[from, to)`, approximately: its matches with at most FUZZY_ERROR_RATE of
 * its length in edits; for a quote longer than LONG_QUOTE, a match of its first HEAD characters followed by
 * one of its last HEAD characters (each with at most a quarter of them edited) spanning within 25% of its
 * length, the edits of both counted against 2 × HEAD.
 */
function candidatesIn(text: string, from: number, to: number, exact: string, budget: FuzzyBudget): Span[] {
  if (exact.length <= LONG_QUOTE)
    return approxMatches(text, from, to, exact, Math.floor(exact.length * FUZZY_ERROR_RATE), budget)
  const allowed = Math.floor(HEAD * FUZZY_ERROR_RATE)
  const heads = approxMatches(text, from, to, exact.slice(0, HEAD), allowed, budget)
  if (heads.length === 0) return []
  const tails = approxMatches(text, from, to, exact.slice(-HEAD), allowed, budget).sort((a, b) => a.end - b.end)
  const shortest = Math.ceil(exact.length * (1 - FUZZY_ERROR_RATE))
  const longest = Math.floor(exact.length * (1 + FUZZY_ERROR_RATE))
  const spans: Span[] = []
  for (const head of heads.slice(0, 1_000)) {
    let best: Span | null = null
    // The tails ending within the allowed length of this head, by binary search, at most a hundred of them.
    let low = 0
    let high = tails.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (tails[middle]!.end - head.start < shortest) low = middle + 1
      else high = middle
    }
    for (let i = low; i < tails.length && i < low + 100 && tails[i]!.end - head.start <= longest; i++) {
      const tail = tails[i]!
      if (tail.start < head.end - allowed) continue
      const errors = ((head.errors + tail.errors) / (2 * HEAD)) * exact.length
      if (best === null || errors < best.errors) best = { start: head.start, end: tail.end, errors }
    }
    if (best) spans.push(best)
  }
  return spans
}

/** The best approximate match of the quote in `text[from, to)` by Hypothesis's weights; null when none fits. */
function fuzzyIn(
  text: string,
  from: number,
  to: number,
  quote: TextQuote,
  expected: number | null,
  budget: FuzzyBudget,
): TextPosition | null {
  const { exact, prefix, suffix } = quote
  const origin = expected ?? from
  // The nearest ones to where the passage is expected, at most a hundred, are compared.
  const candidates = candidatesIn(text, from, to, exact, budget)
    .sort((a, b) => Math.abs(a.start - origin) - Math.abs(b.start - origin) || a.start - b.start)
    .slice(0, 100)
  let best: { position: TextPosition; score: number } | null = null
  for (const candidate of candidates) {
    const prefixScore = similarity(text.slice(Math.max(0, candidate.start - prefix.length), candidate.start), prefix)
    const suffixScore = similarity(text.slice(candidate.end, candidate.end + suffix.length), suffix)
    // A short quote is a few words that may be anywhere: its context has to agree as well.
    if (exact.length < SHORT_QUOTE_LENGTH && (prefixScore + suffixScore) / 2 < 0.5) continue
    const positionScore = expected === null ? 1 : 1 - Math.abs(candidate.start - expected) / Math.max(1, text.length)
    const score = 50 * (1 - candidate.errors / exact.length) + 20 * prefixScore + 20 * suffixScore + 2 * positionScore
    if (best === null || score > best.score) best = { position: { start: candidate.start, end: candidate.end }, score }
  }
  return best?.position ?? null
}

/** The part of `text` within FUZZY_WINDOW characters of where a passage of `length` is expected. */
function windowAround(text: string, expected: number, length: number): [from: number, to: number] {
  const at = Math.min(Math.max(0, expected), text.length)
  return [Math.max(0, at - FUZZY_WINDOW), Math.min(text.length, at + length + FUZZY_WINDOW)]
}

/**
 * The positions of an item's highlights in its newly extracted `text` (docs/highlights.md#re-anchoring),
 * in the order given: each by its exact quote first (`findExact`, nearest to its previous start), then
 * approximately near where the passages around it moved to (all of them), then anywhere (while the budget
 * lasts); null for one not found. The
 * quote itself is never changed. Bounded: at most MAX_OCCURRENCES comparisons per highlight and
 * FUZZY_BUDGET of approximate search in all.
 */
export function reanchorQuotes(
  text: string,
  targets: readonly ReanchorTarget[],
  budget: FuzzyBudget = { remaining: FUZZY_BUDGET },
): (TextPosition | null)[] {
  const found: (TextPosition | null)[] = targets.map(({ quote, position }) => {
    const start = findExact(text, quote, position?.start ?? null)
    return start === -1 ? null : { start, end: start + quote.exact.length }
  })
  // How far the text moved around each passage, from the ones found exactly: (previous start, shift).
  const shifts: [number, number][] = []
  targets.forEach((target, i) => {
    const now = found[i]
    if (target.position !== null && now) shifts.push([target.position.start, now.start - target.position.start])
  })
  shifts.sort((a, b) => a[0] - b[0])
  // Approximately: first near where each passage is expected, for all of them, then in the whole text for
  // those still missing, while the budget lasts (so one passage searched everywhere never starves the rest).
  const fuzzy = (i: number) => targets[i]!.quote.exact.length >= MIN_FUZZY_LENGTH && text.length > 0
  const expected = targets.map((target) =>
    target.position === null ? null : target.position.start + shiftNear(shifts, target.position.start),
  )
  const searched: boolean[] = targets.map(() => false)
  targets.forEach((target, i) => {
    if (found[i] !== null || !fuzzy(i) || expected[i] === null) return
    const [from, to] = windowAround(text, expected[i]!, target.quote.exact.length)
    found[i] = fuzzyIn(text, from, to, target.quote, expected[i]!, budget)
    searched[i] = from === 0 && to === text.length
  })
  targets.forEach((target, i) => {
    if (found[i] === null && fuzzy(i) && !searched[i])
      found[i] = fuzzyIn(text, 0, text.length, target.quote, expected[i]!, budget)
  })
  return found
}

/** The shift of the nearest passage found exactly before `at` (else after it); 0 when none was. */
function shiftNear(shifts: readonly [number, number][], at: number): number {
  let low = 0
  let high = shifts.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (shifts[middle]![0] <= at) low = middle + 1
    else high = middle
  }
  if (low > 0) return shifts[low - 1]![1]
  return shifts[0]?.[1] ?? 0
}

/** `reanchorQuotes` for one highlight. */
export function reanchorQuote(
  text: string,
  quote: TextQuote,
  previous: TextPosition | null,
  budget?: FuzzyBudget,
): TextPosition | null {
  return reanchorQuotes(text, [{ quote, position: previous }], budget)[0]!
}
