import { anchorQuote, type FuzzyBudget, reanchorQuotes } from '../highlights/anchor.ts'
import {
  checkHighlightInput,
  HIGHLIGHT_COLORS,
  type HighlightColor,
  MAX_HIGHLIGHTS_PER_ITEM,
  type TextPosition,
  type TextQuote,
} from '../highlights/highlight.ts'
import { readImportDate } from './dates.ts'

type JsonObject = Record<string, unknown>
// Not json.ts's: that module imports the entry rules, which import this one.
const isJsonObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * The highlights an import brings with an entry (docs/import-export.md#highlights): read from our JSON
 * export's `highlights` or from Omnivore's `highlights/<slug>.md`, checked by the limits of
 * docs/highlights.md#limits on the import thread, and placed on the item when its batch is written
 * ({@link placeImportedHighlights}).
 */

/** One highlight of an entry, checked: what the file says, ready to be anchored on the item. */
export interface ImportHighlight {
  /** Its id in the file (our own export), only to recognise it on a second import; a new id is stored. */
  sourceId: string | null
  quote: TextQuote
  /** Where it was in the exported item's text: tried first when the item here has the same text. */
  position: TextPosition | null
  color: HighlightColor
  note: string | null
  /** RFC 3339, or null when the file gives none (the item's saved time is used). */
  createdAt: string | null
  updatedAt: string | null
}

/** The most problems one entry's message names; the rest are counted ("and 3 more"). */
const NAMED_PROBLEMS = 5

/** An entry's highlights read and checked: the good ones, and one message for the rest (null when none). */
export interface CheckedHighlights {
  highlights: ImportHighlight[]
  problem: string | null
}

/**
 * Reads an entry's `highlights` (our JSON export's shape: `[{ id, quote: { exact, prefix, suffix }, position,
 * color, note, createdAt, updatedAt }]`), each by the limits of docs/highlights.md#limits and with its dates
 * read as an entry's are. A bad highlight is left out and named in `problem`; the entry and its other
 * highlights are imported. At most MAX_HIGHLIGHTS_PER_ITEM are read: the rest are counted, never looked at.
 * `problems` are what reading the entry's files already found (an Omnivore zip's damaged highlight file).
 */
export function checkImportHighlights(raw: unknown, now: Date, problems: readonly string[] = []): CheckedHighlights {
  const named = [...problems]
  const highlights: ImportHighlight[] = []
  let left = 0
  let over = 0
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw)) named.push('highlights is not an array')
    else
      for (const [index, value] of (raw as unknown[]).entries()) {
        if (index >= MAX_HIGHLIGHTS_PER_ITEM) {
          over = raw.length - MAX_HIGHLIGHTS_PER_ITEM
          break
        }
        const checked = checkOne(value, now)
        if (typeof checked === 'string') {
          left++
          named.push(`highlight ${index + 1}: ${checked}`)
        } else highlights.push(checked)
      }
  }
  const parts = named.slice(0, NAMED_PROBLEMS)
  if (named.length > NAMED_PROBLEMS) parts.push(`and ${named.length - NAMED_PROBLEMS} more`)
  if (over > 0)
    parts.push(
      `${over.toLocaleString('en-US')} highlights past the ${MAX_HIGHLIGHTS_PER_ITEM.toLocaleString('en-US')} an item may have were not imported`,
    )
  const lead = left > 0 ? `${left} of its highlights ${left === 1 ? 'was' : 'were'} not imported: ` : ''
  return { highlights, problem: parts.length === 0 ? null : lead + parts.join('; ') }
}

const isText = (value: unknown): value is string => typeof value === 'string'
const optionalText = (value: unknown) => value === undefined || value === null || typeof value === 'string'

