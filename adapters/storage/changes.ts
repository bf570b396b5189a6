import { eq, sql } from 'drizzle-orm'
import { CHANGES_PAGE_SIZE, type ChangesPosition, type SnapshotKind } from '../../core/changes/cursor.ts'
import { CursorExpiredError } from '../../core/errors.ts'
import type { StoredHighlight } from '../../core/highlights/highlight.ts'
import type { Folder, SavedItem } from '../../core/types.ts'
import { highlightsByIds } from './highlights.ts'
import type { Database } from './open-database.ts'
import { preparedPer } from './prepared.ts'
import { runProgram } from './program.ts'
import { readRows } from './read-rows.ts'
import { ITEM_FIELDS, itemFromRow, type RawRow } from './saved-item-rows.ts'
import { folders, savedItems } from './schema.ts'

/** What the feed follows: items, folders and highlights (the `kind` column of `changes`). */
export type ChangeKind = 'saved-item' | 'folder' | 'highlight'

/** One entry of the feed: an entity as it is now, or its deletion (docs/api.md#changes). */
export type ChangeEntry =
  | { kind: 'saved-item'; id: string; op: 'upsert'; savedItem: SavedItem }
  | { kind: 'folder'; id: string; op: 'upsert'; folder: Folder }
  | { kind: 'highlight'; id: string; op: 'upsert'; highlight: StoredHighlight }
  | { kind: ChangeKind; id: string; op: 'delete' }

type ChangeKey = { kind: ChangeKind; id: string }

export interface ChangesPage {
  changes: ChangeEntry[]
  next: ChangesPosition
  hasMore: boolean
}

const itemsByIds = preparedPer((db) =>
  db
    .select(ITEM_FIELDS)
    .from(savedItems)
    .leftJoin(folders, eq(folders.id, savedItems.folderId))
    // The ids drive the lookup (by primary key); `+` keeps SQLite from scanning the person's whole
    // (user, …) index instead and testing each row against the list (10 ms a page at 75,000 items).
    .where(
      sql`${savedItems.id} IN (SELECT value FROM json_each(${sql.placeholder('ids')})) AND +${savedItems.userId} = ${sql.placeholder('userId')}`,
    )
    .prepare(),
)

async function currentItems(db: Database, userId: string, ids: string[]): Promise<Map<string, SavedItem>> {
  if (ids.length === 0) return new Map()
  const rows = (await itemsByIds(db).values({ userId, ids: JSON.stringify(ids) })) as RawRow[]
  return new Map(rows.map((row) => itemFromRow(row)).map((item) => [item.id, item]))
}

async function currentFolders(db: Database, userId: string, ids: string[]): Promise<Map<string, Folder>> {
  if (ids.length === 0) return new Map()
  const rows = await readRows(
    db,
    'SELECT id, name FROM folders WHERE user_id = ? AND id IN (SELECT value FROM json_each(?))',
    [userId, JSON.stringify(ids)],
  )
  return new Map(rows.map((row) => [row.id as string, { id: row.id as string, name: row.name as string }]))
}

async function currentHighlights(db: Database, userId: string, ids: string[]): Promise<Map<string, StoredHighlight>> {
  if (ids.length === 0) return new Map()
  return new Map((await highlightsByIds(db, userId, ids)).map((highlight) => [highlight.id, highlight]))
}

const idsOf = (keys: ChangeKey[], kind: ChangeKind) => keys.filter((key) => key.kind === kind).map((key) => key.id)

/** The entities as they are now: an id no longer there is a deletion. */
async function entriesOf(db: Database, userId: string, keys: ChangeKey[]): Promise<ChangeEntry[]> {
  const [items, folderMap, highlightMap] = await Promise.all([
    currentItems(db, userId, idsOf(keys, 'saved-item')),
    currentFolders(db, userId, idsOf(keys, 'folder')),
    currentHighlights(db, userId, idsOf(keys, 'highlight')),
  ])
  return keys.map(({ kind, id }): ChangeEntry => {
    if (kind === 'saved-item') {
      const savedItem = items.get(id)
      return savedItem ? { kind, id, op: 'upsert', savedItem } : { kind, id, op: 'delete' }
    }
    if (kind === 'highlight') {
      const highlight = highlightMap.get(id)
      return highlight ? { kind, id, op: 'upsert', highlight } : { kind, id, op: 'delete' }
    }
    const folder = folderMap.get(id)
    return folder ? { kind, id, op: 'upsert', folder } : { kind, id, op: 'delete' }
  })
}

/**
 * The newest change of the whole log, where a snapshot's log picks up; at least the person's pruned mark
 * (everything may have been pruned).
 */
async function newestSeq(db: Database, userId: string): Promise<number> {
  const [row] = await readRows(
    db,
    `SELECT max(coalesce((SELECT max(seq) FROM changes), 0),
      coalesce((SELECT seq FROM changes_pruned WHERE user_id = ?), 0)) AS seq`,
    [userId],
  )
  return Number(row?.seq ?? 0)
}

/**
 * One page of the feed from `position` (docs/api.md#changes): in the log, the changes after its `seq`,
 * each entity once (where it last changed in the page) with its state at read time; in a snapshot, the
 * next live folders, then items, then highlights. `withFolders` is false for a caller without `folders:read`
 * (items and highlights need only `saved-items:read`, which every caller of the feed has).
 * CursorExpiredError when the person's log was pruned past the cursor.
 */
