import type { Clock } from '../../core/types.ts'
import type { Database } from './open-database.ts'
import { pruneIdempotencyKeys } from './idempotency.ts'
import { pruneRateLimits } from './rate-limits.ts'
import { pruneConnectCodes } from './connect-codes.ts'

const EVERY_MS = 10 * 60 * 1000
// Rate-limit windows are at most this long in any sane configuration; older counters are dead.
const RATE_LIMIT_RETENTION_MS = 24 * 60 * 60 * 1000

/** Periodically deletes expired idempotency records, dead rate-limit counters and expired connect codes. Returns a stop function. */
export function startMaintenance(db: Database, clock: Clock): () => void {
  const run = async () => {
    const now = clock.now().getTime()
    await pruneIdempotencyKeys(db, now).catch(() => {})
    await pruneRateLimits(db, now - RATE_LIMIT_RETENTION_MS).catch(() => {})
    await pruneConnectCodes(db, new Date(now).toISOString()).catch(() => {})
  }
  void run()
  const timer = setInterval(run, EVERY_MS)
  ;(timer as { unref?: () => void }).unref?.()
  return () => clearInterval(timer)
}
