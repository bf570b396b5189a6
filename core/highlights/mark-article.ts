import { Parser } from 'htmlparser2'
import { BLOCK_ELEMENTS } from '../reading/article-text.ts'
import { DEFAULT_HIGHLIGHT_COLOR, HIGHLIGHT_COLORS, type TextPosition } from './highlight.ts'

/**
 * Highlights drawn into an article (docs/highlights.md#web): the reader view shows each highlight as
 * `<mark>` elements in the sanitized article HTML, placed from the highlight's text offsets alone. The
 * HTML is walked with exactly the rules of `articleText` (core/reading/article-text.ts: the same parser,
 * the same blocks, whitespace collapsing, `<br>`, `<pre>`, cell spacing), so every character of the
 * article's `text` is traced back to the characters of the HTML it came from; a highlight's `[start, end)`
 * is then wrapped where those characters are. Only ids and colours become markup: the quote and the note
 * never enter the article.
 */

/** What a mark needs of a highlight: its id, its colour and its place in the text (null: not found, no mark). */
export interface MarkedHighlight {
  id: string
  color: string
  position: TextPosition | null
}

/** `/\s/` of JavaScript (the class articleText collapses and trims), for one UTF-16 code unit. */
export function isCollapsibleSpace(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  )
}

// Text directly inside these is moved out of the table by a browser's parser ("foster parenting"): a mark
// put there would not stay where it was put, so such text (in a sanitized article, whitespace between rows)
// is never wrapped.
const TABLE_CONTEXT = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr', 'colgroup'])

/** A stretch of the HTML's text between two tags. */
interface Run {
  /** Whether a mark may be put there (not directly inside a table's structure). */
  markable: boolean
}

/** One piece of text as the parser reads it: plain text, or one character reference (`&amp;`, `&#x1F600;`). */
interface Piece {
  /** Where its characters are in the paragraph being read. */
  at: number
  length: number
  /** The HTML it is read from, `[from, to)`. */
  from: number
  to: number
  /** Plain text is its own source character for character; a reference is read (and wrapped) whole. */
  plain: boolean
  /** The run it is part of, and whether that run may be wrapped. */
  run: number
  markable: boolean
}

/** A paragraph of the article's text as it is read: articleText's paragraph and what it was made from. */
interface Paragraph {
  /** Its offset in the whole text (after the blank lines before it); meaningful when `text` is not empty. */
  base: number
  /** Exactly articleText's paragraph (possibly empty: then it adds nothing to the text). */
  text: string
  /** The characters read, before collapsing: the pieces' and those of `<br>` (a newline) and cells (a space). */
  current: string
  pre: boolean
  pieces: Piece[]
}

/**
 * The walk of articleText (core/reading/article-text.ts), event for event, handing over each paragraph
 * with the pieces it was made of. Returns the whole text and the runs (stretches of text between tags).
 */
function walkArticle(html: string, onParagraph: (paragraph: Paragraph) => void): { text: string; runs: Run[] } {
  const paragraphs: string[] = []
  const runs: Run[] = []
  let textLength = 0
  let current = ''
  let pieces: Piece[] = []
  let preDepth = 0
  let inRun = false
  const open: string[] = []

  const flush = () => {
    if (current === '') return
    const pre = preDepth > 0
    // Exactly articleText's paragraph; where each character lands is worked out beside it, when asked.
    const text = pre ? current.replace(/^\n+|\s+$/g, '') : current.replace(/\s+/g, ' ').trim()
    const base = textLength + (paragraphs.length > 0 ? 2 : 0)
    onParagraph({ base, text, current, pre, pieces })
    if (text) {
      paragraphs.push(text)
      textLength = base + text.length
    }
    current = ''
    pieces = []
  }

  const parser = new Parser(
    {
      onopentag(name) {
        inRun = false
        open.push(name)
        if (BLOCK_ELEMENTS.has(name)) flush()
        if (name === 'pre') preDepth++
        if (name === 'br') current += '\n'
        if (name === 'td' || name === 'th') current += ' '
      },
      ontext(text) {
        const from = parser.startIndex
        const to = parser.endIndex + 1
        if (!inRun) {
          const parent = open.at(-1)
          runs.push({ markable: parent === undefined || !TABLE_CONTEXT.has(parent) })
          inRun = true
        }
        // A reference is longer than what it decodes to (`&lt` is 3 characters for 1), plain text never is.
        const plain = to - from === text.length
        const run = runs.length - 1
        pieces.push({ at: current.length, length: text.length, from, to, plain, run, markable: runs[run]!.markable })
        current += text
      },
      onclosetag(name) {
        inRun = false
        open.pop()
        if (BLOCK_ELEMENTS.has(name)) flush()
        if (name === 'pre') preDepth = Math.max(0, preDepth - 1)
      },
    },
    { decodeEntities: true },
  )
  parser.write(html)
  parser.end()
  flush()
  return { text: paragraphs.join('\n\n'), runs }
}

