import type { Database } from './open-database.ts'
import { readRows } from './read-rows.ts'

/** How many items the person has in each folder (`null`: in none), and in all (docs/web.md#queue). */
export interface FolderCounts {
  all: number
  byFolder: Map<string | null, number>
}

/** One GROUP BY over the (user, folder, …) index: it never reads an item row. */
export async function folderCounts(db: Database, userId: string): Promise<FolderCounts> {
  const rows = await readRows(
    db,
    'SELECT folder_id AS folderId, count(*) AS n FROM saved_items WHERE user_id = ? GROUP BY folder_id',
    [userId],
  )
  const byFolder = new Map(rows.map((row) => [(row.folderId as string | null) ?? null, Number(row.n)] as const))
  return { all: [...byFolder.values()].reduce((sum, n) => sum + n, 0), byFolder }
}
