import { ValidationError } from '../errors.ts'

/**
 * Highlights (docs/highlights.md): a passage of an item's stored article `text`, anchored as the W3C Web
 * Annotation model anchors a selection (https://www.w3.org/TR/annotation-model/#selectors): a
 * TextQuoteSelector (`quote`) and a TextPositionSelector (`position`, UTF-16 offsets into `text`, end
 * exclusive; null while the quote is not found in the current text).
 */

export const HIGHLIGHT_COLORS = ['yellow', 'green', 'blue', 'pink', 'purple'] as const
export type HighlightColor = (typeof HIGHLIGHT_COLORS)[number]
export const DEFAULT_HIGHLIGHT_COLOR: HighlightColor = 'yellow'

/** The most characters (UTF-16 code units, as `position` counts) of a quote's `exact`. @see docs/highlights.md#limits */
export const MAX_EXACT_LENGTH = 10_000
/** The most characters of a note. */
export const MAX_NOTE_LENGTH = 10_000
/** How much text around the passage a quote keeps as `prefix` and `suffix` (as Hypothesis does). */
export const CONTEXT_LENGTH = 32
/** The most highlights one item may have. */
export const MAX_HIGHLIGHTS_PER_ITEM = 1_000

/** W3C TextQuoteSelector: the passage and up to CONTEXT_LENGTH characters on each side ("" when none). */
export interface TextQuote {
  exact: string
  prefix: string
  suffix: string
}

/** W3C TextPositionSelector: UTF-16 offsets into the article's `text`, `end` exclusive. */
export interface TextPosition {
  start: number
  end: number
}

/** A highlight as stored, its owner and item included. */
export interface StoredHighlight {
  id: string
  userId: string
  savedItemId: string
  quote: TextQuote
  position: TextPosition | null
  color: HighlightColor
  note: string | null
  createdAt: string
  updatedAt: string
}

/** The wire shape of a highlight (docs/highlights.md#the-model): every field present, in this order. */
export type HighlightDto = ReturnType<typeof toHighlightDto>

export function toHighlightDto(highlight: Omit<StoredHighlight, 'userId'>) {
  return {
    id: highlight.id,
    savedItemId: highlight.savedItemId,
    quote: { exact: highlight.quote.exact, prefix: highlight.quote.prefix, suffix: highlight.quote.suffix },
    position: highlight.position === null ? null : { start: highlight.position.start, end: highlight.position.end },
    color: highlight.color,
    note: highlight.note,
    createdAt: highlight.createdAt,
    updatedAt: highlight.updatedAt,
  }
}

/** What a client sends to create a highlight, as the schema let it through. */
export interface HighlightInput {
  quote: { exact: string; prefix?: string | undefined; suffix?: string | undefined }
  position?: TextPosition | null | undefined
  color?: HighlightColor | undefined
  note?: string | null | undefined
}

/** A create request after its value rules: context "" when absent, the colour defaulted, the note normalized. */
export interface CheckedHighlightInput {
  quote: TextQuote
  position: TextPosition | null
  color: HighlightColor
  note: string | null
}

/** What a client sends to change a highlight: at least one of the two; `note: null` clears the note. */
export interface HighlightPatch {
  color?: HighlightColor | undefined
  note?: string | null | undefined
}

// A lone surrogate cannot be a passage of well-formed text, and would let a passage start or end inside a
// character; refused rather than stored.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

function checkText(field: string, value: string, max: number, min = 0): void {
  if (value.length < min || value.length > max)
    throw new ValidationError(
      min > 0
        ? `${field}: must be ${min} to ${max.toLocaleString('en-US')} characters`
        : `${field}: must be at most ${max.toLocaleString('en-US')} characters`,
    )
  if (LONE_SURROGATE.test(value)) throw new ValidationError(`${field}: must be well-formed text (no lone surrogate)`)
}

/**
 * A note as stored: null for none, and a note that is blank after trimming is none too; any other note is
 * kept exactly as sent. @see docs/highlights.md#notes
 */
export function normalizeNote(note: string | null | undefined): string | null {
  if (note === undefined || note === null) return null
  checkText('body.note', note, MAX_NOTE_LENGTH)
  return note.trim() === '' ? null : note
}

function checkColor(color: string): HighlightColor {
  if (!(HIGHLIGHT_COLORS as readonly string[]).includes(color))
    throw new ValidationError(`body.color: must be one of ${HIGHLIGHT_COLORS.map((c) => `"${c}"`).join(', ')}`)
  return color as HighlightColor
}

/**
 * The value rules of a create request (docs/highlights.md#limits): `exact` 1–10,000 characters, `prefix`
 * and `suffix` at most 32, `note` at most 10,000, well-formed text, and a `position` with
 * 0 ≤ start < end. The schema checks the same lengths; this holds them for every caller of the app layer.
 */
export function checkHighlightInput(input: HighlightInput): CheckedHighlightInput {
  const { exact, prefix = '', suffix = '' } = input.quote
  checkText('body.quote.exact', exact, MAX_EXACT_LENGTH, 1)
  checkText('body.quote.prefix', prefix, CONTEXT_LENGTH)
  checkText('body.quote.suffix', suffix, CONTEXT_LENGTH)
  const position = input.position ?? null
  if (position !== null) {
    const { start, end } = position
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start >= end)
      throw new ValidationError('body.position: start and end must be integers with 0 ≤ start < end')
  }
  return {
    quote: { exact, prefix, suffix },
    position: position === null ? null : { start: position.start, end: position.end },
    color: checkColor(input.color ?? DEFAULT_HIGHLIGHT_COLOR),
    note: normalizeNote(input.note),
  }
}

/** A patch after its value rules: what to set (absent: keep), at least one of the two. */
export function checkHighlightPatch(patch: HighlightPatch): { color?: HighlightColor; note?: string | null } {
  const checked: { color?: HighlightColor; note?: string | null } = {}
  if (patch.color !== undefined) checked.color = checkColor(patch.color)
  if (patch.note !== undefined) checked.note = normalizeNote(patch.note)
  if (checked.color === undefined && !('note' in checked))
    throw new ValidationError('body: must have at least one of "color" and "note"')
  return checked
}
