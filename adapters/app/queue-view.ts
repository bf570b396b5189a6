import { decodeCursor, encodeCursor } from '../../core/items/list-order.ts'
import type { Folder, SavedItem, Sort } from '../../core/types.ts'
import { deletedItemLabel } from '../storage/deleted-items.ts'
import { listFolders } from '../storage/folders.ts'
import { folderCounts, type FolderCounts } from '../storage/queue-counts.ts'
import { articleWordCounts } from '../storage/reading.ts'
import { listSavedItems, type ReadStateFilter } from '../storage/saved-items.ts'
import type { AppDeps } from './deps.ts'

// What the web app's queue pages read (docs/web.md#queue), in the queries they always took.

/** The person's folders and how many items each holds: the folder filter and the folders page. */
export async function folderOverview(
  deps: AppDeps,
  userId: string,
): Promise<{ folders: Folder[]; counts: FolderCounts }> {
  const [folders, counts] = await Promise.all([listFolders(deps.db, userId), folderCounts(deps.db, userId)])
  return { folders, counts }
}

export interface QueueRequest {
  sort: Sort
  /** '' for every folder, 'none' for items in no folder, or a folder id. */
  folder: string
  state: ReadStateFilter
  /** A page's cursor as the address carries it; one of another sort, or garbage, is the first page. */
  cursor: string | null
  /** An item just deleted from the page, for its "Undo". */
  deleted: string | null
  limit: number
}

export interface QueueRead {
  /** The folder filter as applied: an unknown folder id shows every folder (''), not an empty list. */
  folder: string
  folders: Folder[]
  counts: FolderCounts
  /** The page's items, each with its article's word count when it has one. */
  cards: { item: SavedItem; words: number | null }[]
  nextCursor: string | null
  undo: { id: string; label: string } | null
}

/** One page of the queue with what the page shows beside it. */
export async function readQueue(deps: AppDeps, userId: string, request: QueueRequest): Promise<QueueRead> {
  const { db } = deps
  const { folders, counts } = await folderOverview(deps, userId)
  // An unknown folder id shows every folder rather than an empty list that looks like data loss.
  const folder = request.folder !== 'none' && !folders.some((f) => f.id === request.folder) ? '' : request.folder
  let after = null
  try {
    after = request.cursor ? decodeCursor(request.cursor, request.sort) : null
  } catch {
    // A cursor of another sort, or garbage: the first page.
  }
  const { items, nextCursorValues } = await listSavedItems(db, userId, {
    sort: request.sort,
    folder: folder || null,
    state: request.state,
    limit: request.limit,
    after,
  })
  // One query for the page's articles, not one per item.
  const words = await articleWordCounts(
    db,
    items.map((item) => item.id),
  )
  const { deleted } = request
  const label = deleted ? await deletedItemLabel(db, userId, deleted, deps.clock.now().getTime()) : null
  return {
    folder,
    folders,
    counts,
    cards: items.map((item) => ({ item, words: words.get(item.id) ?? null })),
    nextCursor: nextCursorValues ? encodeCursor(request.sort, nextCursorValues) : null,
    undo: deleted && label !== null ? { id: deleted, label } : null,
  }
}
