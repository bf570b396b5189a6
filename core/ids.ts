import { encodeHexLowerCase } from '@oslojs/encoding'
import type { RandomSource } from './types.ts'

const MAX_UNIX_TS_MS = 2 ** 48 - 1
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A lowercase UUIDv7: 48-bit Unix milliseconds, then 74 random bits, so ids sort by creation time.
 * Time and randomness are injected so tests can pin the output.
 * @see https://www.rfc-editor.org/rfc/rfc9562#section-5.7
 */
export function uuidv7(nowMs: number, random: RandomSource): string {
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > MAX_UNIX_TS_MS) {
    throw new RangeError(`Cannot generate UUIDv7: timestamp ${nowMs} is not an integer between 0 and 2^48 - 1`)
  }
  const bytes = new Uint8Array(16)
  // 48 bits do not fit JavaScript's 32-bit bitwise operators, so peel bytes off arithmetically.
  let rest = nowMs
  for (let i = 5; i >= 0; i--) {
    bytes[i] = rest % 256
    rest = Math.floor(rest / 256)
  }
  bytes.set(random.fill(new Uint8Array(10)), 6)
  bytes[6] = 0x70 | (bytes[6]! & 0x0f) // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f) // variant 10
  const hex = encodeHexLowerCase(bytes)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * Whether a string is a UUID in canonical 8-4-4-4-12 hex form, of any version and either case.
 * @see https://www.rfc-editor.org/rfc/rfc9562#section-4
 */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value)
}
