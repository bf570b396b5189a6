import { and, eq, sql } from 'drizzle-orm'
import { Buffer } from 'node:buffer'
import type { Database } from './open-database.ts'
import { preparedPer } from './prepared.ts'
import type { Op } from './program.ts'
import { readRows } from './read-rows.ts'
import { itemImages, savedItems } from './schema.ts'

// An article's archived images (docs/reading.md#archived-images): what enrichment keeps, what the image
// routes serve, what a person's storage adds up to.

const p = sql.placeholder

/** An image enrichment has archived for an item, without its bytes. */
export interface ArchivedImageRow {
  n: number
  originalUrl: string
  size: number
}

/** A newly fetched image to store with an article. */
export interface NewArchivedImage {
  n: number
  originalUrl: string
  mediaType: string
  bytes: Uint8Array
}

/** Which of an item's images an extraction keeps, and which it adds: the item's set after it is exactly these. */
export interface ArchivedImageSet {
  /** Numbers of images already stored that the new article still shows (their rows stay untouched). */
  keep: readonly ArchivedImageRow[]
  add: readonly NewArchivedImage[]
  /**
   * The item's highest number ever used when the set was computed (`highestImageNumberOf`); the new images
   * are numbered after it. Absent when nothing is added.
   */
  after?: number
}

/** No archived image: what an article without any (or enrichment without archiving) stores. */
export const NO_IMAGES: ArchivedImageSet = { keep: [], add: [] }

/** The item's archived images (numbers, sources, sizes; never the bytes), by number. */
export async function archivedImagesOf(db: Database, itemId: string): Promise<ArchivedImageRow[]> {
  const rows = await readRows(
    db,
    'SELECT n, original_url AS originalUrl, size FROM item_images WHERE item_id = ? ORDER BY n',
    [itemId],
  )
  return rows.map((row) => ({ n: Number(row.n), originalUrl: String(row.originalUrl), size: Number(row.size) }))
}

const HIGHEST = `SELECT max(
    coalesce((SELECT last_n FROM item_image_numbers WHERE item_id = ?), 0),
    coalesce((SELECT max(n) FROM item_images WHERE item_id = ?), 0)) AS n`

/**
 * The highest image number the item has ever used (0 for none): new images are numbered after it, so an
 * address cached as immutable never shows another picture (docs/reading.md#archived-images).
 */
export async function highestImageNumberOf(db: Database, itemId: string): Promise<number> {
  const [row] = await readRows(db, HIGHEST, [itemId, itemId])
  return Number(row?.n ?? 0)
}

/** A blob argument every driver binds as one (bun:sqlite and @libsql/client take a Uint8Array, libsql a Buffer). */
const blobArg = (bytes: Uint8Array): Uint8Array =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/**
 * The statements that make the item's archived images exactly `set`, inside storeArticle's transaction (so
 * an article is never stored pointing at an image that is not): every image not kept goes, the new ones are
 * added under the item's owner, and the item's highest number ever used moves past them. Throws when a kept
 * image is no longer there as it was read, or another run numbered images meanwhile: the job is tried
 * again, and reads the images afresh.
 */
export function* replaceArchivedImages(
  itemId: string,
  set: ArchivedImageSet,
  now: string,
): Generator<Op, void, unknown> {
  const keep = set.keep.map((row) => row.n)
  if (keep.length > 0) {
    const still = (yield {
      all: 'SELECT n, original_url AS originalUrl FROM item_images WHERE item_id = ? AND n IN (SELECT value FROM json_each(?))',
      args: [itemId, JSON.stringify(keep)],
    }) as Record<string, unknown>[]
    const found = new Map(still.map((row) => [Number(row.n), String(row.originalUrl)]))
    if (set.keep.some((row) => found.get(row.n) !== row.originalUrl))
      throw new Error('archived images changed during enrichment')
  }
  if (set.add.length > 0) {
    const [highest] = (yield { all: HIGHEST, args: [itemId, itemId] }) as Record<string, unknown>[]
    if (Number(highest?.n ?? 0) !== (set.after ?? 0)) throw new Error('archived images numbered during enrichment')
  }
  yield {
    run: 'DELETE FROM item_images WHERE item_id = ? AND n NOT IN (SELECT value FROM json_each(?))',
    args: [itemId, JSON.stringify(keep)],
  }
  if (set.add.length > 0) {
    const last = set.add.reduce((highest, image) => Math.max(highest, image.n), 0)
    yield {
      run: `INSERT INTO item_image_numbers (item_id, last_n) SELECT id, ? FROM saved_items WHERE id = ?
        ON CONFLICT (item_id) DO UPDATE SET last_n = max(last_n, excluded.last_n)`,
      args: [last, itemId],
    }
  }
  for (const image of set.add) {
    yield {
      run: `INSERT INTO item_images (item_id, n, user_id, original_url, media_type, size, created_at, bytes)
        SELECT id, ?, user_id, ?, ?, ?, ?, ? FROM saved_items WHERE id = ?
        ON CONFLICT (item_id, n) DO UPDATE SET original_url = excluded.original_url, media_type = excluded.media_type,
          size = excluded.size, created_at = excluded.created_at, bytes = excluded.bytes`,
      args: [image.n, image.originalUrl, image.mediaType, image.bytes.byteLength, now, blobArg(image.bytes), itemId],
    }
  }
}

const imageOfPerson = preparedPer((db) =>
  db
    .select({ itemId: savedItems.id, mediaType: itemImages.mediaType, bytes: itemImages.bytes })
    .from(savedItems)
    .leftJoin(itemImages, and(eq(itemImages.itemId, savedItems.id), eq(itemImages.n, p('n'))))
    .where(and(eq(savedItems.id, p('id')), eq(savedItems.userId, p('userId'))))
    .prepare(),
)

/**
 * The person's item's n-th archived image: `'no item'` when they have no such item (another person's is
 * none), null when the item has no such image. One read by primary keys.
 */
export async function readArchivedImage(
  db: Database,
  userId: string,
  itemId: string,
  n: number,
): Promise<{ mediaType: string; bytes: Uint8Array } | 'no item' | null> {
  const [row] = await imageOfPerson(db).all({ id: itemId, userId, n })
  if (!row) return 'no item'
  if (row.mediaType === null || row.bytes === null) return null
  const bytes = row.bytes as unknown as Uint8Array | ArrayBuffer
  return { mediaType: row.mediaType, bytes: bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes) }
}

/** The person's items' archived images, each item's by number: what an export or an offline copy reads. */
export async function archivedImagesOfItem(
  db: Database,
  userId: string,
  itemId: string,
): Promise<{ n: number; mediaType: string; size: number }[]> {
  const rows = await readRows(
    db,
    'SELECT n, media_type AS mediaType, size FROM item_images WHERE item_id = ? AND user_id = ? ORDER BY n',
    [itemId, userId],
  )
  return rows.map((row) => ({ n: Number(row.n), mediaType: String(row.mediaType), size: Number(row.size) }))
}

const storageOfPerson = preparedPer((db) =>
  db
    .select({ bytes: sql<number>`coalesce(sum(${itemImages.size}), 0)` })
    .from(itemImages)
    .where(eq(itemImages.userId, p('userId')))
    .prepare(),
)

/** Bytes of archived images the person's items hold (a sum over an index: the blobs are never read). */
export async function archivedImageBytesOf(db: Database, userId: string): Promise<number> {
  const [row] = await storageOfPerson(db).all({ userId })
  return Number(row?.bytes ?? 0)
}
