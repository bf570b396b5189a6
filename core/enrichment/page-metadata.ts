import type { SavedItem } from '../types.ts'

/**
 * What enrichment learned about a fetched page: the fields it fills on a saved item.
 * Every text field is decoded, stripped of markup and control characters, and null when empty.
 * @see docs/enrichment.md
 */
export type PageMetadata = Pick<
  SavedItem,
  | 'title'
  | 'description'
  | 'siteName'
  | 'faviconUrl'
  | 'faviconLightUrl'
  | 'faviconDarkUrl'
  | 'imageUrl'
  | 'canonicalUrl'
  | 'previewSummary'
  | 'type'
  | 'tags'
>

/** Longest preview summary, in UTF-16 code units (so also at most this many code points). @see docs/enrichment.md */
export const PREVIEW_SUMMARY_MAX = 300
