import { and, eq, sql } from 'drizzle-orm'
import type { PageMetadata } from '../../core/enrichment/page-metadata.ts'
import { mergeTags } from '../../core/enrichment/retry-policy.ts'
import type { Tag } from '../../core/types.ts'
import { atomically, type Database } from './open-database.ts'
import { preparedPer } from './prepared.ts'
import { capturedPages, enrichmentJobs, savedItems } from './schema.ts'

export interface ClaimedJob {
  itemId: string
  /** Attempts started, this one included. */
  attempts: number
  originalUrl: string
  /**
   * The lease this claim set. Settling the job (done, retry, failed) applies only while the job still has
   * it: a capture that queues the job again meanwhile (a page sent with it) releases the lease, and then
   * this run's outcome must not drop or reschedule the new work.
   */
  leaseUntilMs: number
}

const p = sql.placeholder
const free = sql`(${enrichmentJobs.leaseUntilMs} IS NULL OR ${enrichmentJobs.leaseUntilMs} <= ${p('nowMs')})`

/** Imported items' fetches held at once per host, at most (docs/import-export.md#enrichment). */
export const IMPORT_FETCHES_PER_HOST = 2
// An imported item's job (priority 2) waits while its host already has that many held: a 10,000-item
// import of one site never hammers it, and live captures (0) and backfills (1) are never held back.
const hostHasRoom = sql`(enrichment_jobs.priority < 2 OR enrichment_jobs.host IS NULL OR (SELECT count(*) FROM enrichment_jobs h WHERE h.host = enrichment_jobs.host AND h.lease_until_ms > ${p('nowMs')}) < ${sql.raw(String(IMPORT_FETCHES_PER_HOST))})`

// Prepared once per database: workers poll, and building a drizzle query costs as much as running it.
const claimStatement = preparedPer((db) =>
  db
    .update(enrichmentJobs)
    .set({ leaseUntilMs: sql`${p('leaseUntilMs')}`, attempts: sql`${enrichmentJobs.attempts} + 1` })
    .where(
      and(
        eq(
          enrichmentJobs.itemId,
          sql`(SELECT ${enrichmentJobs.itemId} FROM ${enrichmentJobs} WHERE ${enrichmentJobs.runAfterMs} <= ${p('nowMs')} AND ${free} AND ${hostHasRoom} ORDER BY ${enrichmentJobs.priority}, ${enrichmentJobs.runAfterMs}, ${enrichmentJobs.itemId} LIMIT 1)`,
        ),
        free,
      ),
    )
    .returning({ itemId: enrichmentJobs.itemId, attempts: enrichmentJobs.attempts })
    .prepare(),
)
const itemUrl = preparedPer((db) =>
  db
    .select({ originalUrl: savedItems.originalUrl })
    .from(savedItems)
    .where(eq(savedItems.id, p('itemId')))
    .prepare(),
)
const itemTags = preparedPer((db) =>
  db
    .select({ tags: savedItems.tags })
    .from(savedItems)
    .where(eq(savedItems.id, p('itemId')))
    .prepare(),
)
const held = and(eq(enrichmentJobs.itemId, p('itemId')), eq(enrichmentJobs.leaseUntilMs, p('leaseUntilMs')))
const dropJob = preparedPer((db) => db.delete(enrichmentJobs).where(held).prepare())
const storePage = preparedPer((db) =>
  db
    .update(savedItems)
    .set({
      title: sql`${p('title')}`,
      description: sql`${p('description')}`,
      siteName: sql`${p('siteName')}`,
      faviconUrl: sql`${p('faviconUrl')}`,
      faviconLightUrl: sql`${p('faviconLightUrl')}`,
      faviconDarkUrl: sql`${p('faviconDarkUrl')}`,
      imageUrl: sql`${p('imageUrl')}`,
      canonicalUrl: sql`${p('canonicalUrl')}`,
      previewSummary: sql`${p('previewSummary')}`,
      type: sql`${p('type')}`,
      tags: sql`${p('tags')}`,
      enrichmentStatus: 'enriched',
      updatedAt: sql`${p('now')}`,
    })
    .where(and(eq(savedItems.id, p('itemId')), sql`${savedItems.tags} = ${p('oldTags')}`))
    .returning({ id: savedItems.id })
    .prepare(),
)

