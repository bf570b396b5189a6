import type { Clock, RandomSource } from './types.ts'

const MAX_RANDOM_CHUNK = 65536

/**
 * RFC 3339 UTC timestamp with milliseconds, e.g. `2026-11-22T10:04:05.123Z`.
 * Throws a RangeError for an invalid date or a year outside 0000–9999, which RFC 3339 cannot
 * express (`toISOString` would write `+010000-…`).
 * @see docs/api.md#data-rules and https://www.rfc-editor.org/rfc/rfc3339#section-5.6
 */
export function toTimestamp(date: Date): string {
  const year = date.getUTCFullYear()
  if (Number.isNaN(year) || year < 0 || year > 9999) {
    throw new RangeError(`Cannot format date: ${String(date)} is not representable in RFC 3339`)
  }
  return date.toISOString()
}

/**
 * The real clock. `Date` is a Web API, so the core may hold it; code still receives it as a
 * dependency so tests can freeze time.
 * (Injected, like Oslo's RandomReader and Deno std's `generate(timestamp)`.)
 */
export const systemClock: Clock = { now: () => new Date() }

/**
 * Cryptographically strong randomness from the Web Crypto API.
 * @see https://w3c.github.io/webcrypto/#Crypto-method-getRandomValues
 */
export const webRandom: RandomSource = {
  fill(bytes: Uint8Array): Uint8Array {
    // RandomSource accepts any Uint8Array, but getRandomValues takes only ArrayBuffer-backed views
    // of at most 65536 bytes, so fill fresh chunks and copy them in.
    for (let offset = 0; offset < bytes.length; offset += MAX_RANDOM_CHUNK) {
      const chunk = new Uint8Array(Math.min(MAX_RANDOM_CHUNK, bytes.length - offset))
      bytes.set(crypto.getRandomValues(chunk), offset)
    }
    return bytes
  },
}
