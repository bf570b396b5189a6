import { ValidationError } from '../errors.ts'

/** How long a finished request's response is kept for replay. @see docs/api.md#idempotency */
export const IDEMPOTENCY_TTL_SECONDS = 86400

/**
 * An in-flight record older than this is taken to be from a crashed process and may be taken
 * over; longer than any request should run, short enough that a retry after a crash succeeds.
 * @see docs/api.md#idempotency
 */
export const IDEMPOTENCY_LEASE_SECONDS = 60

const MAX_KEY_LENGTH = 255
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/u

/**
 * Returns the `Idempotency-Key` unchanged when it is 1–255 printable ASCII characters
 * (0x20–0x7E); throws {@link ValidationError} otherwise.
 * @see docs/api.md#limits
 */
export function validateIdempotencyKey(value: string): string {
  if (value.length === 0) throw new ValidationError('Cannot use Idempotency-Key: it is empty')
  if (value.length > MAX_KEY_LENGTH) {
    throw new ValidationError(
      `Cannot use Idempotency-Key: it is ${value.length} characters long, the limit is ${MAX_KEY_LENGTH}`,
    )
  }
  const bad = NOT_PRINTABLE_ASCII.exec(value)
  if (bad !== null) {
    const hex = (bad[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')
    throw new ValidationError(
      `Cannot use Idempotency-Key: it contains U+${hex}, only printable ASCII (0x20-0x7E) is allowed`,
    )
  }
  return value
}

/**
 * Lowercase hex SHA-256 over `method \n pathWithQuery \n body`: two requests with the same key
 * are "the same request" exactly when these match. Neither a method nor a parsed path can contain
 * a newline, so the framing is unambiguous.
 * @see docs/api.md#idempotency
 */
export async function fingerprintRequest(method: string, pathWithQuery: string, body: Uint8Array): Promise<string> {
  const head = new TextEncoder().encode(`${method}\n${pathWithQuery}\n`)
  const data = new Uint8Array(head.length + body.length)
  data.set(head)
  data.set(body, head.length)
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data))
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** The stored idempotency record, as far as the decision needs it. */
export interface IdempotencyRecordView {
  fingerprint: string
  state: 'in-flight' | 'done'
  lockedAtMs: number
  expiresAtMs: number
}

/**
 * `proceed`: run the request. `replay`: answer with the stored response. `reuse-conflict`: 422.
 * `in-flight`: 409. `take-over`: the first attempt's lease ran out, so run the request again.
 */
export type IdempotencyDecision = 'proceed' | 'replay' | 'reuse-conflict' | 'in-flight' | 'take-over'

/**
 * What to do with a request carrying a key, given the record already stored for that key.
 * A record is expired from `expiresAtMs` on, and an in-flight lease runs out once it is strictly
 * older than {@link IDEMPOTENCY_LEASE_SECONDS}.
 * @see docs/api.md#idempotency
 */
export function decideIdempotency(
  existing: IdempotencyRecordView | null,
  fingerprint: string,
  nowMs: number,
): IdempotencyDecision {
  if (existing === null || existing.expiresAtMs <= nowMs) return 'proceed'
  // A different request is refused even while the first is running: the key is spoken for.
  if (existing.fingerprint !== fingerprint) return 'reuse-conflict'
  if (existing.state === 'done') return 'replay'
  return nowMs - existing.lockedAtMs > IDEMPOTENCY_LEASE_SECONDS * 1000 ? 'take-over' : 'in-flight'
}
