import type { SavedItemDto } from '../items/saved-item-dto.ts'

/**
 * One saved item as an MCP tool's text shows it (docs/mcp.md#tools): what a model needs to refer back to it
 * (its id) and to tell items apart. `<title> <<url>> (<read|unread>[, folder "<name>"][, details pending]; id
 * <id>)`, the title left out when it is null or empty. list_saved_items' lines are written by SQLite in the
 * same words (adapters/storage/saved-item-rows.ts ITEM_LINE), held equal to this by
 * test/storage/protocol-ports.test.ts.
 */
export function describeItem(item: SavedItemDto): string {
  const state = [
    item.isRead ? 'read' : 'unread',
    item.folder ? `folder "${item.folder.name}"` : null,
    item.enrichmentStatus === 'pending' ? 'details pending' : null,
  ]
  return `${item.title ? `${item.title} ` : ''}<${item.originalUrl}> (${state.filter(Boolean).join(', ')}; id ${item.id})`
}