/** One highlight checked, or what is wrong with it (the first problem; wrong types before limits). */
function checkOne(value: unknown, now: Date): ImportHighlight | string {
  if (!isJsonObject(value)) return 'it is not a JSON object'
  const quote = value.quote
  if (!isJsonObject(quote)) return 'quote is not an object'
  if (!isText(quote.exact)) return 'quote.exact is not a string'
  if (!optionalText(quote.prefix)) return 'quote.prefix is not a string'
  if (!optionalText(quote.suffix)) return 'quote.suffix is not a string'
  if (!optionalText(value.note)) return 'note is not a string or null'
  if (value.color !== undefined && value.color !== null && !HIGHLIGHT_COLORS.includes(value.color as HighlightColor))
    return `color must be one of ${HIGHLIGHT_COLORS.join(', ')}`
  const position = positionOf(value.position)
  if (position === undefined) return 'position is not null or { start, end }'
  let checked
  try {
    checked = checkHighlightInput({
      quote: {
        exact: quote.exact,
        prefix: (quote.prefix as string | null | undefined) ?? '',
        suffix: (quote.suffix as string | null | undefined) ?? '',
      },
      position,
      color: (value.color as HighlightColor | null | undefined) ?? undefined,
      note: value.note as string | null | undefined,
    })
  } catch (error) {
    // The same rules as the API, whose messages name the request body.
    return error instanceof Error ? error.message.replace(/^body\./, '') : 'it cannot be imported'
  }
  const dates: (string | null)[] = []
  for (const field of ['createdAt', 'updatedAt'] as const) {
    const raw = value[field]
    if (raw !== undefined && raw !== null && typeof raw !== 'string' && typeof raw !== 'number')
      return `${field} is not a date`
    const read = readImportDate(raw as string | number | null | undefined, now)
    if (!read.ok) return `${field} ${read.problem}`
    dates.push(read.timestamp)
  }
  const [createdAt, updatedAt] = dates as [string | null, string | null]
  return {
    sourceId: typeof value.id === 'string' ? value.id.slice(0, 64) : null,
    quote: checked.quote,
    position: checked.position,
    color: checked.color,
    note: checked.note,
    createdAt,
    // Never before it was made.
    updatedAt: updatedAt !== null && createdAt !== null && updatedAt < createdAt ? createdAt : updatedAt,
  }
}

/** A position as the file writes it: null (or absent), `{ start, end }` (checked as the API does), else undefined. */
function positionOf(value: unknown): { start: number; end: number } | null | undefined {
  if (value === undefined || value === null) return null
  if (!isJsonObject(value)) return undefined
  const { start, end } = value as JsonObject
  if (typeof start !== 'number' || typeof end !== 'number') return undefined
  return { start, end }
}

// ——— Omnivore's highlight files ———

/**
 * The highlights of one of Omnivore's `highlights/<slug>.md` files, in our export's shape (so
 * {@link checkImportHighlights} checks them): `quote.exact` the quote as plain text, `note` the text after it.
 *
 * Omnivore writes each highlight as `> ` and its quote (Markdown, made from the selected HTML), with the
 * quote's blank lines written `> ` and its other lines as they are; then, each after a blank line, the
 * highlight's labels (`#name …`) and its note; highlights are joined by a blank line. So a paragraph that
 * starts with `>` after a blank line starts a highlight, the lines up to the next blank line are its quote,
 * and everything up to the next highlight is its note, as written (labels included: nothing is lost). Text
 * before the first quote (Omnivore's note on the whole article) belongs to no highlight and is not read.
 * @see docs/import-export.md#omnivore-highlights
 */
export function omnivoreHighlights(markdown: string): { quote: { exact: string }; note: string | null }[] {
  const found: { quote: string[]; note: string[] }[] = []
  let current: { quote: string[]; note: string[] } | null = null
  let inQuote = false
  let afterBlank = true
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const blank = line.trim() === ''
    const quoted = /^ {0,3}>/.test(line)
    if (quoted && (afterBlank || inQuote)) {
      if (!inQuote) {
        current = { quote: [], note: [] }
        found.push(current)
        inQuote = true
      }
      current!.quote.push(line.replace(/^ {0,3}> ?/, ''))
    } else if (blank) {
      inQuote = false
      current?.note.push('')
    } else if (inQuote) current!.quote.push(line)
    else current?.note.push(line)
    afterBlank = blank
  }
  return found.map(({ quote, note }) => {
    const text = note.join('\n').trim()
    return { quote: { exact: markdownText(quote.join('\n')) }, note: text === '' ? null : text }
  })
}

/**
 * The plain text of a quote Omnivore wrote as Markdown, as our article text would read it
 * (core/reading/article-text.ts): one paragraph per block separated by a blank line, whitespace runs made
 * one space; links become their text, images go, emphasis and code marks go, backslash escapes are undone.
 * Only what Omnivore's converter writes is undone; what is left over is matched approximately when the
 * article is extracted (docs/highlights.md#re-anchoring).
 */
