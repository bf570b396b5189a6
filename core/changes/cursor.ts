import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding'
import { ValidationError } from '../errors.ts'

/** Entries in one page of the changes feed (docs/api.md#changes). */
export const CHANGES_PAGE_SIZE = 500
/** How long the feed keeps a change (and so a deletion): an older cursor is expired. */
export const CHANGES_RETENTION_MS = 30 * 24 * 60 * 60 * 1000

/**
 * The kinds of the snapshot in the order it lists them, as a cursor numbers them: folders (0), items (1),
 * highlights (2) (docs/api.md#changes).
 */
export type SnapshotKind = 0 | 1 | 2

/**
 * Where a reader of the feed stands. `log`: every change after `seq` is still to come. `snapshot`: the
 * first reading without `since`, listing every live folder, then item, then highlight (`after` the last one
 * given, by kind and id), after which the log goes on from `upto`, the newest change when the snapshot began.
 */
export type ChangesPosition =
  | { phase: 'log'; seq: number }
  | { phase: 'snapshot'; upto: number; after: { kind: SnapshotKind; id: string } | null }

/** An opaque cursor for a position. */
export function encodeChangesCursor(position: ChangesPosition): string {
  const value =
    position.phase === 'log'
      ? ['c', position.seq]
      : ['c', position.upto, position.after?.kind ?? -1, position.after?.id ?? '']
  return encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify(value)))
}

const MALFORMED = 'since: not a cursor this API issued (start over without since)'
const isSeq = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

/** The position a cursor names; ValidationError when it is not one this API issued. */
export function decodeChangesCursor(cursor: string): ChangesPosition {
  let decoded: unknown
  try {
    if (cursor.length > 512) throw new Error('too long')
    decoded = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(decodeBase64urlIgnorePadding(cursor)))
  } catch {
    throw new ValidationError(MALFORMED)
  }
  if (!Array.isArray(decoded) || decoded[0] !== 'c' || !isSeq(decoded[1])) throw new ValidationError(MALFORMED)
  if (decoded.length === 2) return { phase: 'log', seq: decoded[1] }
  const [, upto, kind, id] = decoded
  if (decoded.length !== 4 || typeof id !== 'string' || id.length > 64) throw new ValidationError(MALFORMED)
  if (kind === -1 && id === '') return { phase: 'snapshot', upto, after: null }
  if ((kind !== 0 && kind !== 1 && kind !== 2) || id === '') throw new ValidationError(MALFORMED)
  return { phase: 'snapshot', upto, after: { kind, id } }
}