export async function readChanges(
  db: Database,
  userId: string,
  position: ChangesPosition | null,
  withFolders: boolean,
  limit = CHANGES_PAGE_SIZE,
): Promise<ChangesPage> {
  const start: ChangesPosition = position ?? { phase: 'snapshot', upto: await newestSeq(db, userId), after: null }
  return start.phase === 'log'
    ? logPage(db, userId, start.seq, withFolders, limit)
    : snapshotPage(db, userId, start, withFolders, limit)
}

async function logPage(db: Database, userId: string, since: number, withFolders: boolean, limit: number) {
  const [pruned] = await readRows(db, 'SELECT seq FROM changes_pruned WHERE user_id = ?', [userId])
  if (pruned && since < Number(pruned.seq))
    throw new CursorExpiredError(
      'since: this cursor is older than the 30 days of changes kept; start over without since',
    )
  const rows = await readRows(
    db,
    `SELECT seq, kind, entity_id AS id FROM changes WHERE user_id = ? AND seq > ?${withFolders ? '' : " AND kind != 'folder'"} ORDER BY seq LIMIT ?`,
    [userId, since, limit + 1],
  )
  const hasMore = rows.length > limit
  const page = rows.slice(0, limit)
  // Each entity once, where it last changed in the page: its state is read now anyway.
  const last = new Map<string, ChangeKey>()
  for (const row of page) {
    const key = `${row.kind} ${row.id}`
    last.delete(key)
    last.set(key, { kind: row.kind as ChangeKind, id: row.id as string })
  }
  const next = page.length > 0 ? Number(page[page.length - 1]!.seq) : since
  return {
    changes: await entriesOf(db, userId, [...last.values()]),
    next: { phase: 'log' as const, seq: next },
    hasMore,
  }
}

async function snapshotPage(
  db: Database,
  userId: string,
  position: Extract<ChangesPosition, { phase: 'snapshot' }>,
  withFolders: boolean,
  limit: number,
): Promise<ChangesPage> {
  const keys: ChangeKey[] = []
  // Folders first (kind 0), then items (kind 1), then highlights (kind 2), each by id. A kind before the
  // cursor's is done; the cursor's own goes on after its id.
  const from = position.after?.kind ?? 0
  for (const [kind, table] of SNAPSHOT_TABLES.entries()) {
    if (kind < from || (kind === 0 && !withFolders)) continue
    const room = limit - keys.length
    const after = position.after?.kind === kind ? position.after.id : null
    const rows = await readRows(
      db,
      `SELECT id FROM ${table.name} WHERE user_id = ?${after === null ? '' : ' AND id > ?'} ORDER BY id LIMIT ?`,
      after === null ? [userId, room + 1] : [userId, after, room + 1],
    )
    for (const row of rows.slice(0, room)) keys.push({ kind: table.kind, id: row.id as string })
    // The next page goes on after the last entry given, of whichever kind it is (a page that filled up
    // with the kind before this one goes on from the end of that one).
    if (rows.length > room) {
      const last = keys.at(-1)!
      const lastKind = SNAPSHOT_TABLES.findIndex((entry) => entry.kind === last.kind) as SnapshotKind
      return snapshotResult(db, userId, keys, position.upto, { kind: lastKind, id: last.id })
    }
  }
  return snapshotResult(db, userId, keys, position.upto, null)
}

/** The snapshot's kinds in order: the number a cursor gives a kind is its place here. */
const SNAPSHOT_TABLES: { kind: ChangeKind; name: string }[] = [
  { kind: 'folder', name: 'folders' },
  { kind: 'saved-item', name: 'saved_items' },
  { kind: 'highlight', name: 'highlights' },
]

async function snapshotResult(
  db: Database,
  userId: string,
  keys: ChangeKey[],
  upto: number,
  after: { kind: SnapshotKind; id: string } | null,
): Promise<ChangesPage> {
  return {
    changes: await entriesOf(db, userId, keys),
    // The snapshot done, the log goes on from the newest change when it began: what changed meanwhile
    // comes again, as it is then.
    next: after ? { phase: 'snapshot', upto, after } : { phase: 'log', seq: upto },
    hasMore: after !== null,
  }
}

/**
 * Drops changes older than `cutoffMs` (maintenance), recording per person the newest one dropped: a cursor
 * before it would miss them, so it is expired. Changes are read oldest first, a batch at a time, until
 * one is new enough (they are appended in time order).
 */
export async function pruneChanges(db: Database, cutoffMs: number): Promise<number> {
  let upto = 0
  for (;;) {
    const rows = await readRows(db, 'SELECT seq, at_ms AS at FROM changes WHERE seq > ? ORDER BY seq LIMIT 1000', [
      upto,
    ])
    const old = rows.filter((row) => Number(row.at) < cutoffMs)
    if (old.length > 0) upto = Number(old.at(-1)!.seq)
    if (old.length < rows.length || rows.length < 1000) break
  }
  if (upto === 0) return 0
  return runProgram(db, function* () {
    yield {
      run: `INSERT INTO changes_pruned (user_id, seq) SELECT user_id, max(seq) FROM changes WHERE seq <= ? GROUP BY user_id
        ON CONFLICT (user_id) DO UPDATE SET seq = max(changes_pruned.seq, excluded.seq)`,
      args: [upto],
    }
    return (yield { run: 'DELETE FROM changes WHERE seq <= ?', args: [upto] }) as number
  })
}
