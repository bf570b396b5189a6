import type { Database } from './open-database.ts'
import { runProgram, type Op } from './program.ts'
import { readRows } from './read-rows.ts'

/** How long a web delete can be undone (docs/web.md#queue). */
export const UNDO_WINDOW_MS = 10 * 60 * 1000

/**
 * The rows an undo puts back: the item, its article, its reading position and its highlights, each as stored
 * (its archived images are rows of `deleted_item_images` beside it).
 */
interface Snapshot {
  item: Record<string, unknown>
  content: Record<string, unknown> | null
  progress: Record<string, unknown> | null
  /** Absent from a copy kept before highlights existed. */
  highlights?: Record<string, unknown>[]
  /** The highest archived image number the item had used (docs/reading.md#archived-images); absent before it was kept. */
  imageNumber?: number
}

/** The columns of an archived image, the same in `item_images` and `deleted_item_images`. */
const IMAGE_COLUMNS = 'item_id, n, user_id, original_url, media_type, size, created_at, bytes'

/** The copy of an item this person deleted within the undo window, as a SELECT of `snapshot`. */
const KEPT = 'SELECT snapshot FROM deleted_items WHERE item_id = ? AND user_id = ? AND deleted_at_ms >= ?'
const keptArgs = (userId: string, id: string, nowMs: number) => [id, userId, nowMs - UNDO_WINDOW_MS]

/** The title (or URL) of an item this person deleted within the undo window, for the page's "Undo"; null when none. */
export async function deletedItemLabel(
  db: Database,
  userId: string,
  id: string,
  nowMs: number,
): Promise<string | null> {
  const [kept] = await readRows(db, KEPT, keptArgs(userId, id, nowMs))
  if (!kept) return null
  const { item } = JSON.parse(kept.snapshot as string) as Snapshot
  return String(item.title ?? item.original_url)
}

/** A plain object of a row (the client driver's rows also answer by index). */
const plain = (row: Record<string, unknown> | undefined): Record<string, unknown> | null =>
  row ? Object.fromEntries(Object.entries(row)) : null

/**
 * Deletes one of the person's items and keeps a copy of it for UNDO_WINDOW_MS, in one transaction. The
 * item's other rows go with it (foreign keys); its article, reading position and highlights are in the copy, its
 * archived images in `deleted_item_images`. Returns
 * the item's title (or URL) for the notice, or null when the person has no such item.
 */
export function deleteItemKeepingUndo(
  db: Database,
  userId: string,
  id: string,
  nowMs: number,
): Promise<{ label: string } | null> {
  return runProgram(db, function* () {
    const [item] = (yield {
      all: 'SELECT * FROM saved_items WHERE id = ? AND user_id = ?',
      args: [id, userId],
    }) as Record<string, unknown>[]
    if (!item) return null
    const [content] = (yield { all: 'SELECT * FROM item_contents WHERE item_id = ?', args: [id] }) as Record<
      string,
      unknown
    >[]
    const [progress] = (yield { all: 'SELECT * FROM reading_progress WHERE item_id = ?', args: [id] }) as Record<
      string,
      unknown
    >[]
    // Every highlight whole (ids, quotes, positions, colours, notes, times): docs/highlights.md#deleting.
    const highlights = (yield {
      all: 'SELECT * FROM highlights WHERE saved_item_id = ? ORDER BY id',
      args: [id],
    }) as Record<string, unknown>[]
    const [numbered] = (yield { all: 'SELECT last_n FROM item_image_numbers WHERE item_id = ?', args: [id] }) as Record<
      string,
      unknown
    >[]
    const snapshot: Snapshot = {
      item: plain(item)!,
      content: plain(content),
      progress: plain(progress),
      highlights: highlights.map((row) => plain(row)!),
      imageNumber: Number(numbered?.last_n ?? 0),
    }
    yield {
      run: `INSERT INTO deleted_items (item_id, user_id, snapshot, deleted_at_ms) VALUES (?, ?, ?, ?)
        ON CONFLICT (item_id) DO UPDATE SET snapshot = excluded.snapshot, deleted_at_ms = excluded.deleted_at_ms`,
      args: [id, userId, JSON.stringify(snapshot), nowMs],
    }
    // The archived images are kept beside the copy, as rows (blobs have no place in its JSON), and go with it
    // (docs/reading.md#archived-images).
    yield { run: 'DELETE FROM deleted_item_images WHERE item_id = ?', args: [id] }
    yield {
      run: `INSERT INTO deleted_item_images (${IMAGE_COLUMNS}) SELECT ${IMAGE_COLUMNS} FROM item_images WHERE item_id = ?`,
      args: [id],
    }
    yield { run: 'DELETE FROM saved_items WHERE id = ? AND user_id = ?', args: [id, userId] }
    return { label: String(item.title ?? item.original_url) }
  })
}

