import { lt, sql } from 'drizzle-orm'
import type { Database } from './open-database.ts'
import { pruneIdempotencyKeys } from './idempotency.ts'
import { pruneRateLimits } from './rate-limits.ts'
import { pruneConnectCodes } from './connect-codes.ts'
import { pruneDeletedItems } from './deleted-items.ts'
import { pruneChanges } from './changes.ts'
import { CHANGES_RETENTION_MS } from '../../core/changes/cursor.ts'
import { pruneOAuth } from './oauth.ts'
import { pruneDeliveries } from './webhooks.ts'
import { webSessions } from './schema.ts'
import { pruneRetiredSigningKeys } from './signing-keys.ts'
import { SESSION_IDLE_DAYS } from '../../core/auth/lifetimes.ts'

// Rate-limit windows are at most this long in any sane configuration; older counters are dead.
const RATE_LIMIT_RETENTION_MS = 24 * 60 * 60 * 1000
/** Finished webhook deliveries are kept a week for the settings page (docs/webhooks.md#how-it-works). */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000

/**
 * Deletes rows nothing will read again: expired idempotency records, dead rate-limit counters, expired
 * connect codes and web sessions, stale OAuth codes and the refresh tokens of revoked grants, unused
 * registered clients, signing keys retired longer than their last token lives, and the copies of deleted
 * items past their undo window, the changes feed's log past its 30 days, and webhook deliveries finished
 * more than 7 days ago. Each process runs it every 10 minutes (`startMaintenance`,
 * adapters/jobs/maintenance.ts).
 */
export async function runMaintenance(db: Database, now: Date): Promise<void> {
  const nowMs = now.getTime()
  await pruneIdempotencyKeys(db, nowMs)
  await pruneRateLimits(db, nowMs - RATE_LIMIT_RETENTION_MS)
  await pruneConnectCodes(db, now.toISOString())
  await db.delete(webSessions).where(lt(webSessions.expiresAt, now.toISOString()))
  const idleSince = new Date(nowMs - SESSION_IDLE_DAYS * 86_400_000).toISOString()
  await db.delete(webSessions).where(lt(sql`coalesce(${webSessions.lastSeenAt}, ${webSessions.createdAt})`, idleSince))
  await pruneOAuth(db, now)
  await pruneRetiredSigningKeys(db, now)
  await pruneDeletedItems(db, nowMs)
  await pruneChanges(db, nowMs - CHANGES_RETENTION_MS)
  await pruneDeliveries(db, nowMs - DELIVERY_RETENTION_MS)
}
