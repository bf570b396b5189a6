import type { SavedItem } from '../types.ts'

/** The fields of a saved item that leave the service (the API, exports); internal ones left out. */
export type SavedItemDto = ReturnType<typeof toSavedItemDto>

/**
 * The wire shape of a saved item (docs/api.md#endpoints): every field present, in this order, internal ones
 * (`userId`, `openedAt`) left out. Takes any object with those fields, so a copy of one already made
 * (an export's item) comes out the same.
 */
export function toSavedItemDto(item: Omit<SavedItem, 'userId' | 'openedAt'>) {
  return {
    id: item.id,
    originalUrl: item.originalUrl,
    normalizedUrl: item.normalizedUrl,
    host: item.host,
    title: item.title,
    description: item.description,
    siteName: item.siteName,
    faviconUrl: item.faviconUrl,
    faviconLightUrl: item.faviconLightUrl,
    faviconDarkUrl: item.faviconDarkUrl,
    imageUrl: item.imageUrl,
    canonicalUrl: item.canonicalUrl,
    previewSummary: item.previewSummary,
    type: item.type,
    tags: item.tags,
    enrichmentStatus: item.enrichmentStatus,
    sourceName: item.sourceName,
    captureChannel: item.captureChannel,
    folder: item.folder,
    isRead: item.isRead,
    lastSavedAt: item.lastSavedAt,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  }
}
