import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding'
import { ValidationError } from '../errors.ts'

/**
 * The keyset cursor of `GET /v1/highlights` (docs/highlights.md#endpoints): newest first, createdAt then
 * id descending, a total order, so a page never skips or repeats a highlight when others are added
 * meanwhile. Opaque to clients, like the saved-item list's (core/items/list-order.ts).
 */
const KIND = 'highlights'

/** A cursor naming the last highlight of a page. */
export function encodeHighlightCursor(createdAt: string, id: string): string {
  return encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify([KIND, createdAt, id])))
}

/** The `createdAt` and `id` a cursor names; ValidationError when it is not one this API issued. */
export function decodeHighlightCursor(cursor: string): { createdAt: string; id: string } {
  let decoded: unknown
  try {
    decoded = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(decodeBase64urlIgnorePadding(cursor)))
  } catch {
    throw new ValidationError('cursor: not a cursor this API issued')
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 3 ||
    decoded[0] !== KIND ||
    typeof decoded[1] !== 'string' ||
    typeof decoded[2] !== 'string'
  )
    throw new ValidationError('cursor: not a cursor of this list')
  return { createdAt: decoded[1], id: decoded[2] }
}
