import { decideRateLimit, rateLimitWindowStart, type RateLimitDecision } from '../../core/limits/rate-limit.ts'
import type { Clock } from '../../core/types.ts'
import type { Log } from './deps.ts'
import { logUnexpected } from './unexpected.ts'
import type { Database } from '../storage/open-database.ts'
import type { MaybePromise } from '../../core/at-once.ts'
import { addToRateLimit, hitRateLimit, peekRateLimit } from '../storage/rate-limits.ts'

/** How stale a process's view of a shared counter may get, and how often it writes its own count back. */
export const SYNC_INTERVAL_MS = 250

interface Bucket {
  windowStartMs: number
  /** The global count as last read from the database, this process's requests up to then included. */
  synced: number
  syncedAtMs: number
  /** Requests counted here since, not yet in the database. */
  pending: number
}

/** How one hit counts (docs/api.md#rate-limits). */
export interface HitOptions {
  limit: number
  windowSeconds: number
  /**
   * Straight in the database, one upsert per hit, so every process sees every request at once (the per-IP
   * and sign-in buckets). Otherwise counted in memory and synced (the per-credential buckets, on the path
   * of every API call).
   */
  exact?: boolean
  /** The time the hit counts at (a check and its later hit count in one window); now by default. */
  atMs?: number
}

/**
 * The fixed-window rate-limit buckets, in one table shared by every process on the database
 * (docs/api.md#rate-limits): one `hit` for every kind of bucket, and `peek`.
 *
 * A batched bucket's first request in a window, and any request after SYNC_INTERVAL_MS without a sync, adds to the
 * database counter and reads the global count back in one upsert; the requests in between are counted here
 * and written back within SYNC_INTERVAL_MS. One process is exact: its own requests are all in `synced +
 * pending`. N processes may admit what the others counted since their last sync, at most (N − 1) × the
 * requests one process admits in SYNC_INTERVAL_MS, and never more than N × the limit in one window.
 */
export class SharedRateLimiter {
  readonly #buckets = new Map<string, Bucket>()
  #flushTimer: ReturnType<typeof setTimeout> | null = null

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly log: Log,
  ) {}

  /**
   * Counts one request of `bucketName` in its window and decides it: at once for a batched bucket between
   * its syncs (core/at-once.ts), after the upsert otherwise.
   */
  hit(bucketName: string, options: HitOptions): MaybePromise<RateLimitDecision> {
    const { limit, windowSeconds } = options
    const nowMs = options.atMs ?? this.clock.now().getTime()
    const windowStartMs = rateLimitWindowStart(nowMs, windowSeconds)
    if (options.exact)
      return hitRateLimit(this.db, bucketName, windowStartMs).then((count) =>
        decideRateLimit({ count, limit, windowStartMs, windowSeconds, nowMs }),
      )
    const decide = (bucket: Bucket): RateLimitDecision => {
      // Also after a sync with nothing pending: the flush forgets buckets idle for a sync interval, so a
      // process that sees many credentials once each does not keep them all.
      this.#scheduleFlush()
      return decideRateLimit({ count: bucket.synced + bucket.pending, limit, windowStartMs, windowSeconds, nowMs })
    }
    const known = this.#buckets.get(bucketName)
    if (known && known.windowStartMs === windowStartMs && nowMs - known.syncedAtMs < SYNC_INTERVAL_MS) {
      known.pending += 1
      return decide(known)
    }
    const sameWindow = known?.windowStartMs === windowStartMs
    const carried = sameWindow ? known!.pending : 0
    // Requests arriving while the upsert is in flight count on top of the last known global count.
    const bucket = {
      windowStartMs,
      synced: sameWindow ? known!.synced + carried + 1 : 1,
      syncedAtMs: nowMs,
      pending: 0,
    }
    this.#buckets.set(bucketName, bucket)
    return hitRateLimit(this.db, bucketName, windowStartMs, carried + 1).then((synced) => {
      bucket.synced = synced
      return decide(bucket)
    })
  }

  /** The count of `bucketName` in the window of `atMs`, counting nothing. */
  peek(bucketName: string, windowSeconds: number, atMs: number): Promise<number> {
    return peekRateLimit(this.db, bucketName, rateLimitWindowStart(atMs, windowSeconds))
  }

  /** Writes every pending count back and reads the global counts; drops buckets of ended windows. */
  async flush(): Promise<void> {
    this.#flushTimer = null
    const nowMs = this.clock.now().getTime()
    for (const [name, bucket] of this.#buckets) {
      if (bucket.pending === 0) {
        if (nowMs - bucket.syncedAtMs >= SYNC_INTERVAL_MS) this.#buckets.delete(name)
        continue
      }
      const pending = bucket.pending
      bucket.pending = 0
      const global = await addToRateLimit(this.db, name, bucket.windowStartMs, pending)
      if (global === null) this.#buckets.delete(name)
      else {
        bucket.synced = global
        bucket.syncedAtMs = nowMs
      }
    }
  }

  /** Buckets held in memory (for tests). */
  get size(): number {
    return this.#buckets.size
  }

  #scheduleFlush(): void {
    if (this.#flushTimer !== null) return
    this.#flushTimer = setTimeout(
      () => void this.flush().catch((error) => logUnexpected(this.log, 'rate-limit flush failed', error)),
      SYNC_INTERVAL_MS,
    )
    // A pending flush must not keep a process (or a test run) alive.
    ;(this.#flushTimer as { unref?: () => void }).unref?.()
  }
}
