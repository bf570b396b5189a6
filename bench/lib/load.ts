import { percentile } from './stats.ts'

/**
 * A closed-loop HTTP load generator: `concurrency` workers each keep one request in flight (Bun's fetch
 * reuses keep-alive connections), first for `warmupMs` (discarded), then for `durationMs` (measured).
 */

export interface LoadRequest {
  url: string
  init: RequestInit
}

export interface LoadOptions {
  concurrency: number
  warmupMs: number
  durationMs: number
  /** Builds the n-th request (n counts from 0 across warm-up and measurement). */
  request(n: number): LoadRequest
  /** Statuses that count as success, e.g. [201] for a capture of a new URL. */
  expect: readonly number[]
}

export interface LoadResult {
  /** Requests completed inside the measured window. */
  requests: number
  seconds: number
  rps: number
  p50Ms: number
  p99Ms: number
  /** Measured requests whose status was not expected, or that failed on the network. */
  errors: number
  /** Errors of the warm-up phase (not in `errors`, but reported). */
  warmupErrors: number
  statuses: Record<string, number>
  firstError: string | null
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const expect = new Set(options.expect)
  const tally = newTally()
  let n = 0

  const start = performance.now()
  const measureFrom = start + options.warmupMs
  const measureUntil = measureFrom + options.durationMs

  const worker = async (): Promise<void> => {
    while (performance.now() < measureUntil) {
      const { url, init } = options.request(n++)
      const sent = performance.now()
      let status: string
      let detail = ''
      try {
        const response = await fetch(url, init)
        const body = await response.arrayBuffer()
        status = String(response.status)
        if (!expect.has(response.status))
          detail = `${init.method ?? 'GET'} ${url} → ${response.status}: ${new TextDecoder().decode(body.slice(0, 300))}`
      } catch (error) {
        status = 'network'
        detail = `${init.method ?? 'GET'} ${url} → ${String(error)}`
      }
      const done = performance.now()
      const ok = detail === ''
      if (sent >= measureFrom) {
        tally.latencies.push(done - sent)
        tally.statuses[status] = (tally.statuses[status] ?? 0) + 1
        if (!ok) tally.errors++
      } else if (!ok) {
        tally.warmupErrors++
      }
      if (!ok) tally.firstError ??= detail
      if (done >= measureFrom && done <= measureUntil) tally.completedInWindow++
    }
  }

  await Promise.all(Array.from({ length: options.concurrency }, worker))
  return summarize(tally, options.durationMs)
}

/** What one run counts as it goes. */
function newTally() {
  return {
    latencies: [] as number[],
    completedInWindow: 0,
    errors: 0,
    warmupErrors: 0,
    statuses: {} as Record<string, number>,
    firstError: null as string | null,
  }
}

/** Percentiles and rate of one run, from what it counted. */
function summarize(run: ReturnType<typeof newTally>, durationMs: number): LoadResult {
  const sorted = Float64Array.from(run.latencies).sort()
  const seconds = durationMs / 1000
  return {
    requests: run.completedInWindow,
    seconds,
    rps: run.completedInWindow / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: run.errors,
    warmupErrors: run.warmupErrors,
    statuses: run.statuses,
    firstError: run.firstError,
  }
}

export interface FixedRateOptions {
  /** Requests started per second, on schedule whether or not earlier ones have finished (open loop). */
  rate: number
  warmupMs: number
  durationMs: number
  request(n: number): LoadRequest
  expect: readonly number[]
}

/**
 * An open-loop run: request n is due at start + n / rate and is sent then, however many are in flight.
 * Latency counts from when it was due, not when it was sent, so a server that falls behind cannot hide
 * its queue (no coordinated omission). For "p99 at half the closed-loop rate".
 */
export async function runFixedRate(options: FixedRateOptions): Promise<LoadResult> {
  const expect = new Set(options.expect)
  const tally = newTally()
  const start = performance.now()
  const measureFrom = start + options.warmupMs
  const measureUntil = measureFrom + options.durationMs
  const inFlight = new Set<Promise<void>>()

  const send = async (n: number, due: number): Promise<void> => {
    const { url, init } = options.request(n)
    let detail = ''
    let status: string
    try {
      const response = await fetch(url, init)
      await response.arrayBuffer()
      status = String(response.status)
      if (!expect.has(response.status)) detail = `${init.method ?? 'GET'} ${url} → ${response.status}`
    } catch (error) {
      status = 'network'
      detail = `${init.method ?? 'GET'} ${url} → ${String(error)}`
    }
    const done = performance.now()
    if (due >= measureFrom) {
      tally.latencies.push(done - due)
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1
      if (detail) tally.errors++
      tally.completedInWindow++
    } else if (detail) tally.warmupErrors++
    if (detail) tally.firstError ??= detail
  }

  let n = 0
  for (;;) {
    const now = performance.now()
    // Everything due by now goes out at once; the timer's granularity is about a millisecond.
    for (
      let due = start + (n * 1000) / options.rate;
      due <= now && due < measureUntil;
      due = start + (n * 1000) / options.rate
    ) {
      const sent = send(n++, due)
      inFlight.add(sent)
      void sent.finally(() => inFlight.delete(sent))
    }
    if (start + (n * 1000) / options.rate >= measureUntil) break
    await Bun.sleep(1)
  }
  await Promise.all(inFlight)
  return summarize(tally, options.durationMs)
}
