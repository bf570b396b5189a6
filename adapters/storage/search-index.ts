import { sql } from 'drizzle-orm'
import type { Database } from './open-database.ts'
import { runProgram } from './program.ts'

/** Items indexed per transaction at most: FTS5 pays a fixed cost per commit, so rows go in batches. */
export const INDEX_BATCH = 500
/**
 * Words indexed per transaction at most (an item's article counts up to {@link BODY_INDEX_CHARS}; the
 * first item always goes): indexing runs about a microsecond a word on the serving thread, so a batch
 * holds it for some 20 ms at most, whatever the articles' sizes.
 */
export const INDEX_BATCH_WORDS = 20_000
/** How much of an article's text is indexed: its first 64 Ki characters (some 10,000 words). */
export const BODY_INDEX_CHARS = 65_536
/** How much of an item's highlights (quotes and notes) is indexed: the first 64 Ki characters of them. */
export const HIGHLIGHTS_INDEX_CHARS = 65_536

/**
 * An item's highlights as indexed text (docs/search.md#index), as SQL over the item id `itemId` (an SQL
 * expression): each highlight's quote (`exact`), then its note, one per line, in the item's text order,
 * the first {@link HIGHLIGHTS_INDEX_CHARS} characters; null for an item without highlights. The indexer
 * and the search's snippets (adapters/storage/search.ts) read the same text. The order is that of
 * highlights_item_text_idx, so SQLite reads it off the index without sorting.
 */
export const highlightsTextSql = (itemId: string): string =>
  `substr((SELECT group_concat(t, char(10)) FROM (SELECT h.exact || coalesce(char(10) || h.note, '') AS t
    FROM highlights h WHERE h.saved_item_id = ${itemId} ORDER BY h.start, h."end", h.created_at, h.id)), 1, ${HIGHLIGHTS_INDEX_CHARS})`

// The batch: the first due items, up to INDEX_BATCH of them and INDEX_BATCH_WORDS words (counted from
// the stored word count, without reading the text, and from the highlights' lengths). One more row than a
// batch is read, to tell whether the batch takes every item due. The batch's ids are read once and handed
// to each step as a JSON array.
const PICK = `SELECT p.item_id AS id, c.word_count AS words,
    (SELECT sum(length(h.exact) + coalesce(length(h.note), 0)) FROM highlights h WHERE h.saved_item_id = p.item_id) AS marked
  FROM search_pending p LEFT JOIN item_contents c ON c.item_id = p.item_id ORDER BY p.item_id LIMIT ${INDEX_BATCH + 1}`
/** Where each step names the batch: its one parameter, the ids as a JSON array. */
const BATCH = '(SELECT value FROM json_each(?))'
/** Document numbers per person: a person's items are numbered from `slot << DOC_BITS` (docs/search.md#index). */
export const DOC_BITS = 32
const RANGE = `(o.slot << ${DOC_BITS})`
const STEPS = [
  // The rows of items indexed before (changed since): gone first, so a new item, which has no number
  // yet, costs the contentless index no lookup.
  `DELETE FROM search_index WHERE rowid IN (SELECT doc FROM search_docs WHERE item_id IN ${BATCH})`,
  // A range for every person with an item in the batch who has none yet.
  `INSERT INTO search_owners (user_id) SELECT DISTINCT s.user_id FROM saved_items s WHERE s.id IN ${BATCH}
   ON CONFLICT DO NOTHING`,
  // A number for every item that has none yet (a new item; an item deleted meanwhile gets none): after the
  // highest in its owner's range. SQLite reads the whole SELECT before the first row goes in, so the
  // numbers of one batch follow each other. A range full (2^32 items ever indexed for one person) leaves
  // the item unindexed rather than spill into the next person's range.
  `INSERT INTO search_docs (doc, item_id)
   SELECT doc, item_id FROM (
     SELECT coalesce((SELECT d.doc FROM search_docs d WHERE d.doc BETWEEN ${RANGE} AND ${RANGE} + ${2 ** DOC_BITS - 1} ORDER BY d.doc DESC LIMIT 1), ${RANGE})
         + row_number() OVER (PARTITION BY o.slot ORDER BY s.id) AS doc,
       s.id AS item_id, ${RANGE} + ${2 ** DOC_BITS - 1} AS last
     FROM saved_items s JOIN search_owners o ON o.user_id = s.user_id
     WHERE s.id IN ${BATCH} AND NOT EXISTS (SELECT 1 FROM search_docs d WHERE d.item_id = s.id)
   ) WHERE doc <= last`,
  `INSERT INTO search_index (rowid, title, description, site_name, host, url, summary, source_name, body, highlights)
   SELECT d.doc, s.title, s.description, s.site_name, s.host, s.normalized_url, s.preview_summary, s.source_name,
     substr(c.text, 1, ${BODY_INDEX_CHARS}), ${highlightsTextSql('s.id')}
   FROM search_docs d JOIN saved_items s ON s.id = d.item_id LEFT JOIN item_contents c ON c.item_id = s.id
   WHERE d.item_id IN ${BATCH}`,
  `DELETE FROM search_pending WHERE item_id IN ${BATCH}`,
]

