// The outbox (docs/extension.md#retries): a capture is kept before it is sent and forgotten only once the
// server has answered it for good, so a network error, a 429 or a 5xx loses nothing, and every retry
// carries the capture's first Idempotency-Key and body byte for byte, so nothing is saved twice.
// Pure logic: the storage, the clock and the sending are handed in (test/extension/outbox.test.ts).

export interface OutboxEntry {
  /** The capture's Idempotency-Key, the same on every retry (docs/api.md#idempotency). */
  key: string
  /** The JSON body exactly as first sent: the same key with another body would be a 422. */
  body: string
  url: string
  withHtml: boolean
  /** The tab whose popup shows this capture, and whether it is that tab's own page (the badge) or a link. */
  tabId: number | null
  page: boolean
  createdAt: number
  /** Failed attempts so far. */
  attempts: number
  /** Not sent again by a scheduled retry before this time (ms since the epoch). */
  nextAttemptAt: number
  /** A 429's Retry-After: not sent again before this time by anything, not even a flush after a success. */
  notBefore: number
  /** Set by a 401: held until the extension is connected again. */
  held: boolean
  lastError: string | null
}

/** What one request came to. */
export type SendOutcome =
  | { kind: 'sent'; status: number; body: unknown }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'unauthorized'; message: string }
  | { kind: 'rejected'; status: number; tag: string; message: string }

/** `busy`: that capture is being sent right now; `gone`: it was already sent or dropped. */
export type AttemptOutcome = SendOutcome | { kind: 'busy' } | { kind: 'gone' }

export interface Attempt {
  entry: OutboxEntry
  outcome: AttemptOutcome
}

export interface OutboxStore {
  all(): Promise<OutboxEntry[]>
  get(key: string): Promise<OutboxEntry | undefined>
  put(entry: OutboxEntry): Promise<void>
  delete(key: string): Promise<void>
}

/** The first retry waits 30 s (the shortest `chrome.alarms` delay), each next one twice as long, up to 1 hour. */
export const FIRST_RETRY_MS = 30_000
export const MAX_RETRY_MS = 60 * 60_000

/** The wait after the `failures`-th failed attempt in a row: 30 s, 1 min, 2 min, 4 min, … 1 h, 1 h, … */
export function backoffMs(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.min(Math.max(failures - 1, 0), 20), MAX_RETRY_MS)
}

/** A Retry-After header (seconds or an HTTP date) as milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined
  const value = header.trim()
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * How an HTTP answer to a capture is treated: 2xx sent; 401 held until reconnected; 408, 429, 5xx and 409
 * `IdempotencyKeyInFlightError` (the first attempt is still running on the server) tried again later;
 * any other 4xx dropped (sending it again would get the same answer).
 */
export function outcomeOf(status: number, body: unknown, retryAfterHeader: string | null, now: number): SendOutcome {
  const tag = typeof (body as { _tag?: unknown })?._tag === 'string' ? (body as { _tag: string })._tag : 'HttpError'
  const message =
    typeof (body as { message?: unknown })?.message === 'string'
      ? (body as { message: string }).message
      : `HTTP ${status}`
  if (status >= 200 && status < 300) return { kind: 'sent', status, body }
  if (status === 401) return { kind: 'unauthorized', message }
  if (status === 408 || status === 429 || status >= 500 || tag === 'IdempotencyKeyInFlightError') {
    const wait = retryAfterMs(retryAfterHeader, now)
    return { kind: 'retry', reason: `${status} ${message}`, ...(wait === undefined ? {} : { retryAfterMs: wait }) }
  }
  return { kind: 'rejected', status, tag, message }
}

export interface NewCapture {
  body: string
  url: string
  withHtml: boolean
  tabId: number | null
  page: boolean
}

export class Outbox {
  /** Keys being sent by this instance (one per service worker): never two requests for one capture at once. */
  private readonly sending = new Set<string>()

  constructor(
    private readonly store: OutboxStore,
    private readonly now: () => number,
    private readonly send: (entry: OutboxEntry) => Promise<SendOutcome>,
    private readonly newKey: () => string = () => crypto.randomUUID(),
  ) {}

  /** Keeps a capture (before its first attempt) under a new Idempotency-Key. */
  async add(capture: NewCapture): Promise<OutboxEntry> {
    const now = this.now()
    const entry: OutboxEntry = {
      key: this.newKey(),
      ...capture,
      createdAt: now,
      attempts: 0,
      nextAttemptAt: now,
      notBefore: now,
      held: false,
      lastError: null,
    }
    await this.store.put(entry)
    return entry
  }

  /** Sends one kept capture now, whatever its schedule, and keeps, reschedules or forgets it by the answer. */
  async attempt(key: string): Promise<Attempt | null> {
    const entry = await this.store.get(key)
    if (!entry) return null
    if (this.sending.has(key)) return { entry, outcome: { kind: 'busy' } }
    this.sending.add(key)
    try {
      let outcome: SendOutcome
      try {
        outcome = await this.send(entry)
      } catch (error) {
        outcome = { kind: 'retry', reason: error instanceof Error ? error.message : String(error) }
      }
      if (outcome.kind === 'sent' || outcome.kind === 'rejected') await this.store.delete(key)
      else if (outcome.kind === 'unauthorized')
        await this.store.put({ ...entry, held: true, lastError: outcome.message })
      else {
        const now = this.now()
        const attempts = entry.attempts + 1
        const hold = outcome.retryAfterMs ?? 0
        await this.store.put({
          ...entry,
          attempts,
          nextAttemptAt: now + Math.max(backoffMs(attempts), hold),
          notBefore: now + hold,
          lastError: outcome.reason,
        })
      }
      return { entry, outcome }
    } finally {
      this.sending.delete(key)
    }
  }

  /**
   * Sends kept captures, oldest first, one at a time: `due` those whose retry time has come (the alarm);
   * `now` every one not held back by a 401 or a 429's Retry-After (on start-up and right after a success).
   */
  async flush(mode: 'due' | 'now'): Promise<Attempt[]> {
    const now = this.now()
    const ready = (await this.store.all())
      .filter((entry) => !entry.held && entry.notBefore <= now && (mode === 'now' || entry.nextAttemptAt <= now))
      .sort((a, b) => a.createdAt - b.createdAt)
    const attempts: Attempt[] = []
    for (const entry of ready) {
      const attempt = await this.attempt(entry.key)
      if (attempt) attempts.push(attempt)
    }
    return attempts
  }

  /** After a reconnect: the captures a 401 held go out with the next flush. */
  async release(): Promise<void> {
    const now = this.now()
    for (const entry of await this.store.all())
      if (entry.held) await this.store.put({ ...entry, held: false, nextAttemptAt: now })
  }

  /** When the next scheduled retry is due (ms since the epoch), or null when nothing waits on a timer. */
  async nextWake(): Promise<number | null> {
    let next: number | null = null
    for (const entry of await this.store.all()) {
      if (entry.held) continue
      const at = Math.max(entry.nextAttemptAt, entry.notBefore)
      if (next === null || at < next) next = at
    }
    return next
  }

  async entries(): Promise<OutboxEntry[]> {
    return (await this.store.all()).sort((a, b) => a.createdAt - b.createdAt)
  }

  /** Forgets every kept capture (on Disconnect). */
  async clear(): Promise<number> {
    const all = await this.store.all()
    for (const entry of all) await this.store.delete(entry.key)
    return all.length
  }
}
