/**
 * Start of the fixed window containing `nowMs`, in ms. Windows are aligned to the Unix epoch so
 * every instance computes the same bucket without coordination.
 * @see docs/api.md#rate-limits
 */
export function rateLimitWindowStart(nowMs: number, windowSeconds: number): number {
  if (!(windowSeconds > 0))
    throw new RangeError(`Cannot compute rate-limit window: ${windowSeconds} seconds is not positive`)
  const windowMs = windowSeconds * 1000
  return Math.floor(nowMs / windowMs) * windowMs
}

/** What the `RateLimit-*` headers (and `Retry-After` on a 429) report. */
export interface RateLimitDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the window ends; also the `Retry-After` value when not allowed. */
  resetSeconds: number
}

/**
 * Decides one request, given how many requests the window has counted *including this one*.
 * `resetSeconds` is rounded up and at least 1, so a client that waits that long always lands in
 * the next window.
 * @see docs/api.md#rate-limits
 */
export function decideRateLimit(input: {
  count: number
  limit: number
  windowStartMs: number
  windowSeconds: number
  nowMs: number
}): RateLimitDecision {
  const { count, limit, windowStartMs, windowSeconds, nowMs } = input
  const msLeft = windowStartMs + windowSeconds * 1000 - nowMs
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  }
}
