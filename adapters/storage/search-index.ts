import { sql } from 'drizzle-orm'
import { groupCommitted } from './group-commit.ts'
import type { Database } from './open-database.ts'

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

// The batch: the first due items, up to INDEX_BATCH of them and INDEX_BATCH_WORDS words (counted from
// the stored word count, without reading the text). Each statement names it again; inside one transaction
// (and one synchronous run on the embedded connection) nothing changes search_pending in between.
const BATCH = `(SELECT item_id FROM (
    SELECT p.item_id, sum(min(coalesce(c.word_count, 0), 10000) + 50) OVER (ORDER BY p.item_id ROWS UNBOUNDED PRECEDING)
      - (min(coalesce(c.word_count, 0), 10000) + 50) AS words_before
    FROM search_pending p LEFT JOIN item_contents c ON c.item_id = p.item_id ORDER BY p.item_id LIMIT ${INDEX_BATCH}
  ) WHERE words_before < ${INDEX_BATCH_WORDS})`
/** Document numbers per person: a person's items are numbered from `slot << DOC_BITS` (docs/search.md#index). */
export const DOC_BITS = 32
const RANGE = `(o.slot << ${DOC_BITS})`
const STEPS = [
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
  `DELETE FROM search_index WHERE rowid IN (SELECT doc FROM search_docs WHERE item_id IN ${BATCH})`,
  `INSERT INTO search_index (rowid, title, description, site_name, host, url, summary, source_name, body)
   SELECT d.doc, s.title, s.description, s.site_name, s.host, s.normalized_url, s.preview_summary, s.source_name,
     substr(c.text, 1, ${BODY_INDEX_CHARS})
   FROM search_docs d JOIN saved_items s ON s.id = d.item_id LEFT JOIN item_contents c ON c.item_id = s.id
   WHERE d.item_id IN ${BATCH}`,
  `DELETE FROM search_pending WHERE item_id IN ${BATCH}`,
]

const anyDue = sql`SELECT 1 AS due FROM search_pending LIMIT 1`

/**
 * Brings the full-text index up to date with every committed change (docs/search.md#index): the triggers
 * only mark an item due (one small write on the capture path), and this indexes due items, a batch per
 * transaction, until none is left. A search runs it first, so it never reads a stale index; each
 * server process also runs it in the background ({@link startSearchIndexer}). Two processes may run it at
 * once: SQLite serializes their transactions, and indexing an item twice leaves one row. Returns how
 * many items were indexed (or removed).
 */
export async function catchUpSearchIndex(db: Database): Promise<number> {
  let total = 0
  for (;;) {
    if ((await db.all(anyDue)).length === 0) return total
    total += await indexBatch(db)
  }
}

async function indexBatch(db: Database): Promise<number> {
  const exec = db.$exec
  if (exec) {
    // Embedded: one job of the next group commit, so it shares that transaction and its one fsync.
    return groupCommitted(db, () => {
      const last = STEPS.map((step) => (db as unknown as { run(q: unknown): unknown }).run(sql.raw(step)))
      return changesOf(last.at(-1))
    })
  }
  return db.transaction(async (tx) => {
    let last: unknown
    for (const step of STEPS) last = await tx.run(sql.raw(step))
    return changesOf(last)
  })
}

/** Rows a write changed, as each driver reports it. */
function changesOf(result: unknown): number {
  const r = result as { changes?: number | bigint; rowsAffected?: number }
  return Number(r.changes ?? r.rowsAffected ?? 0)
}

export interface SearchIndexer {
  stop(): void
}

/**
 * Catches the index up every `intervalMs` in the background, so a burst of captures is indexed in
 * batches soon after, not by the next search. Failures are reported and retried on the next tick.
 */
export function startSearchIndexer(db: Database, onError: (error: unknown) => void, intervalMs = 250): SearchIndexer {
  let running = false
  const timer = setInterval(async () => {
    if (running) return
    running = true
    try {
      await catchUpSearchIndex(db)
    } catch (error) {
      onError(error)
    } finally {
      running = false
    }
  }, intervalMs)
  ;(timer as { unref?: () => void }).unref?.()
  return { stop: () => clearInterval(timer) }
}