const anyDue = sql`SELECT 1 AS due FROM search_pending LIMIT 1`

/**
 * Brings the full-text index up to date with every change committed before it began (docs/search.md#index):
 * the triggers only mark an item due (one small write on the capture path), and this indexes due items, a
 * batch per transaction, until a batch takes every item still due. It does not chase items that arrive
 * meanwhile: under a stream of captures, a batch per group commit would index a handful of items at a
 * time, and FTS5 pays a fixed cost per transaction (batches of 17 items cost captures 40% of their rate).
 * A search runs it first, so it never reads a stale index; each server process also runs it in the
 * background (`startSearchIndexer`, adapters/jobs/search-indexer.ts), which lets the next items gather
 * into a batch. Two processes may run it at once: SQLite serializes their transactions, and indexing an
 * item twice leaves one row.
 * Returns how many items were indexed (or removed).
 */
export async function catchUpSearchIndex(db: Database): Promise<number> {
  if ((await db.all(anyDue)).length === 0) return 0
  let total = 0
  for (;;) {
    const { indexed, more } = await indexBatch(db)
    total += indexed
    if (!more) return total
  }
}

type Picked = { id: string; words: number | null; marked: number | null }[]

/** Characters per word, to count a highlight's text in words without reading it. */
const CHARS_PER_WORD = 6

/**
 * The batch's ids out of the picked rows (an item counts its article's words up to 10,000, its highlights'
 * as much as is indexed, plus 50 for the rest; the first item always goes), and whether items past it are due.
 */
function batchOf(rows: Picked): { ids: string; more: boolean } {
  let n = 0
  let words = 0
  while (n < rows.length && n < INDEX_BATCH && (n === 0 || words < INDEX_BATCH_WORDS)) {
    const row = rows[n]!
    words += Math.min(Number(row.words ?? 0), 10_000) + 50
    words += Math.ceil(Math.min(Number(row.marked ?? 0), HIGHLIGHTS_INDEX_CHARS) / CHARS_PER_WORD)
    n++
  }
  return { ids: JSON.stringify(rows.slice(0, n).map((row) => row.id)), more: rows.length > n }
}

/** One batch in one transaction: how many items it took off the due list, and whether more are due. */
function indexBatch(db: Database): Promise<{ indexed: number; more: boolean }> {
  // Embedded, one job of the next group commit: it shares that transaction and its one fsync.
  return runProgram(db, function* () {
    const { ids, more } = batchOf((yield { all: PICK, args: [] }) as Picked)
    let indexed = 0
    // The last step (the due list's delete) counts the items the batch took.
    for (const step of STEPS) indexed = (yield { run: step, args: [ids] }) as number
    return { indexed, more }
  })
}
