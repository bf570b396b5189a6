import type { CaptureChannel, EnrichmentStatus, ItemType, SavedItem, Tag } from '../../core/types.ts'
import type { NewSavedItemRow } from '../../core/items/capture.ts'
import type { SavedItemDto } from '../../core/items/saved-item-dto.ts'
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

/** Each field's position in a row of `fields`, read off the fields so the order is written once. */
const columnsOf = <F extends object>(fields: F) =>
  Object.fromEntries(Object.keys(fields).map((name, i) => [name, i])) as Record<keyof F, number>

/** Each field's position in a row of ITEM_FIELDS. */
export const COLUMN = columnsOf(ITEM_FIELDS)

/** Index of the first column after ITEM_FIELDS: list queries append their sort keys there. */
export const AFTER_ITEM_FIELDS = Object.keys(ITEM_FIELDS).length

/**
 * The columns of the list's wire shape: ITEM_FIELDS without the two a SavedItemDto does not carry (the
 * owner, whom the query names, and openedAt). Every column read is SQLite work and a JS value per row; on a
 * 50-item page these two were a twelfth of the read (docs/benchmarks.md#the-uncached-list).
 */
const { userId: _owner, openedAt: _openedAt, ...WIRE_FIELDS } = ITEM_FIELDS
export { WIRE_FIELDS }

/** Each wire field's position in a wire row. */
const WIRE_COLUMN = columnsOf(WIRE_FIELDS)

/** The fields a list statement selects, and how each of its rows is read: the item, or its wire shape. */
export interface RowShape<T> {
  fields: typeof ITEM_FIELDS | typeof WIRE_FIELDS
  /** The position of each column a cursor names. */
  column: Record<'id' | 'isRead' | 'lastSavedAt', number>
  /** The first position after `fields`: the title sort selects its two keys there. */
  after: number
  read: (row: RawRow) => T
}

/** A row as every driver returns it from `.values()`: an array, or @libsql/client's array-like Row. */
export type RawRow = ArrayLike<unknown>

/**
 * Decodes one positional row. Every driver returns SQLite's storage values: booleans as 0/1 and JSON as
 * text; `Number()` also takes a bigint, in case a driver is set to return them.
 */
export function itemFromRow(row: RawRow): SavedItem {
  const folderId = row[COLUMN.folderId] as string | null
  const folderName = row[COLUMN.folderName] as string | null
  return {
    id: row[COLUMN.id] as string,
    userId: row[COLUMN.userId] as string,
    originalUrl: row[COLUMN.originalUrl] as string,
    normalizedUrl: row[COLUMN.normalizedUrl] as string,
    host: row[COLUMN.host] as string,
    title: row[COLUMN.title] as string | null,
    description: row[COLUMN.description] as string | null,
    siteName: row[COLUMN.siteName] as string | null,
    faviconUrl: row[COLUMN.faviconUrl] as string | null,
    faviconLightUrl: row[COLUMN.faviconLightUrl] as string | null,
    faviconDarkUrl: row[COLUMN.faviconDarkUrl] as string | null,
    imageUrl: row[COLUMN.imageUrl] as string | null,
    canonicalUrl: row[COLUMN.canonicalUrl] as string | null,
    previewSummary: row[COLUMN.previewSummary] as string | null,
    type: row[COLUMN.type] as ItemType,
    tags: JSON.parse(row[COLUMN.tags] as string) as Tag[],
    enrichmentStatus: row[COLUMN.enrichmentStatus] as EnrichmentStatus,
    sourceName: row[COLUMN.sourceName] as string | null,
    captureChannel: row[COLUMN.captureChannel] as CaptureChannel | null,
    folder: folderId !== null && folderName !== null ? { id: folderId, name: folderName } : null,
    isRead: Number(row[COLUMN.isRead]) === 1,
    openedAt: row[COLUMN.openedAt] as string | null,
    lastSavedAt: row[COLUMN.lastSavedAt] as string,
    createdAt: row[COLUMN.createdAt] as string,
    updatedAt: row[COLUMN.updatedAt] as string,
  }
}

