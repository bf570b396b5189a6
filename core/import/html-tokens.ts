import { Tokenizer } from 'htmlparser2'

export interface HtmlEvents {
  /** A start tag: lowercase name, attributes (lowercase names, entities decoded, first one wins), offset of its `<`. */
  open(name: string, attributes: ReadonlyMap<string, string>, offset: number): void
  close(name: string): void
  /** Text with entities decoded, in pieces (an entity arrives as its own piece). */
  text(text: string): void
}

/** Characters handed to the tokenizer at a time: the scan pauses after each piece. */
const HTML_PIECE = 64 * 1024

/**
 * Streams the tags and text of an HTML document, in order, with no element tree, pausing (yielding) after
 * each 64 Ki characters so that a caller can hand on what the events built so far before reading on.
 * htmlparser2's `Parser` keeps open elements in an array it grows with `unshift`, which makes 100,000
 * nested `<DL>` quadratic; its `Tokenizer` keeps no stack, and a bookmark file closes every `<DL>` it opens
 * anyway. The tokenizer reports absolute offsets whatever the piece, so names are sliced from `html`.
 */
export function* scanHtml(html: string, events: HtmlEvents): Generator<void, void, undefined> {
  let tagName = ''
  let tagStart = 0
  let attributes = new Map<string, string>()
  let attributeName = ''
  let attributeValue = ''
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        tagName = html.slice(start, end).toLowerCase()
        tagStart = start - 1
        attributes = new Map()
      },
      onattribname(start, end) {
        attributeName = html.slice(start, end).toLowerCase()
        attributeValue = ''
      },
      onattribdata(start, end) {
        attributeValue += html.slice(start, end)
      },
      onattribentity(codePoint) {
        attributeValue += String.fromCodePoint(codePoint)
      },
      onattribend() {
        if (!attributes.has(attributeName)) attributes.set(attributeName, attributeValue)
      },
      onopentagend() {
        events.open(tagName, attributes, tagStart)
      },
      onselfclosingtag() {
        events.open(tagName, attributes, tagStart)
        events.close(tagName)
      },
      onclosetag(start, end) {
        events.close(html.slice(start, end).toLowerCase())
      },
      ontext(start, end) {
        events.text(html.slice(start, end))
      },
      ontextentity(codePoint) {
        events.text(String.fromCodePoint(codePoint))
      },
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      onend() {},
    },
  )
  for (let at = 0; at < html.length; at += HTML_PIECE) {
    tokenizer.write(html.slice(at, at + HTML_PIECE))
    yield
  }
  tokenizer.end()
}

/**
 * Line numbers for offsets that only grow, as a scan meets them: counts the newlines in between, so a
 * whole file costs one pass.
 */
export function lineCounter(text: string): (offset: number) => number {
  let line = 1
  let position = 0
  return (offset) => {
    for (let at = text.indexOf('\n', position); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++
    position = Math.max(position, offset)
    return line
  }
}
