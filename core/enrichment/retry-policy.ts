/**
 * When an enrichment job runs again (docs/enrichment.md): three attempts, the second 5 s and the third 10 s after
 * the one before failed; then the item is `failed`. A refusal that retrying cannot change (a blocked
 * address, a 404, too many redirects) fails the item at once.
 */
export const MAX_ATTEMPTS = 3
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 10_000]

/**
 * How long a claimed job is held. It must outlast the fetch (10 s) plus extraction (10 s, after up to three
 * jobs ahead of it on the extraction thread); when a process dies mid-job, another one takes the job over
 * once this has passed.
 */
export const LEASE_MS = 45_000

export type FailureDecision = { kind: 'retry'; runAfterMs: number } | { kind: 'fail' }

/** `attempts`: attempts started so far, the failed one included. */
export function decideAfterFailure(attempts: number, permanent: boolean, nowMs: number): FailureDecision {
  if (permanent || attempts >= MAX_ATTEMPTS) return { kind: 'fail' }
  const delay = RETRY_DELAYS_MS[Math.max(0, attempts - 1)] ?? RETRY_DELAYS_MS[RETRY_DELAYS_MS.length - 1]!
  return { kind: 'retry', runAfterMs: nowMs + delay }
}

/** A job claimed again after its lease ran out more often than allowed (a crash every time): give up on it. */
export const isExhausted = (attemptsAfterClaim: number): boolean => attemptsAfterClaim > MAX_ATTEMPTS

/** The person's tags first, then the classifier's new ones: enrichment adds tags, never removes them. */
export function mergeTags<T extends string>(own: readonly T[], found: readonly T[]): T[] {
  return [...new Set([...own, ...found])]
}
