import { and, desc, eq, sql } from 'drizzle-orm'
import type { Database } from './open-database.ts'
import { preparedPer } from './prepared.ts'
import { highlightVersions, itemContents, readingProgress, savedItems } from './schema.ts'

/** One item the web app keeps for reading offline, with what its reader view is made of (docs/web.md#offline). */
export interface OfflineItemRow {
  id: string
  /** Moves with the item's title, read state and every other field the page shows. */
  updatedAt: string
  extractedAt: string
  progress: number | null
  highlightsVersion: string | null
}

const newestUnreadWithArticle = preparedPer((db) =>
  db
    .select({
      id: savedItems.id,
      updatedAt: savedItems.updatedAt,
      extractedAt: itemContents.extractedAt,
      progress: readingProgress.progress,
      highlightsVersion: highlightVersions.version,
    })
    .from(savedItems)
    .innerJoin(itemContents, eq(itemContents.itemId, savedItems.id))
    .leftJoin(readingProgress, eq(readingProgress.itemId, savedItems.id))
    .leftJoin(highlightVersions, eq(highlightVersions.savedItemId, savedItems.id))
    .where(and(eq(savedItems.userId, sql.placeholder('userId')), eq(savedItems.isRead, false)))
    // The queue's own "Newest" order (docs/web.md#queue), on its index.
    .orderBy(desc(savedItems.lastSavedAt), desc(savedItems.id))
    .limit(sql.placeholder('limit'))
    .prepare(),
)

/**
 * The person's newest unread items that have an article, at most `limit`, with the parts of each reader view
 * that change: one indexed query (the queue's order) and three primary-key joins.
 */
export function offlineItems(db: Database, userId: string, limit: number): Promise<OfflineItemRow[]> {
  return newestUnreadWithArticle(db).all({ userId, limit })
}
