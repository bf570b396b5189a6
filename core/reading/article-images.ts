import { Parser } from 'htmlparser2'
import { articleText } from './article-text.ts'
import { capHtml } from './cap-html.ts'
import type { Article } from './extract-article.ts'
import { countWords } from './reading-time.ts'
import { sanitizeArticle } from './sanitize-article.ts'

/**
 * The images of an article that enrichment archives (docs/reading.md#archived-images): at most
 * `count` distinct sources an item, each at most `bytes`, together at most `itemBytes`.
 */
export const ARTICLE_IMAGE_LIMITS = { count: 50, bytes: 5 * 1024 * 1024, itemBytes: 20 * 1024 * 1024 } as const

/**
 * The distinct `http(s)` sources of the `<img>` elements of sanitized article HTML, in the order they first
 * appear (`data:` images are already in the article, nothing to fetch). Each as the sanitizer wrote it,
 * which is the key {@link withArchivedImages} looks its copy up by.
 */
export function articleImageSources(html: string): string[] {
  const found = new Set<string>()
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const src = name === 'img' ? attributes.src : undefined
        if (src === undefined || found.has(src)) return
        try {
          const url = new URL(src)
          if (url.protocol === 'http:' || url.protocol === 'https:') found.add(url.href)
        } catch {
          // Not an absolute URL: the sanitizer writes none, so nothing to fetch.
        }
      },
    },
    { decodeEntities: true },
  )
  parser.write(html)
  parser.end()
  return [...found]
}

/**
 * The article with each image of `copies` (source → URL of our copy) pointing at the copy: sanitized again
 * (so what is stored is sanitizer output, whatever the map holds), and cut again in the rare case the new
 * URLs take it past the cap. Images are no text, so the text, and every highlight anchored in it, stays as
 * it was unless that cut happened (docs/highlights.md#anchoring).
 */
export function withArchivedImages(article: Article, pageUrl: string, copies: ReadonlyMap<string, string>): Article {
  if (copies.size === 0) return article
  const html = capHtml(sanitizeArticle(article.html, pageUrl, { archivedImages: copies }), pageUrl).trim()
  const text = articleText(html)
  return text === article.text ? { ...article, html } : { ...article, html, text, wordCount: countWords(text) }
}