/**
 * Where each character of a paragraph as read lands in articleText's paragraph: its offset there, or -1
 * when dropped. A run of whitespace (outside `<pre>`) is one space, every character of it at that space.
 */
function paragraphOffsets(paragraph: Paragraph): Int32Array {
  const { current } = paragraph
  const offsets = new Int32Array(current.length)
  if (paragraph.pre) {
    // current.replace(/^\n+|\s+$/g, '')
    let lead = 0
    while (lead < current.length && current.charCodeAt(lead) === 0x0a) lead++
    let end = current.length
    while (end > lead && isCollapsibleSpace(current.charCodeAt(end - 1))) end--
    for (let i = 0; i < current.length; i++) offsets[i] = i < lead || i >= end ? -1 : i - lead
  } else {
    // current.replace(/\s+/g, ' ').trim()
    let out = 0
    let spaceFrom = -1
    for (let i = 0; i < current.length; i++) {
      if (isCollapsibleSpace(current.charCodeAt(i))) {
        if (spaceFrom < 0) spaceFrom = i
        continue
      }
      if (spaceFrom >= 0) {
        const at = out > 0 ? out++ : -1
        offsets.fill(at, spaceFrom, i)
        spaceFrom = -1
      }
      offsets[i] = out++
    }
    if (spaceFrom >= 0) offsets.fill(-1, spaceFrom)
  }
  return offsets
}

/**
 * The article's text and where each of its characters comes from. A *unit* is one UTF-16 code unit of the
 * HTML's decoded text, in document order; `articleText` keeps some (at their offset in `text`), collapses
 * runs of whitespace into one (every unit of the run at the offset of the one space) and drops others
 * (whitespace at a paragraph's edges). Characters of `text` that no unit gives are the paragraph breaks,
 * a `<br>`'s newline and a cell's space. For tests and diagnostics: markArticle reads only the paragraphs
 * its highlights are in.
 */
export interface ArticleTextMap {
  /** Equal to `articleText(html)`. */
  text: string
  /** The units themselves: the HTML's decoded text, in document order, before any collapsing. */
  units: string
  /** Per unit: its offset in `text`, or -1 when dropped. */
  offset: number[]
  /** Per unit: the HTML it is read from, `[from, to)` (a character reference's whole `&…;`). */
  from: number[]
  to: number[]
  /** Per unit: whether a mark may wrap it (not text directly inside a table's structure). */
  markable: boolean[]
}

/** Walks sanitized article HTML as `articleText` does, keeping where each character of the text comes from. */
export function articleTextMap(html: string): ArticleTextMap {
  const map: ArticleTextMap = { text: '', units: '', offset: [], from: [], to: [], markable: [] }
  const walked = walkArticle(html, (paragraph) => {
    const offsets = paragraphOffsets(paragraph)
    for (const piece of paragraph.pieces) {
      map.units += paragraph.current.slice(piece.at, piece.at + piece.length)
      for (let i = 0; i < piece.length; i++) {
        const at = offsets[piece.at + i]!
        map.offset.push(paragraph.text && at >= 0 ? paragraph.base + at : -1)
        map.from.push(piece.plain ? piece.from + i : piece.from)
        map.to.push(piece.plain ? piece.from + i + 1 : piece.to)
        map.markable.push(piece.markable)
      }
    }
  })
  map.text = walked.text
  return map
}

const escapeAttribute = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** A highlight's piece inside one run: the HTML `[from, to)` to wrap. */
interface Segment {
  from: number
  to: number
}

/**
 * The article HTML with each highlight's passage wrapped in `<mark class="hl hl-<color>"
 * data-highlight="<id>">`, the first of its marks also carrying `id="highlight-<id>"` (docs/web.md#reader-view).
 * A passage across elements (paragraphs, a link, a `<br>`) becomes one mark per stretch of text; passages
 * that overlap become nested marks, the one that starts first (then the longer one) outside. Highlights
 * without a position, or whose offsets are not within the text, get no mark. `articleText` of the result
 * is `articleText(html)`: marks are inline and add no text.
 *
 * `expectedText` is the stored `text` the offsets count in: when the HTML does not give exactly that text
 * (which the extraction rules out; guarded anyway), marks would land in the wrong places, and the HTML is
 * returned without any.
 */
