import { sanitizeArticle } from './sanitize-article.ts'

// The stored article's cap, apart from the extraction (extract-article.ts): archiving an article's images
// caps it again, on the main thread, and importing the cap from the extractor loaded linkedom and Readability
// into every process (1.5 of a started service's 15 MB of live heap), though extraction runs on its threads.
// A larger heap makes every request's allocations cost more (docs/benchmarks.md#the-uncached-list).

/** The stored article HTML's cap, in bytes of UTF-8. */
export const ARTICLE_HTML_MAX_BYTES = 1024 * 1024

const BLOCK_CLOSERS = [
  '</p>',
  '</li>',
  '</pre>',
  '</blockquote>',
  '</figure>',
  '</table>',
  '</h1>',
  '</h2>',
  '</h3>',
  '</h4>',
  '</h5>',
  '</h6>',
]
const encoder = new TextEncoder()

/**
 * Sanitized HTML over the cap is cut after the last block that ends below it, and sanitized again so
 * every element left open is closed.
 */
export function capHtml(html: string, base: string): string {
  if (html.length <= ARTICLE_HTML_MAX_BYTES / 3 || encoder.encode(html).byteLength <= ARTICLE_HTML_MAX_BYTES)
    return html
  // Room for the closing tags the second pass adds.
  const budget = ARTICLE_HTML_MAX_BYTES - 16 * 1024
  let end = Math.min(html.length, budget)
  while (end > 0 && encoder.encode(html.slice(0, end)).byteLength > budget) end = Math.floor(end * 0.9)
  // Never between the two halves of a surrogate pair (a lone half would be stored as U+FFFD, or worse).
  const last = html.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  const head = html.slice(0, end)
  let blockEnd = -1
  for (const closer of BLOCK_CLOSERS) {
    const at = head.lastIndexOf(closer)
    if (at >= 0) blockEnd = Math.max(blockEnd, at + closer.length)
  }
  // No block ends in time (one huge paragraph), or the last one ends so early that cutting there would drop
  // most of what fits (a heading, then one huge paragraph): cut in the text, never inside a tag.
  const cut =
    blockEnd >= head.length / 2
      ? head.slice(0, blockEnd)
      : head.lastIndexOf('<') > head.lastIndexOf('>')
        ? head.slice(0, head.lastIndexOf('<'))
        : head
  return sanitizeArticle(cut, base)
}
