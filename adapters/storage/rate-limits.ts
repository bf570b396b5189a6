import { sql } from 'drizzle-orm'
import type { Database } from './open-database.ts'
import { rateLimits } from './schema.ts'
import { preparedPer } from './prepared.ts'

/**
 * Counts one request in a fixed window, shared by every process on the database: one upsert that either
 * increments this window's counter or starts a new window. Returns the count including this request.
 */
const hit = preparedPer((db) =>
  db
    .insert(rateLimits)
    .values({ bucket: sql.placeholder('bucket'), windowStartMs: sql.placeholder('windowStartMs'), count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.bucket,
      set: {
        count: sql`CASE WHEN ${rateLimits.windowStartMs} = excluded.window_start_ms THEN ${rateLimits.count} + 1 ELSE 1 END`,
        windowStartMs: sql`excluded.window_start_ms`,
      },
    })
    .returning({ count: rateLimits.count })
    .prepare(),
)

export async function hitRateLimit(db: Database, bucket: string, windowStartMs: number): Promise<number> {
  const [row] = await hit(db).execute({ bucket, windowStartMs })
  return row?.count ?? 1
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
