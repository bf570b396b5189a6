import { and, eq, sql } from 'drizzle-orm'
import type { Article } from '../../core/reading/extract-article.ts'
import { SavedItemNotFoundError } from '../../core/errors.ts'
import type { Database } from './open-database.ts'
import { reanchorItemHighlights } from './highlights.ts'
import { NO_IMAGES, replaceArchivedImages, type ArchivedImageSet } from './item-images.ts'
import { runProgram } from './program.ts'
import { preparedPer } from './prepared.ts'
import { capturedPages, enrichmentJobs, itemContents, readingProgress, savedItems } from './schema.ts'

const p = sql.placeholder

/** What both capture-page statements take: the item by (person, URL), the page, the time. */
export interface CapturedPageValues {
  userId: string
  normalizedUrl: string
  html: string
  now: string
}
type Values<T> = { [K in keyof T]: T[K] | ReturnType<typeof sql.placeholder> }
type Builder = Pick<Database, 'insert' | 'select'>

const itemByUrl = (v: Values<CapturedPageValues>) =>
  and(eq(savedItems.userId, v.userId as string), eq(savedItems.normalizedUrl, v.normalizedUrl as string))
const placeholders: Values<CapturedPageValues> = {
  userId: p('userId'),
  normalizedUrl: p('normalizedUrl'),
  html: p('html'),
  now: p('now'),
}

/**
 * Keeps the page a capture brought (docs/reading.md#page-capture), for the item at (person, URL): run in
 * the capture's own transaction, after its upsert, so the item id is the stored one on a recapture too.
 */
export const keepCapturedPageQuery = (db: Builder, v: Values<CapturedPageValues>) =>
  db
    .insert(capturedPages)
    .select(
      db
        .select({
          itemId: savedItems.id,
          html: sql<string>`${v.html}`.as('html'),
          capturedAt: sql<string>`${v.now}`.as('captured_at'),
        })
        .from(savedItems)
        .where(itemByUrl(v)),
    )
    .onConflictDoUpdate({
      target: capturedPages.itemId,
      set: { html: sql`excluded.html`, capturedAt: sql`excluded.captured_at` },
    })
export const keepCapturedPage = preparedPer((db) => keepCapturedPageQuery(db, placeholders).prepare())

/**
 * The columns of a fresh enrichment job for each selected item, in the table's order (an INSERT … SELECT
 * takes them so): due now, not held, at `priority` (0 live work, 1 backfill).
 */
const newJobOf = (now: string | ReturnType<typeof sql.placeholder>, priority: 0 | 1) => ({
  itemId: savedItems.id,
  attempts: sql<number>`0`.as('attempts'),
  runAfterMs: sql<number>`0`.as('run_after_ms'),
  leaseUntilMs: sql<number | null>`NULL`.as('lease_until_ms'),
  lastError: sql<string | null>`NULL`.as('last_error'),
  createdAt: sql<string>`${now}`.as('created_at'),
  priority: sql<number>`${sql.raw(String(priority))}`.as('priority'),
  // Only imported items' jobs name their host (docs/import-export.md#enrichment).
  host: sql<string | null>`NULL`.as('host'),
})

/**
 * Queues the item's enrichment as live work, now: a new item's job (made by the insert trigger) and an
 * enriched item's (none) alike. A job in flight is released, so its holder's result does not drop this one.
 */
export const queueCapturedPageQuery = (db: Builder, v: Values<CapturedPageValues>) =>
  db
    .insert(enrichmentJobs)
    .select(db.select(newJobOf(v.now, 0)).from(savedItems).where(itemByUrl(v)))
    .onConflictDoUpdate({
      target: enrichmentJobs.itemId,
      set: { attempts: 0, runAfterMs: 0, leaseUntilMs: null, lastError: null, priority: 0 },
    })
export const queueCapturedPage = preparedPer((db) => queueCapturedPageQuery(db, placeholders).prepare())

const pageOf = preparedPer((db) =>
  db
    .select({ html: capturedPages.html, capturedAt: capturedPages.capturedAt })
    .from(capturedPages)
    .where(eq(capturedPages.itemId, p('itemId')))
    .prepare(),
)

/** The page a capture brought for this item, if enrichment has not used it yet. */
export async function capturedPageOf(
  db: Database,
  itemId: string,
): Promise<{ html: string; capturedAt: string } | null> {
  const [page] = await pageOf(db).all({ itemId })
  return page ?? null
}

/**
 * Stores (or, with null, removes) an item's article from one extraction, with the archived images it points
 * at (docs/reading.md#archived-images: the item's images become exactly `images`, none without an article),
 * drops the captured page it was made from (only that one: a newer capture's page stays for the next run),
 * and anchors the item's highlights again in the new text (docs/highlights.md#re-anchoring), all in ONE
 * transaction: no highlight is ever written against a text that is not the stored one, and no article
 * points at an image that is not stored. False when the item is gone.
 */