/**
 * A wire row (WIRE_FIELDS) straight to the wire shape, `toSavedItemDto(itemFromRow(row))` without the item in
 * between: the uncached list builds 50 of these per request (docs/benchmarks.md#the-uncached-list). A speed
 * twin of the composition, held equal to it, key order included, by test/storage/protocol-ports.test.ts.
 */
export function savedItemDtoFromRow(row: RawRow): SavedItemDto {
  const folderId = row[WIRE_COLUMN.folderId] as string | null
  const folderName = row[WIRE_COLUMN.folderName] as string | null
  return {
    id: row[WIRE_COLUMN.id] as string,
    originalUrl: row[WIRE_COLUMN.originalUrl] as string,
    normalizedUrl: row[WIRE_COLUMN.normalizedUrl] as string,
    host: row[WIRE_COLUMN.host] as string,
    title: row[WIRE_COLUMN.title] as string | null,
    description: row[WIRE_COLUMN.description] as string | null,
    siteName: row[WIRE_COLUMN.siteName] as string | null,
    faviconUrl: row[WIRE_COLUMN.faviconUrl] as string | null,
    faviconLightUrl: row[WIRE_COLUMN.faviconLightUrl] as string | null,
    faviconDarkUrl: row[WIRE_COLUMN.faviconDarkUrl] as string | null,
    imageUrl: row[WIRE_COLUMN.imageUrl] as string | null,
    canonicalUrl: row[WIRE_COLUMN.canonicalUrl] as string | null,
    previewSummary: row[WIRE_COLUMN.previewSummary] as string | null,
    type: row[WIRE_COLUMN.type] as ItemType,
    tags: JSON.parse(row[WIRE_COLUMN.tags] as string) as Tag[],
    enrichmentStatus: row[WIRE_COLUMN.enrichmentStatus] as EnrichmentStatus,
    sourceName: row[WIRE_COLUMN.sourceName] as string | null,
    captureChannel: row[WIRE_COLUMN.captureChannel] as CaptureChannel | null,
    folder: folderId !== null && folderName !== null ? { id: folderId, name: folderName } : null,
    isRead: Number(row[WIRE_COLUMN.isRead]) === 1,
    lastSavedAt: row[WIRE_COLUMN.lastSavedAt] as string,
    createdAt: row[WIRE_COLUMN.createdAt] as string,
    updatedAt: row[WIRE_COLUMN.updatedAt] as string,
  }
}

/** Rows read as items (every column). */
export const ITEM_ROWS: RowShape<SavedItem> = {
  fields: ITEM_FIELDS,
  column: COLUMN,
  after: AFTER_ITEM_FIELDS,
  read: itemFromRow,
}

/** Rows read straight into the list's wire shape (WIRE_FIELDS): the uncached list's page. */
export const WIRE_ROWS: RowShape<SavedItemDto> = {
  fields: WIRE_FIELDS,
  column: WIRE_COLUMN,
  after: Object.keys(WIRE_FIELDS).length,
  read: savedItemDtoFromRow,
}

/**
 * The item a first save without a folder leaves: its row, and null for everything enrichment fills in later.
 * A speed twin of reading it back, held equal by test/storage/protocol-ports.test.ts (docs/benchmarks.md#speed-twins).
 */
export function itemOfFirstSave(row: NewSavedItemRow): SavedItem {
  return {
    id: row.id,
    userId: row.userId,
    originalUrl: row.originalUrl,
    normalizedUrl: row.normalizedUrl,
    host: row.host,
    title: null,
    description: null,
    siteName: null,
    faviconUrl: null,
    faviconLightUrl: null,
    faviconDarkUrl: null,
    imageUrl: null,
    canonicalUrl: null,
    previewSummary: null,
    type: row.type,
    tags: row.tags,
    enrichmentStatus: row.enrichmentStatus,
    sourceName: row.sourceName,
    captureChannel: row.captureChannel,
    folder: null,
    isRead: false,
    openedAt: null,
    lastSavedAt: row.lastSavedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}
