import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding'
import { ValidationError } from '../errors.ts'

/** The most results one search page holds, and how many when `limit` is not given. */
export const SEARCH_MAX_LIMIT = 100
export const SEARCH_DEFAULT_LIMIT = 20

/** `limit` as a query string gives it: absent means the default; else an integer from 1 to 100. */
export function parseSearchLimit(value: string | null | undefined): number {
  if (value === undefined || value === null) return SEARCH_DEFAULT_LIMIT
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > SEARCH_MAX_LIMIT)
    throw new ValidationError(`limit: must be an integer from 1 to ${SEARCH_MAX_LIMIT}, got "${value}"`)
  return Number(value)
}

// FNV-1a, 32 bits: a cursor only has to notice that it is sent with another query, not resist forgery
// (a forged one can only page through the caller's own results).
function fingerprint(query: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < query.length; i++) {
    hash ^= query.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(36)
}

/**
 * An opaque cursor for the page of results after `offset` ones. Ranked results have no stable key to
 * seek from (a score is relative to the query and the index), so a page is a position in the ranking.
 * @see docs/search.md#endpoint
 */
export function encodeSearchCursor(query: string, offset: number): string {
  return encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify(['s', fingerprint(query), offset])))
}

/** The offset a cursor names; ValidationError when it is malformed or was made for another query. */
export function decodeSearchCursor(cursor: string, query: string): number {
  let decoded: unknown
  try {
    decoded = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(decodeBase64urlIgnorePadding(cursor)))
  } catch {
    throw new ValidationError('cursor: not a cursor this API issued')
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 3 ||
    decoded[0] !== 's' ||
    !Number.isSafeInteger(decoded[2]) ||
    (decoded[2] as number) < 0
  )
    throw new ValidationError('cursor: not a cursor this API issued')
  if (decoded[1] !== fingerprint(query)) throw new ValidationError('cursor: made for another query; send the same q')
  return decoded[2] as number
}
