import { Readability } from '@mozilla/readability'
import { Parser } from 'htmlparser2'
import { parseHTML } from 'linkedom'
import { cleanText } from '../enrichment/clean-text.ts'
import { articleText } from './article-text.ts'
import { countWords } from './reading-time.ts'
import { ARTICLE_HTML_MAX_BYTES, capHtml } from './cap-html.ts'
import { httpUrl, sanitizeArticle } from './sanitize-article.ts'

/** The readable article of a page, sanitized. @see docs/reading.md#content */
export interface Article {
  title: string | null
  byline: string | null
  siteName: string | null
  /** The page's language tag (`<html lang>`), when it is a well-formed one. */
  lang: string | null
  /** Sanitized HTML, at most {@link ARTICLE_HTML_MAX_BYTES} bytes of UTF-8. */
  html: string
  /** The article as plain text, paragraphs separated by a blank line. */
  text: string
  wordCount: number
}

/** The stored article HTML's cap (cap-html.ts), for those who read it beside the extractor. */
export { ARTICLE_HTML_MAX_BYTES }
/** Past this many elements a page is not read as an article. */
export const ARTICLE_MAX_ELEMENTS = 100_000
/**
 * Past this nesting depth a page is not read as an article: Readability's time grows with the square of
 * the depth (200 levels 0.2 s, 1,000 levels 6 s, 5,000 levels over 100 s), and real pages stay far below.
 */
export const ARTICLE_MAX_DEPTH = 256

const LANG_TAG = /^[a-z]{2,8}(?:-[a-z0-9]{1,8})*$/i

/**
 * The page's article as Readability finds it, then sanitized to the allowlist, cut to
 * {@link ARTICLE_HTML_MAX_BYTES}, and measured. Null when there is nothing readable: no article, no text,
 * or a page past {@link ARTICLE_MAX_ELEMENTS} elements or {@link ARTICLE_MAX_DEPTH} levels of nesting.
 * @see docs/reading.md#content
 */
export function extractArticle(html: string, pageUrl: string): Article | null {
  if (!withinShape(html)) return null
  const { document } = parseHTML(html)
  const base = baseUrlOf(document, pageUrl)
  // Readability resolves relative links against the document's baseURI, which linkedom takes from a
  // relative <base> as written or from the global `location` (in a Deno worker: the worker's file URL).
  // Pinned to the page, links come out absolute on every runtime and thread.
  Object.defineProperty(document, 'baseURI', { value: base })
  Object.defineProperty(document, 'documentURI', { value: pageUrl })
  const lang = document.documentElement?.getAttribute?.('lang')?.trim() ?? ''
  let parsed: ReturnType<Readability['parse']>
  try {
    parsed = new Readability(document as unknown as Document, { maxElemsToParse: ARTICLE_MAX_ELEMENTS }).parse()
  } catch {
    return null
  }
  if (!parsed?.content) return null
  const clean = capHtml(sanitizeArticle(parsed.content, base), base).trim()
  const text = articleText(clean)
  if (!text) return null
  return {
    title: cleanText(parsed.title ?? null, 500),
    byline: cleanText(parsed.byline ?? null, 200),
    siteName: cleanText(parsed.siteName ?? null, 200),
    lang: lang.length <= 35 && LANG_TAG.test(lang) ? lang : null,
    html: clean,
    text,
    wordCount: countWords(text),
  }
}

/** Whether the page stays within the element count and depth bounds: one quick parse, no DOM built. */
function withinShape(html: string): boolean {
  let depth = 0
  let elements = 0
  let within = true
  const parser = new Parser(
    {
      onopentag() {
        depth++
        elements++
        if (depth > ARTICLE_MAX_DEPTH || elements > ARTICLE_MAX_ELEMENTS) {
          within = false
          parser.pause()
        }
      },
      onclosetag() {
        depth--
      },
    },
    { decodeEntities: false },
  )
  parser.write(html)
  if (within) parser.end()
  return within
}

/** The page's `<base href>` when it is http(s), else the page's own URL. */
function baseUrlOf(
  document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null },
  pageUrl: string,
): string {
  const href = document.querySelector('base[href]')?.getAttribute('href')
  return (href && httpUrl(href, pageUrl)) || pageUrl
}
