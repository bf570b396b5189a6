// A worker thread that turns pages into metadata and articles, and articles into Markdown, so parsing a
// 2 MiB page never stalls the serving thread (docs/reading.md#extraction). Web APIs only: runs on Bun and Deno.
import { decodeHtml } from '../../core/enrichment/decode-html.ts'
import { extractPage } from '../../core/enrichment/extract-page.ts'
import { articleImageSources, withArchivedImages } from '../../core/reading/article-images.ts'
import { extractArticle } from '../../core/reading/extract-article.ts'
import { articleMarkdown } from '../../core/reading/markdown.ts'
import type { ThreadRequest, ThreadAnswer } from './thread-messages.ts'

declare const self: {
  onmessage: ((event: MessageEvent) => void) | null
  postMessage(message: unknown): void
}

self.onmessage = (event: MessageEvent) => {
  const request = event.data as ThreadRequest
  let answer: ThreadAnswer
  try {
    if (request.kind === 'extract') {
      const html = typeof request.page === 'string' ? request.page : decodeHtml(request.page, request.contentType)
      const article = extractArticle(html, request.url)
      const imageSources = article ? articleImageSources(article.html) : []
      answer = { id: request.id, ok: true, value: { metadata: extractPage(html, request.url), article, imageSources } }
    } else if (request.kind === 'images') {
      answer = {
        id: request.id,
        ok: true,
        value: withArchivedImages(request.article, request.pageUrl, new Map(request.copies)),
      }
    } else {
      answer = { id: request.id, ok: true, value: articleMarkdown(request.html) }
    }
  } catch (error) {
    // The name only: a message may quote the page.
    answer = { id: request.id, ok: false, error: error instanceof Error ? error.name : 'unknown' }
  }
  self.postMessage(answer)
}

// Modules loaded: the pool may send work (and start its clock) now.
self.postMessage({ ready: true })
