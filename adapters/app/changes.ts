import { decodeChangesCursor, encodeChangesCursor } from '../../core/changes/cursor.ts'
import { toHighlightDto } from '../../core/highlights/highlight.ts'
import { toSavedItemDto } from '../../core/items/saved-item-dto.ts'
import type { Principal } from '../../core/types.ts'
import { type ChangeEntry, readChanges } from '../storage/changes.ts'
import type { AppDeps } from './deps.ts'

/** An entry as the API and MCP show it: the item or highlight in its wire shape. */
function entryDto(entry: ChangeEntry) {
  if (entry.op === 'delete') return { kind: entry.kind, id: entry.id, op: entry.op }
  if (entry.kind === 'saved-item')
    return { kind: entry.kind, id: entry.id, op: entry.op, savedItem: toSavedItemDto(entry.savedItem) }
  if (entry.kind === 'highlight')
    return { kind: entry.kind, id: entry.id, op: entry.op, highlight: toHighlightDto(entry.highlight) }
  return { kind: entry.kind, id: entry.id, op: entry.op, folder: entry.folder }
}

/**
 * One page of the person's changes feed after `since` (docs/api.md#changes); without it, every live folder,
 * item and highlight first. Folders only for a caller with `folders:read`; items and highlights with the
 * feed's own `saved-items:read`. ValidationError for a cursor this API
 * did not issue, CursorExpiredError for one older than the 30 days kept.
 */
export async function changesSince(deps: AppDeps, principal: Principal, since: string | null | undefined) {
  const position = since === undefined || since === null ? null : decodeChangesCursor(since)
  const withFolders = principal.scopes.includes('folders:read')
  const page = await readChanges(deps.db, principal.userId, position, withFolders)
  return { changes: page.changes.map(entryDto), cursor: encodeChangesCursor(page.next), hasMore: page.hasMore }
}
