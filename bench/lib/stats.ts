/** Percentiles and medians of timings, as every bench reports them. */

/** The p-th percentile (nearest rank) of ascending `sorted` values; NaN for none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank]!
}

/** The values sorted ascending, for percentile(). */
export const ascending = (samples: readonly number[]): Float64Array => Float64Array.from(samples).sort()

/** p50 and p99 of samples in any order. */
export function p50p99(samples: readonly number[]): { p50: number; p99: number } {
  const sorted = ascending(samples)
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
}

/** The middle value (the upper one of an even count): for a few alternated rounds. */
export const median = (values: readonly number[]): number =>
  [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!
