import { ContentNotFoundError, SavedItemNotFoundError } from '../../core/errors.ts'
import { reanchorQuotes } from '../../core/highlights/anchor.ts'
import type { HighlightColor, StoredHighlight, TextPosition } from '../../core/highlights/highlight.ts'
import type { Database } from './open-database.ts'
import { runProgram, type Op } from './program.ts'
import { readRows } from './read-rows.ts'

// The highlights table (docs/highlights.md), in SQL. `end` is an SQL keyword: always written quoted.

const COLUMN_NAMES = [
  'id',
  'user_id',
  'saved_item_id',
  'exact',
  'prefix',
  'suffix',
  'start',
  '"end"',
  'color',
  'note',
  'created_at',
  'updated_at',
]
const COLUMNS = COLUMN_NAMES.map((name) => `h.${name}`).join(', ')

function highlightOf(row: Record<string, unknown>): StoredHighlight {
  const start = row.start
  return {
    id: String(row.id),
    userId: String(row.user_id),
    savedItemId: String(row.saved_item_id),
    quote: { exact: String(row.exact), prefix: String(row.prefix), suffix: String(row.suffix) },
    position: start === null || start === undefined ? null : { start: Number(start), end: Number(row.end) },
    color: String(row.color) as HighlightColor,
    note: row.note === null || row.note === undefined ? null : String(row.note),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  }
}

/** What the rule of a new highlight is given: the article's text and how many highlights the item has. */
export interface ArticleState {
  text: string
  highlights: number
}

/**
 * Creates a highlight on one of the person's items in one transaction: reads the item's article text and
 * highlight count, asks `decide` for the highlight (which may throw: a limit, a quote not found), and
 * inserts it. So the passage is anchored in the text as stored when it is written, and the per-item limit
 * holds under concurrent requests. SavedItemNotFoundError when the person has no such item,
 * ContentNotFoundError when it has no article.
 */
