/** A running loop of workers over a queue in the database. */
export interface ClaimLoop {
  /** Looks for due work now instead of at the next poll. */
  wake(): void
  /** Stops claiming, waits for the work in flight. */
  stop(): Promise<void>
}

export interface ClaimLoopOptions<Job> {
  /** Takes the next due job with a lease, or null when none is due. */
  claim(): Promise<Job | null>
  /** Does one job and stores its outcome; never throws. */
  run(job: Job): Promise<void>
  /** Jobs in flight at once, in this process. */
  concurrency: number
  /** How often an idle loop looks for due jobs. */
  pollMs: number
  /**
   * How soon to look again while jobs are in flight, and whether a finished job wakes the loop at once: for
   * a queue where one job's end lets another go (the next webhook message about the same item).
   */
  busy?: { pollMs: number; wakeOnFinish: true }
  /** A claim that failed (the database unreachable): the loop goes on polling. */
  onClaimError(error: unknown): void
}

/**
 * Runs jobs claimed from a queue in the database, at most `concurrency` at a time. The claims hold leases,
 * so any number of processes share one queue (enrichment, webhook delivery).
 */
export function startClaimLoop<Job>(options: ClaimLoopOptions<Job>): ClaimLoop {
  let running = true
  let wake: (() => void) | null = null
  const inFlight = new Set<Promise<void>>()
  const wakeUp = () => (wake as (() => void) | null)?.()

  const loop = async () => {
    while (running) {
      if (inFlight.size >= options.concurrency) {
        await Promise.race(inFlight)
        continue
      }
      let job: Job | null = null
      try {
        job = await options.claim()
      } catch (error) {
        options.onClaimError(error)
      }
      if (job === null) {
        const waitMs = inFlight.size > 0 && options.busy ? options.busy.pollMs : options.pollMs
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, waitMs)
        })
        wake = null
        continue
      }
      const work = options.run(job).finally(() => {
        inFlight.delete(work)
        if (options.busy?.wakeOnFinish) wakeUp()
      })
      inFlight.add(work)
    }
  }
  const done = loop()
  return {
    wake: wakeUp,
    async stop() {
      running = false
      wakeUp()
      await done
      await Promise.all(inFlight)
    },
  }
}
