import type { ItemType, Tag } from '../types.ts'

/**
 * What enrichment learned about a fetched page: the fields it fills on a saved item.
 * Every text field is decoded, stripped of markup and control characters, and null when empty.
 * @see CONTRACT §7
 */
export interface PageMetadata {
  title: string | null
  description: string | null
  siteName: string | null
  faviconUrl: string | null
  faviconLightUrl: string | null
  faviconDarkUrl: string | null
  imageUrl: string | null
  canonicalUrl: string | null
  previewSummary: string | null
  type: ItemType
  tags: Tag[]
}

/** Longest preview summary, in UTF-16 code units (so also at most this many code points). @see CONTRACT §7 */
export const PREVIEW_SUMMARY_MAX = 300