export function markdownText(markdown: string): string {
  return markdown
    .split(/\n[ \t]*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        // Block marks at the start of a line: headings, list bullets and numbers, nested quotes.
        .map((line) => line.replace(/^\s*(?:#{1,6}\s+|[*+-]\s+|\d{1,9}[.)]\s+|>\s?)+/, ''))
        .join(' ')
        .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/<(https?:[^>\s]+)>/g, '$1')
        .replace(/(\*\*|__)(?=\S)([^]*?\S)\1/g, '$2')
        .replace(/(^|[^\\\w*])([*_])(?=\S)([^]*?\S)\2(?![\w*])/g, '$1$3')
        .replace(/`([^`]*)`/g, '$1')
        .replace(/\\([!-/:-@[-`{-~])/g, '$1')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((paragraph) => paragraph !== '')
    .join('\n\n')
}

// ——— Placing them on the item, when the batch is written ———

/** A highlight the item already has, as far as telling a repeat goes. */
export interface ExistingHighlight {
  id: string
  quote: TextQuote
  position: TextPosition | null
}

/** What placing an entry's highlights on its item decided. */
export interface PlacedHighlights<H extends ImportHighlight = ImportHighlight> {
  /** To insert, in the file's order: each with where it was found (null: not in the text, or no text). */
  insert: { highlight: H; quote: TextQuote; position: TextPosition | null }[]
  /** Already on the item (the same highlight imported before). */
  repeats: number
  /** Left out because the item would pass MAX_HIGHLIGHTS_PER_ITEM. */
  overLimit: number
}

/**
 * Places an entry's highlights on its item (docs/import-export.md#highlights): each is anchored in the
 * item's article `text` when it has one, at its `position` when the text there is its quote, else by the
 * quote as a highlight is created (docs/highlights.md#anchoring), else approximately as after a
 * re-extraction (docs/highlights.md#re-anchoring, under `budget`, shared by a batch); one found exactly
 * takes its `prefix` and `suffix` from the text. Not found, or no text: `position` null, and the next
 * extraction anchors it. One that the item already has is a repeat and is left out: the same `exact` and
 * either the same position or the same `prefix` and `suffix`, or the id it was exported with; each
 * highlight the item has answers for one repeat at most, so a passage highlighted twice comes in twice
 * once. The item keeps at most MAX_HIGHLIGHTS_PER_ITEM.
 */
export function placeImportedHighlights<H extends ImportHighlight>(
  text: string | null,
  existing: readonly ExistingHighlight[],
  incoming: readonly H[],
  budget: FuzzyBudget,
): PlacedHighlights<H> {
  const anchored = incoming.map((highlight) => {
    if (text === null) return { highlight, quote: highlight.quote, position: null as TextPosition | null }
    const exact = anchorQuote(text, highlight.quote, highlight.position)
    return exact === null
      ? { highlight, quote: highlight.quote, position: null as TextPosition | null }
      : { highlight, quote: exact.quote, position: exact.position as TextPosition | null }
  })
  if (text !== null) {
    const missing = anchored.filter((placed) => placed.position === null)
    const found = reanchorQuotes(
      text,
      missing.map((placed) => ({ quote: placed.quote, position: placed.highlight.position })),
      budget,
    )
    missing.forEach((placed, i) => {
      placed.position = found[i]!
    })
  }
  const unmatched = [...existing]
  const insert: PlacedHighlights<H>['insert'] = []
  let repeats = 0
  let overLimit = 0
  for (const placed of anchored) {
    const at = unmatched.findIndex((known) => sameHighlight(known, placed))
    if (at !== -1) {
      unmatched.splice(at, 1)
      repeats++
    } else if (existing.length + insert.length >= MAX_HIGHLIGHTS_PER_ITEM) overLimit++
    else insert.push(placed)
  }
  return { insert, repeats, overLimit }
}

function sameHighlight(
  known: ExistingHighlight,
  placed: { highlight: ImportHighlight; quote: TextQuote; position: TextPosition | null },
): boolean {
  if (placed.highlight.sourceId !== null && known.id === placed.highlight.sourceId) return true
  if (known.quote.exact !== placed.quote.exact) return false
  const samePlace = (position: TextPosition | null) =>
    position !== null &&
    known.position !== null &&
    known.position.start === position.start &&
    known.position.end === position.end
  const sameContext = (quote: TextQuote) => known.quote.prefix === quote.prefix && known.quote.suffix === quote.suffix
  return samePlace(placed.position) || sameContext(placed.quote) || sameContext(placed.highlight.quote)
}
