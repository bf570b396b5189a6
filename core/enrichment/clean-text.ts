import { PREVIEW_SUMMARY_MAX } from './page-metadata.ts'

const LINE_CONTROLS = /[\t\n\v\f\r]/g
// Cc is C0, DEL and C1; Cs only matches unpaired surrogates under /u, which UTF-8 storage cannot hold.
const CONTROLS = /[\p{Cc}\p{Cs}]/gu
// A cheap pre-check for CONTROLS: controls other than whitespace, and any surrogate (paired or not).
const MAY_HAVE_CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\ud800-\udfff]/
// \s is Unicode whitespace with or without /u; tab, line breaks, NBSP and U+3000 included.
const WHITESPACE_RUNS = /\s+/g
const ELLIPSIS = '…'
const TRAILING_PUNCTUATION = /[\s,;:\-–—]+$/u
// Text beyond the limit is kept so the cut can see where the word at the limit ends.
const COLLECT_LIMIT = PREVIEW_SUMMARY_MAX + 32
const SLICE = 1024

/** Control characters dropped (tab and line breaks become spaces), whitespace runs collapsed, trimmed. */
export function collapseText(raw: string): string {
  return withoutControls(raw).replace(WHITESPACE_RUNS, ' ').trim()
}

function withoutControls(raw: string): string {
  return MAY_HAVE_CONTROLS.test(raw) ? raw.replace(LINE_CONTROLS, ' ').replace(CONTROLS, '') : raw
}

/** {@link collapseText}, cut to at most `max` UTF-16 units without splitting a surrogate pair; null when empty. */
export function cleanText(raw: string | null, max: number): string | null {
  if (raw === null) return null
  const text = cutAt(collapseText(raw), max).trimEnd()
  return text === '' ? null : text
}

/**
 * Collapsed readable text gathered from text nodes as they stream in. It stops growing shortly
 * after the summary limit, so a megabyte of body text costs no more than a paragraph.
 */
export class TextCollector {
  text = ''
  private pendingSpace = false
  private highSurrogate = ''

  get full(): boolean {
    return this.text.length >= COLLECT_LIMIT
  }

  /** Marks a boundary between blocks, which reads as a space even when the markup has none. */
  separate(): void {
    this.pendingSpace = true
  }

  append(raw: string): void {
    // A surrogate pair split across text nodes (or writes) is joined again, not dropped as two halves.
    let rest = this.highSurrogate + raw
    this.highSurrogate = ''
    if (isHighSurrogate(rest.charCodeAt(rest.length - 1))) {
      this.highSurrogate = rest.slice(-1)
      rest = rest.slice(0, -1)
    }
    for (let start = 0; start < rest.length && !this.full; ) {
      let end = Math.min(start + SLICE, rest.length)
      if (isHighSurrogate(rest.charCodeAt(end - 1))) end++
      const collapsed = withoutControls(rest.slice(start, end)).replace(WHITESPACE_RUNS, ' ')
      start = end
      // Leading whitespace separates this text from what came before; text without it continues the word.
      if (collapsed.startsWith(' ')) this.pendingSpace = true
      const words = collapsed.trim()
      if (words === '') continue
      this.text += this.pendingSpace && this.text !== '' ? ` ${words}` : words
      this.pendingSpace = collapsed.endsWith(' ')
    }
  }
}

/**
 * The preview summary for collapsed text: the whole text when it fits in
 * {@link PREVIEW_SUMMARY_MAX}, else whole words followed by "…" within that limit; null when empty.
 */
export function cutSummary(text: string): string | null {
  if (text === '') return null
  if (text.length <= PREVIEW_SUMMARY_MAX) return text
  const budget = PREVIEW_SUMMARY_MAX - ELLIPSIS.length
  // A space at `budget` itself means the first `budget` characters end with a whole word. A space
  // far back (text mostly without spaces, as in Japanese) would waste the summary, so then the
  // word segmenter decides.
  const space = text.lastIndexOf(' ', budget)
  const end = space >= budget / 2 ? space : lastWordBoundary(text, budget)
  const head = text.slice(0, end).replace(TRAILING_PUNCTUATION, '')
  return (head === '' ? cutAt(text, budget) : head) + ELLIPSIS
}

/**
 * Text without spaces (Chinese, Japanese, Thai) still has word boundaries, which the Unicode word
 * segmenter finds. Only a single token longer than the budget (a long URL) is cut inside.
 */
function lastWordBoundary(text: string, budget: number): number {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' })
  let best = 0
  // Context past the budget, because where a word ends depends on the characters after it.
  for (const { index } of segmenter.segment(text.slice(0, budget + 32))) {
    if (index > budget) break
    best = index
  }
  return best > 0 ? best : cutAt(text, budget).length
}

function cutAt(text: string, max: number): string {
  if (text.length <= max) return text
  return text.slice(0, isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max)
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
