import type { CaptureChannel, EnrichmentStatus, ItemType, SavedItem, Tag } from '../../core/types.ts'
import type { NewSavedItemRow } from '../../core/items/capture.ts'
import type { SavedItemDto } from '../../core/items/saved-item-dto.ts'
import { sql, type SQL } from 'drizzle-orm'
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
  folderName: sql<string | null>`${folders.name}`.as('folder_name'),
}

/** Each field's position in a row of `fields`, read off the fields so the order is written once. */
const columnsOf = <F extends object>(fields: F) =>
  Object.fromEntries(Object.keys(fields).map((name, i) => [name, i])) as Record<keyof F, number>

/** Each field's position in a row of ITEM_FIELDS. */
export const COLUMN = columnsOf(ITEM_FIELDS)

/** Index of the first column after ITEM_FIELDS: search appends its matched text there (adapters/storage/search.ts). */
export const AFTER_ITEM_FIELDS = Object.keys(ITEM_FIELDS).length

/**
 * The columns of the list's wire shape: ITEM_FIELDS without the two a SavedItemDto does not carry (the
 * owner, whom the query names, and openedAt). Every column read is SQLite work and a JS value per row; on a
 * 50-item page these two were a twelfth of the read (docs/benchmarks.md#the-uncached-list).
 */
const { userId: _owner, openedAt: _openedAt, ...WIRE_FIELDS } = ITEM_FIELDS
export { WIRE_FIELDS }

/**
 * The list's wire shape written by SQLite: one `json_object` per row, with the keys, their order and the
 * values `savedItemDtoFromRow` gives (WIRE_FIELDS in order; the folder's two columns as one `folder`
 * object; the tags as the JSON array they are stored as; `isRead` as a boolean). The REST list's page is
 * these objects joined in SQL (`listSavedItemsJson`): a page is then one string from the database, not
 * 50 rows of 23 values made into objects and serialized again (docs/benchmarks.md#the-uncached-list). A
 * speed twin of JSON.stringify over the page's items' wire shapes (`listSavedItems`, `toSavedItemDto`), held
 * equal to it byte for byte by test/storage/protocol-ports.test.ts.
 */
export const WIRE_JSON: SQL = sql`json_object(${sql.join(
  Object.entries(WIRE_FIELDS).flatMap(([key, column]): SQL[] => {
    if (key === 'folderName') return []
    if (key === 'folderId')
      return [
        sql`'folder', CASE WHEN ${savedItems.folderId} IS NOT NULL AND ${folders.name} IS NOT NULL THEN json_object('id', ${savedItems.folderId}, 'name', ${folders.name}) END`,
      ]
    if (key === 'tags') return [sql`'tags', json(${column})`]
    if (key === 'isRead') return [sql`'isRead', CASE WHEN ${column} = 1 THEN json('true') ELSE json('false') END`]
    return [sql`${sql.raw(`'${key}'`)}, ${column}`]
  }),
  sql`, `,
)})`

/**
 * An item's line in list_saved_items' text (core/mcp/item-line.ts `describeItem`, in the same words), written
 * by SQLite as a JSON string (`json_quote`), so a page's lines come back in the same statement as its JSON
 * and go into the answer as they are. Reading the page's JSON back into objects for them, building each
 * line and serializing the text cost more: an uncached MCP list went from 180 to 155 µs in one process
 * (docs/benchmarks.md#mcps-list). A JSON string has no raw line break, so the lines of a page are joined by
 * one. Held equal to `JSON.stringify(describeItem(item))` by test/storage/protocol-ports.test.ts.
 */
export const ITEM_LINE: SQL = sql`json_quote(${sql.join(
  [
    // `<title> ` when the title is neither null nor empty
    sql`CASE WHEN ${savedItems.title} <> '' THEN ${savedItems.title} || ' ' ELSE '' END`,
    sql`'<'`,
    savedItems.originalUrl,
    sql`'> ('`,
    sql`CASE WHEN ${savedItems.isRead} = 1 THEN 'read' ELSE 'unread' END`,
    // the folder as the list's `folder` object has it (WIRE_JSON)
    sql`CASE WHEN ${savedItems.folderId} IS NOT NULL AND ${folders.name} IS NOT NULL THEN ', folder "' || ${folders.name} || '"' ELSE '' END`,
    sql`CASE WHEN ${savedItems.enrichmentStatus} = 'pending' THEN ', details pending' ELSE '' END`,
    sql`'; id '`,
    savedItems.id,
    sql`')'`,
  ],
  sql` || `,
)})`

/**
 * A list row as every driver reads a statement's rows as objects (bun:sqlite's and libsql's `all`,
 * @libsql/client's rows): each selected column under its SQL name. The list reads its pages this way: on
 * bun:sqlite an object row (its shape made once per statement) comes faster than a positional one, 4 µs of
 * a 50-item page (docs/benchmarks.md#the-uncached-list).
 */
export type NamedRow = Record<string, unknown>

/** The SQL name of each sort key's column in a list row (core/items/list-order.ts SORT_KEYS): the next cursor reads them. */
export const SORT_KEY_COLUMN = {
  lastSavedAt: savedItems.lastSavedAt.name,
  id: savedItems.id.name,
  isRead: savedItems.isRead.name,
  // The title sort's two computed keys, selected under these names (adapters/storage/saved-items.ts).
  titleMissing: 'title_missing',
  titleKey: 'title_key',
} as const

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

/** A list row (NamedRow) of ITEM_FIELDS as the item: its wire fields, and the two internal ones. */
export function itemFromNamedRow(row: NamedRow): SavedItem {
  return { ...savedItemDtoFromRow(row), userId: row.user_id as string, openedAt: row.opened_at as string | null }
}

/** A list row's (NamedRow's) wire fields: the part of `itemFromNamedRow` a SavedItemDto carries. */
function savedItemDtoFromRow(row: NamedRow): SavedItemDto {
  const folderId = row.folder_id as string | null
  const folderName = row.folder_name as string | null
  return {
    id: row.id as string,
    originalUrl: row.original_url as string,
    normalizedUrl: row.normalized_url as string,
    host: row.host as string,
    title: row.title as string | null,
    description: row.description as string | null,
    siteName: row.site_name as string | null,
    faviconUrl: row.favicon_url as string | null,
    faviconLightUrl: row.favicon_light_url as string | null,
    faviconDarkUrl: row.favicon_dark_url as string | null,
    imageUrl: row.image_url as string | null,
    canonicalUrl: row.canonical_url as string | null,
    previewSummary: row.preview_summary as string | null,
    type: row.type as ItemType,
    tags: JSON.parse(row.tags as string) as Tag[],
    enrichmentStatus: row.enrichment_status as EnrichmentStatus,
    sourceName: row.source_name as string | null,
    captureChannel: row.capture_channel as CaptureChannel | null,
    folder: folderId !== null && folderName !== null ? { id: folderId, name: folderName } : null,
    isRead: Number(row.is_read) === 1,
    lastSavedAt: row.last_saved_at as string,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  }
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
