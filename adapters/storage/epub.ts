import { and, eq, sql } from 'drizzle-orm'
import type { EpubArticle } from '../../core/export/epub/epub.ts'
import type { Database } from './open-database.ts'
import { preparedPer } from './prepared.ts'
import { itemContents, savedItems } from './schema.ts'

const p = sql.placeholder

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
