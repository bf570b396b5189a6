import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding'
import { ValidationError } from '../errors.ts'
import type { Sort } from '../types.ts'
import { SORTS } from '../types.ts'

export const MAX_PAGE_SIZE = 500

/** One ordering key of a list: the field compared and its direction. */
export interface SortKey {
  field: 'lastSavedAt' | 'id' | 'titleMissing' | 'titleKey' | 'isRead'
  direction: 'asc' | 'desc'
}

/**
 * The total order behind each `sort` value (docs/api.md#lists). Every order ends in `id desc`, so it is total
 * and a keyset cursor never skips or repeats an item.
 */
export const SORT_KEYS: Record<Sort, readonly SortKey[]> = {
  newest: [
    { field: 'lastSavedAt', direction: 'desc' },
    { field: 'id', direction: 'desc' },
  ],
  oldest: [
    { field: 'lastSavedAt', direction: 'asc' },
    { field: 'id', direction: 'desc' },
  ],
  title: [
    { field: 'titleMissing', direction: 'asc' },
    { field: 'titleKey', direction: 'asc' },
    { field: 'id', direction: 'desc' },
  ],
  unread: [
    { field: 'isRead', direction: 'asc' },
    { field: 'lastSavedAt', direction: 'desc' },
    { field: 'id', direction: 'desc' },
  ],
}

export type CursorValues = (string | number)[]

export function parseSort(value: string | null | undefined): Sort {
  if (value === undefined || value === null || value === '') return 'newest'
  if ((SORTS as readonly string[]).includes(value)) return value as Sort
  throw new ValidationError(`sort: must be one of ${SORTS.join(', ')}, got "${value}"`)
}

export function parseLimit(value: string | null | undefined): number | null {
  if (value === undefined || value === null) return null
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PAGE_SIZE) {
    throw new ValidationError(`limit: must be an integer from 1 to ${MAX_PAGE_SIZE}, got "${value}"`)
  }
  return Number(value)
}

const utf8 = new TextEncoder()

/** An opaque cursor naming the last item of a page: its sort and its key values. */
export function encodeCursor(sort: Sort, values: CursorValues): string {
  return encodeBase64urlNoPadding(utf8.encode(JSON.stringify([sort, ...values])))
}

/** Reads a cursor back; throws ValidationError when it is malformed or was made for another sort. */
export function decodeCursor(cursor: string, sort: Sort): CursorValues {
  let decoded: unknown
  try {
    decoded = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(decodeBase64urlIgnorePadding(cursor)))
  } catch {
    throw new ValidationError('cursor: not a cursor this API issued')
  }
  const keys = SORT_KEYS[sort]
  if (
    !Array.isArray(decoded) ||
    decoded[0] !== sort ||
    decoded.length !== keys.length + 1 ||
    !decoded.slice(1).every((v) => typeof v === 'string' || typeof v === 'number')
  ) {
    throw new ValidationError(`cursor: not a cursor for sort "${sort}"`)
  }
  return decoded.slice(1) as CursorValues
}