export function insertHighlight(
  db: Database,
  userId: string,
  savedItemId: string,
  decide: (article: ArticleState) => StoredHighlight,
): Promise<StoredHighlight> {
  return runProgram(db, function* () {
    const [item] = (yield {
      all: `SELECT c.text AS text, (SELECT count(*) FROM highlights WHERE saved_item_id = s.id) AS n
        FROM saved_items s LEFT JOIN item_contents c ON c.item_id = s.id WHERE s.id = ? AND s.user_id = ?`,
      args: [savedItemId, userId],
    }) as Record<string, unknown>[]
    if (!item) throw new SavedItemNotFoundError(savedItemId)
    if (item.text === null || item.text === undefined) throw new ContentNotFoundError(savedItemId)
    const highlight = decide({ text: String(item.text), highlights: Number(item.n) })
    yield {
      run: `INSERT INTO highlights (id, user_id, saved_item_id, exact, prefix, suffix, start, "end", color, note, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      args: [
        highlight.id,
        userId,
        savedItemId,
        highlight.quote.exact,
        highlight.quote.prefix,
        highlight.quote.suffix,
        highlight.position?.start ?? null,
        highlight.position?.end ?? null,
        highlight.color,
        highlight.note,
        highlight.createdAt,
        highlight.updatedAt,
      ],
    }
    return highlight
  })
}

/**
 * The highlights of one of the person's items in text order (start, then end, then creation), those
 * without a position last by creation; null when the person has no such item. One query: the item joined
 * to its highlights, read in the order of highlights_item_text_idx (where a null start comes first).
 */
export async function itemHighlights(
  db: Database,
  userId: string,
  savedItemId: string,
): Promise<StoredHighlight[] | null> {
  const rows = await readRows(
    db,
    `SELECT s.id AS item, ${COLUMNS} FROM saved_items s LEFT JOIN highlights h ON h.saved_item_id = s.id
      WHERE s.id = ? AND s.user_id = ? ORDER BY h.start, h."end", h.created_at, h.id`,
    [savedItemId, userId],
  )
  if (rows.length === 0) return null
  const found = rows.filter((row) => row.id !== null && row.id !== undefined).map(highlightOf)
  const placed = found.filter((highlight) => highlight.position !== null)
  return placed.length === found.length ? found : [...placed, ...found.filter((h) => h.position === null)]
}

/**
 * Whether the person's item has highlights, and their version (docs/highlights.md#web): a random value that
 * the triggers of migration 0016 replace with every highlight added, changed or deleted, by any process. The
 * reader view keeps its marked article while it is the same. Two primary-key lookups, whatever the number of
 * highlights; another person's item has none.
 */
export async function itemHighlightsVersion(
  db: Database,
  userId: string,
  savedItemId: string,
): Promise<{ any: boolean; version: string }> {
  const [row] = await readRows(
    db,
    `SELECT (SELECT version FROM highlight_versions WHERE saved_item_id = ?1) AS version,
      EXISTS (SELECT 1 FROM highlights WHERE saved_item_id = ?1 AND user_id = ?2) AS present`,
    [savedItemId, userId],
  )
  return { any: Number(row?.present ?? 0) === 1, version: String(row?.version ?? '') }
}

/**
 * The person's highlights with these ids, as stored now (an id that is not one of theirs, or no longer there,
 * is left out): the changes feed reads a page's highlights so. `+user_id` keeps the lookup on the primary key
 * (as the feed's items query does): the ids drive it, never the person's whole index.
 */
export async function highlightsByIds(db: Database, userId: string, ids: string[]): Promise<StoredHighlight[]> {
  const rows = await readRows(
    db,
    `SELECT ${COLUMNS} FROM highlights h WHERE h.id IN (SELECT value FROM json_each(?)) AND +h.user_id = ?`,
    [JSON.stringify(ids), userId],
  )
  return rows.map(highlightOf)
}

/** One of the person's highlights as stored now, or null (a webhook message's body at its first attempt). */
export async function findHighlight(db: Database, userId: string, id: string): Promise<StoredHighlight | null> {
  const [row] = await readRows(db, `SELECT ${COLUMNS} FROM highlights h WHERE h.id = ? AND h.user_id = ?`, [id, userId])
  return row ? highlightOf(row) : null
}

/** A highlight with the item it belongs to, as the list of all of a person's highlights shows it. */
export interface ListedHighlight extends StoredHighlight {
  savedItem: { id: string; title: string | null; normalizedUrl: string }
}

/**
 * A page of the person's highlights, newest first (createdAt, then id, descending), after the keyset
 * `after` (the last of the previous page); `limit` null for all of them. One query, read backwards along
 * highlights_user_created_idx: a page costs its own rows, however deep it is.
 */
export async function highlightsPage(
  db: Database,
  userId: string,
  page: { limit: number | null; after: { createdAt: string; id: string } | null },
): Promise<{ highlights: ListedHighlight[]; hasMore: boolean }> {
  const after = page.after === null ? '' : 'AND (h.created_at, h.id) < (?, ?)'
  const rows = await readRows(
    db,
    `SELECT ${COLUMNS}, s.title AS item_title, s.normalized_url AS item_url
      FROM highlights h JOIN saved_items s ON s.id = h.saved_item_id
      WHERE h.user_id = ? ${after} ORDER BY h.created_at DESC, h.id DESC LIMIT ?`,
    [
      userId,
      ...(page.after === null ? [] : [page.after.createdAt, page.after.id]),
      page.limit === null ? -1 : page.limit + 1,
    ],
  )
  const hasMore = page.limit !== null && rows.length > page.limit
  return {
    highlights: (hasMore ? rows.slice(0, page.limit!) : rows).map((row) => ({
      ...highlightOf(row),
      savedItem: {
        id: String(row.saved_item_id),
        title: row.item_title === null || row.item_title === undefined ? null : String(row.item_title),
        normalizedUrl: String(row.item_url),
      },
    })),
    hasMore,
  }
}

/**
 * Sets a highlight's colour and/or note (absent: kept) and answers it as stored; null when the person has
 * no such highlight. `updated_at` moves only when a value does, decided in the statement itself so
 * concurrent requests agree (docs/api.md#no-op-writes).
 */
export function changeHighlight(
  db: Database,
  userId: string,
  id: string,
  change: { color?: HighlightColor; note?: string | null },
  now: string,
): Promise<StoredHighlight | null> {
  const color = change.color ?? null
  const setNote = 'note' in change ? 1 : 0
  const note = change.note ?? null
  return runProgram(db, function* () {
    const [row] = (yield {
      all: `UPDATE highlights SET
          color = coalesce(?, color),
          note = CASE WHEN ? THEN ? ELSE note END,
          updated_at = CASE WHEN coalesce(?, color) = color AND (CASE WHEN ? THEN ? ELSE note END) IS note
            THEN updated_at ELSE ? END
        WHERE id = ? AND user_id = ?
        RETURNING ${COLUMN_NAMES.join(', ')}`,
      args: [color, setNote, note, color, setNote, note, now, id, userId],
    }) as Record<string, unknown>[]
    return row ? highlightOf(row) : null
  })
}

/** Deletes one of the person's highlights; false when they have no such highlight. */
export function removeHighlight(db: Database, userId: string, id: string): Promise<boolean> {
  return runProgram(db, function* () {
    const changed = (yield { run: 'DELETE FROM highlights WHERE id = ? AND user_id = ?', args: [id, userId] }) as number
    return changed > 0
  })
}

/**
 * Anchors every highlight of an item again in its newly extracted text (null: the item has no article any
 * more), as statements of the article's own write (docs/highlights.md#re-anchoring): the positions are
 * computed by core's `reanchorQuotes` between reading the highlights and writing those that moved, in the
 * same transaction, so a highlight is never anchored in a text that is not the stored one. A highlight whose
 * position changes gets `updated_at = now`; its quote, colour and note never change. Returns how many moved.
 */
export function* reanchorItemHighlights(
  itemId: string,
  text: string | null,
  now: string,
): Generator<Op, number, unknown> {
  const rows = (yield {
    all: `SELECT h.id, h.exact, h.prefix, h.suffix, h.start, h."end" FROM highlights h WHERE h.saved_item_id = ?
      ORDER BY h.start, h."end", h.created_at, h.id`,
    args: [itemId],
  }) as Record<string, unknown>[]
  if (rows.length === 0) return 0
  const targets = rows.map((row) => ({
    quote: { exact: String(row.exact), prefix: String(row.prefix), suffix: String(row.suffix) },
    position: row.start === null || row.start === undefined ? null : { start: Number(row.start), end: Number(row.end) },
  }))
  const positions: (TextPosition | null)[] = text === null ? targets.map(() => null) : reanchorQuotes(text, targets)
  let moved = 0
  for (const [i, target] of targets.entries()) {
    const next = positions[i]!
    const previous = target.position
    if (previous === null ? next === null : next !== null && next.start === previous.start && next.end === previous.end)
      continue
    moved++
    yield {
      run: 'UPDATE highlights SET start = ?, "end" = ?, updated_at = ? WHERE id = ?',
      args: [next?.start ?? null, next?.end ?? null, now, rows[i]!.id],
    }
  }
  return moved
}

/**
 * How many highlights each of these items of the person has (items without any are absent): the export
 * reads their highlights in groups of a bounded size (docs/import-export.md#export). One query along
 * highlights_item_text_idx.
 */
export async function highlightCounts(
  db: Database,
  userId: string,
  itemIds: readonly string[],
): Promise<Map<string, number>> {
  if (itemIds.length === 0) return new Map()
  const rows = await readRows(
    db,
    `SELECT h.saved_item_id AS item, count(*) AS n FROM highlights h
      WHERE h.saved_item_id IN (SELECT value FROM json_each(?)) AND h.user_id = ? GROUP BY h.saved_item_id`,
    [JSON.stringify(itemIds), userId],
  )
  return new Map(rows.map((row) => [String(row.item), Number(row.n)]))
}

/**
 * The highlights of these items of the person, each item's in text order (as {@link itemHighlights}),
 * in one query.
 */
export async function highlightsOfItems(
  db: Database,
  userId: string,
  itemIds: readonly string[],
): Promise<Map<string, StoredHighlight[]>> {
  const found = new Map<string, StoredHighlight[]>()
  if (itemIds.length === 0) return found
  const rows = await readRows(
    db,
    `SELECT ${COLUMNS} FROM highlights h
      WHERE h.saved_item_id IN (SELECT value FROM json_each(?)) AND h.user_id = ?
      ORDER BY h.saved_item_id, h.start IS NULL, h.start, h."end", h.created_at, h.id`,
    [JSON.stringify(itemIds), userId],
  )
  for (const row of rows) {
    const highlight = highlightOf(row)
    const list = found.get(highlight.savedItemId)
    if (list) list.push(highlight)
    else found.set(highlight.savedItemId, [highlight])
  }
  return found
}
