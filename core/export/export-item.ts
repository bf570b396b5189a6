import type { CaptureChannel, EnrichmentStatus, Folder, ItemType, Tag } from '../types.ts'

/**
 * One saved item as an export carries it: exactly the fields of the API's saved item (docs/api.md#endpoints),
 * in the same order, so an export reads like a page of `GET /saved-items` and the import can read it back
 * (docs/import-export.md#export). Timestamps are RFC 3339 strings (`toTimestamp`).
 */
export interface ExportItem {
  id: string
  originalUrl: string
  normalizedUrl: string
  host: string
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
  enrichmentStatus: EnrichmentStatus
  sourceName: string | null
  captureChannel: CaptureChannel | null
  folder: Folder | null
  isRead: boolean
  lastSavedAt: string
  createdAt: string
  updatedAt: string
}

/** What the head of an export says about the export itself. */
export interface ExportContext {
  /** When the export was made: an RFC 3339 timestamp. */
  exportedAt: string
}

/**
 * Copies the export's fields, in the export's order, off whatever object the caller holds. The JSON export
 * writes this copy rather than the object it was given, so a caller that passes a whole stored record
 * (with `userId`, `openedAt`, …) or builds its objects in another key order still writes the documented
 * shape, field for field.
 */
export function exportRecord(item: ExportItem): ExportItem {
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
    folder: item.folder === null ? null : { id: item.folder.id, name: item.folder.name },
    isRead: item.isRead,
    lastSavedAt: item.lastSavedAt,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  }
}