export function markArticle(html: string, highlights: readonly MarkedHighlight[], expectedText?: string): string {
  // Outer marks first: by start, then the longer, then as given.
  const order = highlights
    .filter(
      (h) =>
        h.position !== null &&
        Number.isSafeInteger(h.position.start) &&
        Number.isSafeInteger(h.position.end) &&
        h.position.start >= 0 &&
        h.position.start < h.position.end,
    )
    .map((highlight, index) => ({ start: highlight.position!.start, end: highlight.position!.end, highlight, index }))
    .sort((a, b) => a.start - b.start || b.end - a.end || a.index - b.index)
  if (order.length === 0) return html

  // Each highlight's segment in each run it reaches, by run, by rank (outer marks, earlier then longer, first).
  const byRun = new Map<number, Map<number, Segment>>()
  let next = 0
  let active: number[] = []
  let agrees = true
  const walked = walkArticle(html, (paragraph) => {
    const { base, text } = paragraph
    if (!text) return
    // The text so far must be the stored one, or offsets would land elsewhere.
    if (expectedText !== undefined && agrees)
      agrees = expectedText.startsWith(text, base) && (base === 0 || expectedText.slice(base - 2, base) === '\n\n')
    const end = base + text.length
    while (next < order.length && order[next]!.start < end) active.push(next++)
    active = active.filter((rank) => order[rank]!.end > base)
    if (active.length === 0 || !agrees) return
    const offsets = paragraphOffsets(paragraph)
    for (const piece of paragraph.pieces) {
      if (!piece.markable) continue
      for (const rank of active) {
        const start = order[rank]!.start - base
        const stop = order[rank]!.end - base
        // The piece's first and last characters kept within [start, stop).
        let first = -1
        let last = -1
        for (let i = piece.at; i < piece.at + piece.length; i++) {
          const at = offsets[i]!
          if (at < 0 || at < start || at >= stop) continue
          if (first < 0) first = i
          last = i
        }
        if (first < 0) continue
        const from = piece.plain ? piece.from + (first - piece.at) : piece.from
        const to = piece.plain ? piece.from + (last - piece.at) + 1 : piece.to
        const segments = byRun.get(piece.run) ?? new Map<number, Segment>()
        const segment = segments.get(rank)
        if (segment) segment.to = to
        else segments.set(rank, { from, to })
        byRun.set(piece.run, segments)
      }
    }
  })
  if (expectedText !== undefined && (!agrees || walked.text.length !== expectedText.length)) return html
  // A passage that runs past the end of the text is not the text's: no mark at all.
  for (const segments of byRun.values())
    for (const rank of segments.keys()) if (order[rank]!.end > walked.text.length) segments.delete(rank)

  const opening = order.map(({ highlight }) => {
    const color = (HIGHLIGHT_COLORS as readonly string[]).includes(highlight.color)
      ? highlight.color
      : DEFAULT_HIGHLIGHT_COLOR
    const id = escapeAttribute(highlight.id)
    return {
      named: `<mark class="hl hl-${color}" data-highlight="${id}" id="highlight-${id}">`,
      tag: `<mark class="hl hl-${color}" data-highlight="${id}">`,
    }
  })
  const out: string[] = []
  const named = new Set<number>()
  let copied = 0
  // Runs come in document order (the map keeps insertion order, and paragraphs are read in order).
  for (const segments of byRun.values()) {
    const points = [...new Set([...segments.values()].flatMap((s) => [s.from, s.to]))].sort((a, b) => a - b)
    for (let i = 0; i + 1 < points.length; i++) {
      const from = points[i]!
      const to = points[i + 1]!
      const covering: number[] = []
      for (const [rank, segment] of segments) if (segment.from <= from && segment.to >= to) covering.push(rank)
      if (covering.length === 0) continue
      covering.sort((a, b) => a - b)
      out.push(html.slice(copied, from))
      for (const rank of covering) {
        // The first mark of a highlight, in document order, is the one its links point at.
        out.push(named.has(rank) ? opening[rank]!.tag : opening[rank]!.named)
        named.add(rank)
      }
      out.push(html.slice(from, to), '</mark>'.repeat(covering.length))
      copied = to
    }
  }
  out.push(html.slice(copied))
  return out.join('')
}
