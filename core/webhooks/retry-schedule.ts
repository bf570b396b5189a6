/**
 * When a failed attempt is tried again (docs/webhooks.md#delivery): after 5 s, 5 min, 30 min, 2 h, 5 h and
 * 10 h. Seven attempts in all, about 17.5 hours; after the last, the delivery is failed.
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000] as const
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1

/** Failed deliveries in a row (a delivered one resets the count) that disable a webhook. */
export const DISABLE_AFTER_FAILURES = 20

/** A receiver has 10 s to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000

/**
 * How long a claim holds a delivery: past the timeout with room to store the outcome, so a live worker
 * never loses its claim, and a crashed one's deliveries are taken up a minute later.
 */
export const DELIVERY_LEASE_MS = 60_000

export type AfterFailure = { kind: 'retry'; runAfterMs: number } | { kind: 'failed' }

/**
 * What follows a failed attempt, given the attempts made (this one included). A refusal (the address guard
 * said no) is final at once: no request left, and none would on a retry of the same answer.
 */
export function afterFailedAttempt(attempts: number, nowMs: number, refused: boolean): AfterFailure {
  if (refused || attempts >= MAX_ATTEMPTS) return { kind: 'failed' }
  const delay = RETRY_DELAYS_MS[Math.max(attempts, 1) - 1]!
  return { kind: 'retry', runAfterMs: nowMs + delay }
}
