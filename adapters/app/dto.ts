import type { SavedItem } from '../../core/types.ts'

export type SavedItemDto = ReturnType<typeof toSavedItemDto>

/** The wire shape of a saved item (docs/api.md#endpoints): every field present, internal ones left out. */
export function toSavedItemDto(item: SavedItem) {
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
