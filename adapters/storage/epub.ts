import { and, eq, sql } from 'drizzle-orm'
import type { ArchivedImage, ReadArchivedImage } from '../../core/export/epub/images.ts'
import type { Database } from './open-database.ts'
import { preparedPer } from './prepared.ts'
import { readRows } from './read-rows.ts'
import { itemContents, savedItems } from './schema.ts'

const p = sql.placeholder

/** What a book's chapter needs of an article (docs/import-export.md#epub): not its text, which can be as long as its HTML. */
export interface EpubArticle {
  title: string | null
  byline: string | null
  siteName: string | null
  lang: string | null
  wordCount: number
  html: string
}

const articleOfPerson = preparedPer((db) =>
  db
    .select({
      title: itemContents.title,
      byline: itemContents.byline,
      siteName: itemContents.siteName,
      lang: itemContents.lang,
      wordCount: itemContents.wordCount,
      html: itemContents.html,
    })
    .from(itemContents)
    .innerJoin(savedItems, eq(savedItems.id, itemContents.itemId))
    .where(and(eq(itemContents.itemId, p('id')), eq(savedItems.userId, p('userId'))))
    .prepare(),
)

/** The person's item's article, or null (no article, or no such item of theirs). One primary-key read. */
export async function epubArticle(db: Database, userId: string, itemId: string): Promise<EpubArticle | null> {
  const [row] = await articleOfPerson(db).all({ id: itemId, userId })
  return row ?? null
}

/**
 * The archived-image port of a book (core/export/epub/images.ts), bound to one person: their item's image
 * `n` from `item_images` (item_id, n, media_type, bytes), joined to the item so another person's never
 * comes back. The table arrives with image archiving (docs/import-export.md#epub-images); until a
 * database has it, every image is null (the book writes its alt text), which is asked once per book.
 */
export function archivedImageReader(db: Database, userId: string): ReadArchivedImage {
  let archive: Promise<boolean> | null = null
  return async (itemId, n) => {
    archive ??= readRows(
      db,
      "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'item_images'",
      [],
    ).then((rows) => rows.length > 0)
    if (!(await archive)) return null
    const [row] = await readRows(
      db,
      `SELECT i.media_type AS media_type, i.bytes AS bytes FROM item_images i
       JOIN saved_items s ON s.id = i.item_id
       WHERE i.item_id = ? AND i.n = ? AND s.user_id = ?`,
      [itemId, n, userId],
    )
    if (!row || typeof row.media_type !== 'string' || row.bytes === null || row.bytes === undefined) return null
    return { mediaType: row.media_type, bytes: bytesOf(row.bytes) } satisfies ArchivedImage
  }
}

/** A blob as the drivers give it (Uint8Array, Buffer, ArrayBuffer) as a Uint8Array. */
function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  return new Uint8Array(value as ArrayBufferLike)
}
