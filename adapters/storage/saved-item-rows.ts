import type { CaptureChannel, EnrichmentStatus, ItemType, SavedItem, Tag } from '../../core/types.ts'
import { folders, savedItems } from './schema.ts'

/**
 * The columns a saved item is read with, in a fixed order. Hot reads take them as positional arrays
 * (`.values()`) and decode them here: drizzle's per-row mapping of 26 named fields cost more than the
 * query itself on a 50-item page (docs/benchmarks.md#profile).
 */
export const ITEM_FIELDS = {
  id: savedItems.id,
  userId: savedItems.userId,
  originalUrl: savedItems.originalUrl,
  normalizedUrl: savedItems.normalizedUrl,
  host: savedItems.host,
  title: savedItems.title,
  description: savedItems.description,
  siteName: savedItems.siteName,
  faviconUrl: savedItems.faviconUrl,
  faviconLightUrl: savedItems.faviconLightUrl,
  faviconDarkUrl: savedItems.faviconDarkUrl,
  imageUrl: savedItems.imageUrl,
  canonicalUrl: savedItems.canonicalUrl,
  previewSummary: savedItems.previewSummary,
  type: savedItems.type,
  tags: savedItems.tags,
  enrichmentStatus: savedItems.enrichmentStatus,
  sourceName: savedItems.sourceName,
  captureChannel: savedItems.captureChannel,
  folderId: savedItems.folderId,
  isRead: savedItems.isRead,
  openedAt: savedItems.openedAt,
  lastSavedAt: savedItems.lastSavedAt,
  createdAt: savedItems.createdAt,
  updatedAt: savedItems.updatedAt,
  folderName: folders.name,
}

/** Index of the first column after ITEM_FIELDS: list queries append their sort keys there. */
export const AFTER_ITEM_FIELDS = Object.keys(ITEM_FIELDS).length

/** A row as every driver returns it from `.values()`: an array, or @libsql/client's array-like Row. */
export type RawRow = ArrayLike<unknown>

/**
 * Decodes one positional row. Every driver returns SQLite's storage values: booleans as 0/1 and JSON as
 * text; `Number()` also takes a bigint, in case a driver is set to return them.
 */
export function itemFromRow(row: RawRow): SavedItem {
  const folderId = row[19] as string | null
  const folderName = row[25] as string | null
  return {
    id: row[0] as string,
    userId: row[1] as string,
    originalUrl: row[2] as string,
    normalizedUrl: row[3] as string,
    host: row[4] as string,
    title: row[5] as string | null,
    description: row[6] as string | null,
    siteName: row[7] as string | null,
    faviconUrl: row[8] as string | null,
    faviconLightUrl: row[9] as string | null,
    faviconDarkUrl: row[10] as string | null,
    imageUrl: row[11] as string | null,
    canonicalUrl: row[12] as string | null,
    previewSummary: row[13] as string | null,
    type: row[14] as ItemType,
    tags: JSON.parse(row[15] as string) as Tag[],
    enrichmentStatus: row[16] as EnrichmentStatus,
    sourceName: row[17] as string | null,
    captureChannel: row[18] as CaptureChannel | null,
    folder: folderId !== null && folderName !== null ? { id: folderId, name: folderName } : null,
    isRead: Number(row[20]) === 1,
    openedAt: row[21] as string | null,
    lastSavedAt: row[22] as string,
    createdAt: row[23] as string,
    updatedAt: row[24] as string,
  }
}