/**
 * Takes the oldest due job nobody holds (or whose holder's lease ran out) and holds it until
 * `leaseUntilMs`. One UPDATE … RETURNING: SQLite runs one writer at a time, so two processes can never
 * claim the same job.
 */
export async function claimEnrichmentJob(
  db: Database,
  nowMs: number,
  leaseUntilMs: number,
): Promise<ClaimedJob | null> {
  const [job] = await claimStatement(db).all({ nowMs, leaseUntilMs })
  if (!job) return null
  const [item] = await itemUrl(db).all({ itemId: job.itemId })
  // The item was deleted in between (its job goes with it by cascade): nothing to do.
  if (!item) return null
  return { ...job, originalUrl: item.originalUrl, leaseUntilMs }
}

/**
 * Stores what the page said and marks the item `enriched`, then drops the job. Tags are merged with the
 * person's current ones; if they changed meanwhile (a recapture added one), the write is retried on the
 * fresh value so nothing the person added is lost. False when the item is gone.
 */
export async function completeEnrichment(
  db: Database,
  job: Pick<ClaimedJob, 'itemId' | 'leaseUntilMs'>,
  page: PageMetadata,
  now: string,
): Promise<boolean> {
  const { itemId, leaseUntilMs } = job
  for (let tries = 0; tries < 5; tries++) {
    const [current] = await itemTags(db).all({ itemId })
    if (!current) {
      await dropJob(db).run({ itemId, leaseUntilMs })
      return false
    }
    const [changed] = await storePage(db).all({
      itemId,
      now,
      title: page.title,
      description: page.description,
      siteName: page.siteName,
      faviconUrl: page.faviconUrl,
      faviconLightUrl: page.faviconLightUrl,
      faviconDarkUrl: page.faviconDarkUrl,
      imageUrl: page.imageUrl,
      canonicalUrl: page.canonicalUrl,
      previewSummary: page.previewSummary,
      type: page.type,
      tags: JSON.stringify(mergeTags(current.tags as Tag[], page.tags)),
      oldTags: JSON.stringify(current.tags),
    })
    if (changed) {
      await dropJob(db).run({ itemId, leaseUntilMs })
      return true
    }
  }
  throw new Error("the item's tags kept changing while enrichment stored its result")
}

/** Puts the job back for a later attempt (if this run still holds it). */
export async function scheduleRetry(
  db: Database,
  job: Pick<ClaimedJob, 'itemId' | 'leaseUntilMs'>,
  runAfterMs: number,
  error: string,
): Promise<void> {
  await db
    .update(enrichmentJobs)
    .set({ runAfterMs, leaseUntilMs: null, lastError: error })
    .where(and(eq(enrichmentJobs.itemId, job.itemId), eq(enrichmentJobs.leaseUntilMs, job.leaseUntilMs)))
}

/**
 * Gives up (if this run still holds the job): the item becomes `failed` (a recapture queues it again) and
 * the job is dropped. An item already enriched (a backfill that failed) keeps its status.
 */
export async function failEnrichment(
  db: Database,
  job: Pick<ClaimedJob, 'itemId' | 'leaseUntilMs'>,
  now: string,
): Promise<void> {
  const { itemId, leaseUntilMs } = job
  const holds = and(eq(enrichmentJobs.itemId, itemId), eq(enrichmentJobs.leaseUntilMs, leaseUntilMs))
  await atomically(db, [
    db
      .update(savedItems)
      .set({ enrichmentStatus: 'failed', updatedAt: now })
      .where(
        and(
          eq(savedItems.id, itemId),
          eq(savedItems.enrichmentStatus, 'pending'),
          sql`EXISTS (SELECT 1 FROM ${enrichmentJobs} WHERE ${holds})`,
        ),
      ),
    // A page sent with the capture goes too: nothing will read it now.
    db
      .delete(capturedPages)
      .where(and(eq(capturedPages.itemId, itemId), sql`EXISTS (SELECT 1 FROM ${enrichmentJobs} WHERE ${holds})`)),
    db.delete(enrichmentJobs).where(holds),
  ])
}