export type RestoreOutcome = 'restored' | 'expired' | 'saved-again'

// Column names come from our own rows, but an INSERT is never built from a name that is not a plain one.
// Quoted, since a plain name may still be an SQL keyword (`highlights.end`).
const COLUMN_NAME = /^[a-z_]+$/

function insertOf(table: string, row: Record<string, unknown>) {
  const columns = Object.keys(row).filter((name) => COLUMN_NAME.test(name))
  return {
    run: `INSERT INTO ${table} (${columns.map((name) => `"${name}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    args: columns.map((name) => row[name]),
  }
}

/**
 * Puts a deleted item back exactly as it was (same id, folder, read state, times, tags, article, reading
 * position, highlights and archived images), in one transaction, within UNDO_WINDOW_MS of its deletion. Its folder, if deleted since, is
 * none; the same URL saved again since wins (the copy is dropped and 'saved-again' said).
 */
export function restoreDeletedItem(db: Database, userId: string, id: string, nowMs: number): Promise<RestoreOutcome> {
  return runProgram(db, function* () {
    const [kept] = (yield { all: KEPT, args: keptArgs(userId, id, nowMs) }) as { snapshot: string }[]
    if (!kept) return 'expired'
    // Last, once the images are back: deleting the copy deletes its images' rows too.
    const dropCopy: Op = { run: 'DELETE FROM deleted_items WHERE item_id = ?', args: [id] }
    const snapshot = JSON.parse(kept.snapshot) as Snapshot
    const item = { ...snapshot.item }
    const clash = (yield {
      all: 'SELECT id FROM saved_items WHERE user_id = ? AND normalized_url = ?',
      args: [userId, item.normalized_url],
    }) as unknown[]
    if (clash.length > 0) {
      yield dropCopy
      return 'saved-again'
    }
    if (item.folder_id !== null) {
      const folder = (yield {
        all: 'SELECT id FROM folders WHERE id = ? AND user_id = ?',
        args: [item.folder_id, userId],
      }) as unknown[]
      if (folder.length === 0) item.folder_id = null
    }
    yield insertOf('saved_items', item)
    if (snapshot.content) yield insertOf('item_contents', snapshot.content)
    if (snapshot.progress) yield insertOf('reading_progress', snapshot.progress)
    for (const highlight of snapshot.highlights ?? []) yield insertOf('highlights', highlight)
    yield {
      run: `INSERT INTO item_images (${IMAGE_COLUMNS}) SELECT ${IMAGE_COLUMNS} FROM deleted_item_images WHERE item_id = ?`,
      args: [id],
    }
    // Numbers go on after the highest the item had used, as if it had never been deleted.
    yield {
      run: `INSERT INTO item_image_numbers (item_id, last_n)
        SELECT ?, n FROM (SELECT max(?, coalesce((SELECT max(n) FROM item_images WHERE item_id = ?), 0)) AS n) WHERE n > 0`,
      args: [id, snapshot.imageNumber ?? 0, id],
    }
    yield dropCopy
    return 'restored'
  })
}

/** Drops copies past the undo window (maintenance). */
export async function pruneDeletedItems(db: Database, nowMs: number): Promise<void> {
  await runProgram(db, function* () {
    yield { run: 'DELETE FROM deleted_items WHERE deleted_at_ms < ?', args: [nowMs - UNDO_WINDOW_MS] }
  })
}
