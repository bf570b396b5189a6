import { lt, sql } from 'drizzle-orm'
import type { Clock } from '../../core/types.ts'
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

const EVERY_MS = 10 * 60 * 1000
// Rate-limit windows are at most this long in any sane configuration; older counters are dead.
const RATE_LIMIT_RETENTION_MS = 24 * 60 * 60 * 1000
/** Finished webhook deliveries are kept a week for the settings page (docs/webhooks.md#how-it-works). */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000

/**
 * Deletes rows nothing will read again: expired idempotency records, dead rate-limit counters, expired
 * connect codes and web sessions, stale OAuth codes and the refresh tokens of revoked grants, unused
 * registered clients, signing keys retired longer than their last token lives, and the copies of deleted
 * items past their undo window, the changes feed's log past its 30 days, and webhook deliveries finished
 * more than 7 days ago.
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

/** Runs maintenance now and every 10 minutes (any process may; the deletes are idempotent). Returns a stop function. */
export function startMaintenance(db: Database, clock: Clock, onError: (error: unknown) => void = () => {}): () => void {
  const run = () => runMaintenance(db, clock.now()).catch(onError)
  void run()
  const timer = setInterval(run, EVERY_MS)
  ;(timer as { unref?: () => void }).unref?.()
  return () => clearInterval(timer)
}
