import { hashSecret } from './secret-hash.ts'
import { rateLimitWindowStart } from '../../core/limits/rate-limit.ts'
import type { Clock } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import { hitRateLimit, peekRateLimit } from '../storage/rate-limits.ts'
import { canonicalEmail } from '../../core/auth/email.ts'

/** Failed sign-ins one account may take per window before sign-in is refused for it until the window ends. */
export const ACCOUNT_FAILURE_LIMIT = 10
export const ACCOUNT_WINDOW_SECONDS = 15 * 60

export interface AccountThrottle {
  locked: boolean
  /** What the page says while locked. */
  message: string
  /** Counts one failed attempt. */
  fail(): Promise<void>
}

/**
 * The per-account sign-in throttle (docs/security.md#sign-up-and-sign-in): a fixed window in the shared
 * `rate_limits` table, keyed by a hash of the email (the table never holds addresses). A correct password
 * is refused too while the window is locked, or the lock would only slow guessing down.
 */
export async function accountThrottle(deps: { db: Database; clock: Clock }, email: string): Promise<AccountThrottle> {
  const bucket = `signin-account:${hashSecret(canonicalEmail(email))}`
  const nowMs = deps.clock.now().getTime()
  const windowStartMs = rateLimitWindowStart(nowMs, ACCOUNT_WINDOW_SECONDS)
  const failures = await peekRateLimit(deps.db, bucket, windowStartMs)
  const minutes = Math.max(1, Math.ceil((windowStartMs + ACCOUNT_WINDOW_SECONDS * 1000 - nowMs) / 60_000))
  return {
    locked: failures >= ACCOUNT_FAILURE_LIMIT,
    message: `Too many failed sign-ins for this account. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    fail: async () => {
      await hitRateLimit(deps.db, bucket, windowStartMs)
    },
  }
}
