import { Parser } from 'htmlparser2'

// Elements that start a new paragraph of text (as a reader sees it). Exported for the walks that must
// agree with articleText character for character (core/highlights/mark-article.ts).
export const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'pre',
  'blockquote',
  'figure',
  'figcaption',
  'table',
  'caption',
  'tr',
  'hr',
  'div',
  'section',
  'article',
])

/**
 * The plain text of sanitized article HTML: one paragraph per block, separated by a blank line, with
 * runs of whitespace collapsed inside paragraphs (line breaks kept inside `<pre>`). The paragraph breaks
 * are what cutting at a paragraph boundary relies on. @see docs/reading.md#content
 */
export function articleText(html: string): string {
  const paragraphs: string[] = []
  let current = ''
  let preDepth = 0
  const flush = () => {
    const text = preDepth > 0 ? current.replace(/^\n+|\s+$/g, '') : current.replace(/\s+/g, ' ').trim()
    if (text) paragraphs.push(text)
    current = ''
  }
  const parser = new Parser(
    {
      onopentag(name) {
        if (BLOCK_ELEMENTS.has(name)) flush()
        if (name === 'pre') preDepth++
        if (name === 'br') current += '\n'
        if (name === 'td' || name === 'th') current += ' '
      },
      ontext(text) {
        current += text
      },
      onclosetag(name) {
        if (BLOCK_ELEMENTS.has(name)) flush()
        if (name === 'pre') preDepth = Math.max(0, preDepth - 1)
      },
    },
    { decodeEntities: true },
  )
  parser.write(html)
  parser.end()
  flush()
  return paragraphs.join('\n\n')
}
