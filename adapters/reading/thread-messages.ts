import type { PageMetadata } from '../../core/enrichment/page-metadata.ts'
import type { Article } from '../../core/reading/extract-article.ts'

/** What a page turned into: the item's metadata, and its article when it has a readable one. */
export interface ExtractedPage {
  metadata: PageMetadata
  article: Article | null
  /** The article's distinct http(s) image sources in order, for archiving (docs/reading.md#archived-images). */
  imageSources?: string[]
}

export type ThreadRequest =
  | {
      id: number
      kind: 'extract'
      /** Raw bytes (decoded in the thread by their charset) or text already decoded. */
      page: Uint8Array | string
      contentType: string | null
      url: string
    }
  | { id: number; kind: 'markdown'; html: string }
  /** The article with its archived images pointing at our copies: [source, copy URL] pairs. */
  | { id: number; kind: 'images'; article: Article; pageUrl: string; copies: [string, string][] }

export type ThreadAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string }
