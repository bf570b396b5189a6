import { and, eq, sql } from 'drizzle-orm'
import type { Database } from './open-database.ts'
import { preparedPer } from './prepared.ts'
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
