import { sql } from 'drizzle-orm'
import type { Database } from './open-database.ts'
import { rateLimits } from './schema.ts'
import { preparedPer } from './prepared.ts'

/**
 * Counts `n` requests (one by default) in a fixed window, shared by every process on the database: one upsert that either
 * increments this window's counter or starts a new window. Returns the count including this request.
 */
const hit = preparedPer((db) =>
  db
    .insert(rateLimits)
    .values({
      bucket: sql.placeholder('bucket'),
      windowStartMs: sql.placeholder('windowStartMs'),
      count: sql.placeholder('n'),
    })
    .onConflictDoUpdate({
      target: rateLimits.bucket,
      set: {
        count: sql`CASE WHEN ${rateLimits.windowStartMs} = excluded.window_start_ms THEN ${rateLimits.count} + excluded.count ELSE excluded.count END`,
        windowStartMs: sql`excluded.window_start_ms`,
      },
    })
    .returning({ count: rateLimits.count })
    .prepare(),
)

export async function hitRateLimit(db: Database, bucket: string, windowStartMs: number, n = 1): Promise<number> {
  const [row] = await hit(db).execute({ bucket, windowStartMs, n })
  return row?.count ?? n
}

/**
 * Adds `n` requests counted in memory to a window's counter that already exists, and returns the global
 * count. An UPDATE and never an insert: a bucket deleted meanwhile (account deletion) or a window another
 * process has moved past stays as it is.
 */
const add = preparedPer((db) =>
  db
    .update(rateLimits)
    .set({ count: sql`${rateLimits.count} + ${sql.placeholder('n')}` })
    .where(
      sql`${rateLimits.bucket} = ${sql.placeholder('bucket')} AND ${rateLimits.windowStartMs} = ${sql.placeholder('windowStartMs')}`,
    )
    .returning({ count: rateLimits.count })
    .prepare(),
)

export async function addToRateLimit(
  db: Database,
  bucket: string,
  windowStartMs: number,
  n: number,
): Promise<number | null> {
  const [row] = await add(db).execute({ bucket, windowStartMs, n })
  return row?.count ?? null
}

/** The count of `bucket` in the window starting at `windowStartMs`, without counting anything. */
export async function peekRateLimit(db: Database, bucket: string, windowStartMs: number): Promise<number> {
  const [row] = await db
    .select({ count: rateLimits.count })
    .from(rateLimits)
    .where(sql`${rateLimits.bucket} = ${bucket} AND ${rateLimits.windowStartMs} = ${windowStartMs}`)
  return row?.count ?? 0
}

/** Drops counters of windows that ended before `beforeMs`. */
export async function pruneRateLimits(db: Database, beforeMs: number): Promise<void> {
  await db.delete(rateLimits).where(sql`${rateLimits.windowStartMs} < ${beforeMs}`)
}