export function storeArticle(
  db: Database,
  itemId: string,
  article: Article | null,
  now: string,
  usedPage: { capturedAt: string } | null,
  images: ArchivedImageSet = NO_IMAGES,
): Promise<boolean> {
  return runProgram(db, function* () {
    const item = (yield { all: 'SELECT id FROM saved_items WHERE id = ?', args: [itemId] }) as unknown[]
    if (item.length === 0) return false
    if (article) {
      yield {
        run: `INSERT INTO item_contents (item_id, title, byline, site_name, lang, word_count, html, text, extracted_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (item_id) DO UPDATE SET title = excluded.title, byline = excluded.byline,
            site_name = excluded.site_name, lang = excluded.lang, word_count = excluded.word_count,
            html = excluded.html, text = excluded.text, extracted_at = excluded.extracted_at`,
        args: [
          itemId,
          article.title,
          article.byline,
          article.siteName,
          article.lang,
          article.wordCount,
          article.html,
          article.text,
          now,
        ],
      }
    } else yield { run: 'DELETE FROM item_contents WHERE item_id = ?', args: [itemId] }
    yield* replaceArchivedImages(itemId, article ? images : NO_IMAGES, now)
    yield {
      run: 'DELETE FROM captured_pages WHERE item_id = ? AND captured_at = ?',
      args: [itemId, usedPage?.capturedAt ?? ''],
    }
    yield* reanchorItemHighlights(itemId, article?.text ?? null, now)
    return true
  })
}

export interface StoredContent {
  title: string | null
  byline: string | null
  siteName: string | null
  lang: string | null
  wordCount: number
  html: string
  text: string
  extractedAt: string
}

const contentOfPerson = preparedPer((db) =>
  db
    .select({
      itemId: savedItems.id,
      itemTitle: savedItems.title,
      itemSiteName: savedItems.siteName,
      contentItemId: itemContents.itemId,
      title: itemContents.title,
      byline: itemContents.byline,
      siteName: itemContents.siteName,
      lang: itemContents.lang,
      wordCount: itemContents.wordCount,
      html: itemContents.html,
      text: itemContents.text,
      extractedAt: itemContents.extractedAt,
      progress: readingProgress.progress,
    })
    .from(savedItems)
    .leftJoin(itemContents, eq(itemContents.itemId, savedItems.id))
    .leftJoin(readingProgress, eq(readingProgress.itemId, savedItems.id))
    .where(and(eq(savedItems.id, p('id')), eq(savedItems.userId, p('userId'))))
    .prepare(),
)

/**
 * The person's item's article and progress. Throws SavedItemNotFoundError when the person has no such
 * item; `content` is null when the item has no article (yet).
 */
export async function readStoredContent(
  db: Database,
  userId: string,
  id: string,
): Promise<{ content: StoredContent | null; progress: number }> {
  const [row] = await contentOfPerson(db).all({ id, userId })
  if (!row) throw new SavedItemNotFoundError(id)
  const progress = row.progress ?? 0
  if (row.contentItemId === null) return { content: null, progress }
  return {
    content: {
      // The article's own title and site name, else what the item knows.
      title: row.title ?? row.itemTitle,
      byline: row.byline,
      siteName: row.siteName ?? row.itemSiteName,
      lang: row.lang,
      wordCount: row.wordCount!,
      html: row.html!,
      text: row.text!,
      extractedAt: row.extractedAt!,
    },
    progress,
  }
}

/**
 * The word count of each of these items (of any person: the caller filtered them) that has an article:
 * which items open in the reader view, and their reading times. One query for a page, not one per item.
 */
export async function articleWordCounts(db: Database, itemIds: readonly string[]): Promise<Map<string, number>> {
  if (itemIds.length === 0) return new Map()
  const rows = await db
    .select({ itemId: itemContents.itemId, words: itemContents.wordCount })
    .from(itemContents)
    .where(
      sql`${itemContents.itemId} IN (${sql.join(
        itemIds.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    )
  return new Map(rows.map((row) => [row.itemId, row.words]))
}

const itemOfPersonExists = preparedPer((db) =>
  db
    .select({ id: savedItems.id })
    .from(savedItems)
    .where(and(eq(savedItems.id, p('id')), eq(savedItems.userId, p('userId'))))
    .prepare(),
)

/**
 * Records the person's progress on their item and returns when it last changed: the progress it already
 * has is no change, so its `updatedAt` stays (decided in the upsert, docs/api.md#no-op-writes). Throws
 * SavedItemNotFoundError when they have no such item.
 */
export async function storeProgress(
  db: Database,
  userId: string,
  id: string,
  progress: number,
  now: string,
): Promise<string> {
  if ((await itemOfPersonExists(db).all({ id, userId })).length === 0) throw new SavedItemNotFoundError(id)
  try {
    const [stored] = await db
      .insert(readingProgress)
      .values({ itemId: id, progress, updatedAt: now })
      .onConflictDoUpdate({
        target: readingProgress.itemId,
        set: {
          progress,
          updatedAt: sql`CASE WHEN ${readingProgress.progress} = excluded.progress THEN ${readingProgress.updatedAt} ELSE excluded.updated_at END`,
        },
      })
      .returning({ updatedAt: readingProgress.updatedAt })
    if (!stored) throw new Error('progress upsert returned no row')
    return stored.updatedAt
  } catch (error) {
    // Deleted between the check and the write.
    if (/FOREIGN KEY constraint failed/.test(String((error as { cause?: unknown })?.cause ?? error)))
      throw new SavedItemNotFoundError(id)
    throw error
  }
}

/**
 * Queues a low-priority re-enrichment of every enriched item (of one person, or of everyone): their
 * articles are extracted again after all live work (docs/reading.md#backfill). Items already queued are
 * left as they are. Returns how many were queued.
 */
export async function queueArticleRefresh(db: Database, userId: string | null, now: string): Promise<number> {
  const queued = await db
    .insert(enrichmentJobs)
    .select(
      db
        .select(newJobOf(now, 1))
        .from(savedItems)
        .where(
          userId === null
            ? eq(savedItems.enrichmentStatus, 'enriched')
            : and(eq(savedItems.enrichmentStatus, 'enriched'), eq(savedItems.userId, userId)),
        ),
    )
    .onConflictDoNothing()
    .returning({ itemId: enrichmentJobs.itemId })
  return queued.length
}
