import { FUZZY_BUDGET } from '../../core/highlights/anchor.ts'
import { MAX_HIGHLIGHTS_PER_ITEM } from '../../core/highlights/highlight.ts'
import { placeImportedHighlights } from '../../core/import/highlights.ts'
import type { ImportBatchRows, ImportItemRow } from '../../core/import/rows.ts'
import type { ImportEntryError, ImportFormat } from '../../core/import/types.ts'
import type { Database } from './open-database.ts'
import { type Op, runProgram } from './program.ts'
import { readRows as rows } from './read-rows.ts'

/** An import as stored (docs/import-export.md#jobs), without its file. */
export interface ImportRecord {
  id: string
  userId: string
  format: ImportFormat
  status: 'queued' | 'running' | 'done' | 'failed'
  total: number
  processed: number
  created: number
  updated: number
  skipped: number
  folderNames: string[]
  droppedTags: string[]
  errors: ImportEntryError[]
  failure: string | null
  createdAt: string
  finishedAt: string | null
}

/** A claimed import: the record, and the lease this claim holds. */
export interface ClaimedImport {
  record: ImportRecord
  leaseUntilMs: number
}

/** One entry of a batch, ready to write (core/import/rows.ts). */
export type ImportRow = ImportItemRow

/** A folder a batch names: created when the person has none by that key, else reused (core/import/rows.ts). */
export type ImportFolder = ImportBatchRows['folders'][number]

/** Where the import stands after a batch: written whole with the batch, in its transaction. */
export type ImportProgress = Pick<
  ImportRecord,
  'processed' | 'created' | 'updated' | 'skipped' | 'folderNames' | 'droppedTags' | 'errors'
>

const COLUMNS = `id, user_id AS userId, format, status, total, processed, created, updated, skipped,
  folder_names AS folderNames, dropped_tags AS droppedTags, errors, failure, created_at AS createdAt, finished_at AS finishedAt`

function recordOf(row: Record<string, unknown>): ImportRecord {
  return {
    id: row.id as string,
    userId: row.userId as string,
    format: row.format as ImportFormat,
    status: row.status as ImportRecord['status'],
    total: Number(row.total),
    processed: Number(row.processed),
    created: Number(row.created),
    updated: Number(row.updated),
    skipped: Number(row.skipped),
    folderNames: JSON.parse(row.folderNames as string),
    droppedTags: JSON.parse(row.droppedTags as string),
    errors: JSON.parse(row.errors as string),
    failure: (row.failure as string | null) ?? null,
    createdAt: row.createdAt as string,
    finishedAt: (row.finishedAt as string | null) ?? null,
  }
}

/** A queued import and its file, in one transaction (the file kept apart: see `import_files` in schema.ts). */
export async function insertImport(
  db: Database,
  record: Pick<ImportRecord, 'id' | 'userId' | 'format' | 'total' | 'createdAt'>,
  file: Uint8Array,
): Promise<ImportRecord> {
  return runProgram(db, function* () {
    const [row] = (yield {
      all: `INSERT INTO imports (id, user_id, format, status, total, processed, created, updated, skipped, folder_names,
         dropped_tags, errors, created_at) VALUES (?, ?, ?, 'queued', ?, 0, 0, 0, 0, '[]', '[]', '[]', ?)
       RETURNING ${COLUMNS}`,
      args: [record.id, record.userId, record.format, record.total, record.createdAt],
    }) as Record<string, unknown>[]
    yield { run: 'INSERT INTO import_files (import_id, file) VALUES (?, ?)', args: [record.id, file] }
    return recordOf(row!)
  })
}

/** One import of a person, or null (another person's import is null too). */
export async function findImport(db: Database, userId: string, id: string): Promise<ImportRecord | null> {
  const [row] = await rows(db, `SELECT ${COLUMNS} FROM imports WHERE id = ? AND user_id = ?`, [id, userId])
  return row ? recordOf(row) : null
}

/** How many of a person's imports are queued or running (docs/import-export.md#imports: at most 3). */
export async function countUnfinishedImports(db: Database, userId: string): Promise<number> {
  const [row] = await rows(
    db,
    "SELECT count(*) AS unfinished FROM imports WHERE user_id = ? AND status IN ('queued', 'running')",
    [userId],
  )
  return Number(row?.unfinished ?? 0)
}

/** A person's imports, newest first. */
export async function listImports(db: Database, userId: string, limit = 100): Promise<ImportRecord[]> {
  const found = await rows(
    db,
    `SELECT ${COLUMNS} FROM imports WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    [userId, limit],
  )
  return found.map(recordOf)
}

/**
 * Takes the oldest import that is queued, or running under a lease that ran out (its process died), and
 * holds it until `leaseUntilMs` (with `onlyId`, that import or none: the CLI runs its own). One UPDATE … RETURNING: two processes never claim the same import.
 */
export async function claimImport(
  db: Database,
  nowMs: number,
  leaseUntilMs: number,
  onlyId: string | null = null,
): Promise<ClaimedImport | null> {
  const free = '(lease_until_ms IS NULL OR lease_until_ms <= ?)'
  // Read first: every process polls, and an UPDATE that matches nothing still takes the write lock.
  const [waiting] = await rows(
    db,
    `SELECT 1 AS waiting FROM imports WHERE status IN ('queued', 'running') AND ${free} AND (? IS NULL OR id = ?) LIMIT 1`,
    [nowMs, onlyId, onlyId],
  )
  if (!waiting) return null
  const [row] = await rows(
    db,
    `UPDATE imports SET status = 'running', lease_until_ms = ?
     WHERE id = (SELECT id FROM imports WHERE status IN ('queued', 'running') AND ${free} AND (? IS NULL OR id = ?)
                 ORDER BY created_at, id LIMIT 1)
       AND ${free}
     RETURNING ${COLUMNS}`,
    [leaseUntilMs, nowMs, onlyId, onlyId, nowMs],
  )
  if (!row) return null
  return { record: recordOf(row), leaseUntilMs }
}

/** An import's file as uploaded (empty once the job has ended): read only when a job must read it again. */
export async function importFile(db: Database, id: string): Promise<Uint8Array> {
  const [stored] = await rows(db, 'SELECT file FROM import_files WHERE import_id = ?', [id])
  return new Uint8Array((stored?.file ?? new Uint8Array()) as ArrayBufferLike)
}

/** Ends an import that cannot go on (its file no longer reads), while the claim still holds it. */
export async function failImport(db: Database, claim: ClaimedImport, failure: string, now: string): Promise<void> {
  const [failed] = await rows(
    db,
    // The reason is also listed as an error of line 0 (the file as a whole), so the API and the pages show it.
    `UPDATE imports SET status = 'failed', failure = ?, lease_until_ms = NULL, finished_at = ?,
       errors = json_insert(errors, '$[#]', json_object('line', 0, 'message', ?))
     WHERE id = ? AND lease_until_ms = ? RETURNING id`,
    [failure, now, failure, claim.record.id, claim.leaseUntilMs],
  )
  if (failed) await rows(db, 'DELETE FROM import_files WHERE import_id = ? RETURNING import_id', [claim.record.id])
}

/**
 * Holds a claim longer (a job waiting on its file's thread, docs/import-export.md#jobs): true when the
 * claim still held the import, and then `claim` carries the new lease.
 */
export async function renewImportLease(db: Database, claim: ClaimedImport, leaseUntilMs: number): Promise<boolean> {
  const [renewed] = await rows(
    db,
    "UPDATE imports SET lease_until_ms = ? WHERE id = ? AND lease_until_ms = ? AND status = 'running' RETURNING id",
    [leaseUntilMs, claim.record.id, claim.leaseUntilMs],
  )
  if (renewed) claim.leaseUntilMs = leaseUntilMs
  return renewed !== undefined
}

/** Lets go of a claim (a process stopping between batches): another process, or this one restarted, resumes at once. */
export async function releaseImport(db: Database, claim: ClaimedImport): Promise<void> {
  await rows(db, 'UPDATE imports SET lease_until_ms = NULL WHERE id = ? AND lease_until_ms = ? RETURNING id', [
    claim.record.id,
    claim.leaseUntilMs,
  ])
}

/** The claim was lost (another process took the import over): this batch is not written. */
export class ImportLeaseLostError extends Error {
  readonly _tag = 'ImportLeaseLostError'
}

/** What one batch wrote. */
export interface BatchOutcome {
  created: number
  updated: number
  /** The names of the batch's folders as stored (an existing folder keeps its own name). */
  folderNames: string[]
  /** Highlights written, and those found already on their item (a file imported again). */
  highlights: number
  /** Highlights left out when they were placed (their item would pass the most it may have), by entry line. */
  notes: ImportEntryError[]
}

/**
 * One batch of entries in ONE transaction (docs/import-export.md#jobs): the folders it names, its items
 * (inserted, or merged into the person's item with the same normalized URL), their enrichment at import
 * priority, and the import's progress, written only while this claim still holds the import and no
 * other batch was written since (`processed` as read): a crash or a lost lease leaves none of it.
 */
export async function writeImportBatch(
  db: Database,
  claim: ClaimedImport,
  batch: { rows: ImportRow[]; folders: ImportFolder[]; now: string; nextLeaseUntilMs: number },
  progress: (outcome: BatchOutcome) => ImportProgress & { done: boolean },
): Promise<BatchOutcome & { progress: ImportProgress & { done: boolean } }> {
  return runProgram(db, () => batchProgram(claim, batch, progress))
}

// Stored tags keep their order; the entry's tags not yet present are appended (as a recapture does).
const MERGED_TAGS = `(SELECT json_group_array(value) FROM (
  SELECT value FROM json_each(saved_items.tags)
  UNION ALL
  SELECT value FROM json_each(excluded.tags) WHERE value NOT IN (SELECT value FROM json_each(saved_items.tags))))`
// Whether the merge changes anything: an import of what is already saved leaves updatedAt alone.
const CHANGES = `excluded.created_at < saved_items.created_at OR excluded.last_saved_at > saved_items.last_saved_at
  OR excluded.is_read > saved_items.is_read OR (saved_items.title IS NULL AND excluded.title IS NOT NULL)
  OR (excluded.folder_id IS NOT NULL AND excluded.folder_id IS NOT saved_items.folder_id)
  OR EXISTS (SELECT 1 FROM json_each(excluded.tags) WHERE value NOT IN (SELECT value FROM json_each(saved_items.tags)))`

const INSERT_FOLDERS = `INSERT INTO folders (id, user_id, name, name_key, created_at, updated_at)
  SELECT f.value ->> 'id', ?, f.value ->> 'name', f.value ->> 'key', ?, ? FROM json_each(?) f WHERE true
  ON CONFLICT (user_id, name_key) DO NOTHING`
const FOLDER_NAMES = `SELECT name FROM folders WHERE user_id = ? AND name_key IN (SELECT value FROM json_each(?))`
// Each entry as a capture with its history (docs/import-export.md#entries): a new item keeps the file's
// times, read state, folder and tags; a known URL is merged: the earlier createdAt, the later lastSavedAt,
// never read → unread, tags added, the folder set when the entry names one.
const UPSERT_ITEMS = `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags,
    enrichment_status, capture_channel, folder_id, is_read, last_saved_at, created_at, updated_at)
  SELECT e.value ->> 'id', ?1, e.value ->> 'url', e.value ->> 'normalizedUrl', e.value ->> 'host', e.value ->> 'title',
    e.value ->> 'type', json(e.value ->> 'tags'), 'pending', 'api', f.id, e.value ->> 'isRead',
    e.value ->> 'lastSavedAt', e.value ->> 'createdAt', ?2
  FROM json_each(?3) e LEFT JOIN folders f ON f.user_id = ?1 AND f.name_key = e.value ->> 'folderKey'
  WHERE true
  ON CONFLICT (user_id, normalized_url) DO UPDATE SET
    created_at = min(saved_items.created_at, excluded.created_at),
    last_saved_at = max(saved_items.last_saved_at, excluded.last_saved_at),
    is_read = max(saved_items.is_read, excluded.is_read),
    title = coalesce(saved_items.title, excluded.title),
    tags = ${MERGED_TAGS},
    folder_id = coalesce(excluded.folder_id, saved_items.folder_id),
    updated_at = CASE WHEN ${CHANGES} THEN excluded.updated_at ELSE saved_items.updated_at END
  RETURNING id`
// New items were queued by the insert trigger at live priority: imported ones wait behind live work and
// backfills, and carry their host for the per-host cap (docs/import-export.md#enrichment).
const QUEUE_IMPORTED = `UPDATE enrichment_jobs SET priority = 2,
    host = (SELECT s.host FROM saved_items s WHERE s.id = enrichment_jobs.item_id)
  WHERE item_id IN (SELECT value FROM json_each(?)) AND attempts = 0 AND lease_until_ms IS NULL`
// The items of a batch's entries that bring highlights or a page, with their article's text if any.
const ITEMS_OF_URLS = `SELECT s.id AS id, s.normalized_url AS url, s.host AS host, c.text AS text,
    c.item_id IS NOT NULL AS hasArticle
  FROM saved_items s LEFT JOIN item_contents c ON c.item_id = s.id
  WHERE s.user_id = ? AND s.normalized_url IN (SELECT value FROM json_each(?))`
const ITEM_HIGHLIGHTS = 'SELECT id, exact, prefix, suffix, start, "end" FROM highlights WHERE saved_item_id = ?'
const INSERT_HIGHLIGHTS = `INSERT INTO highlights (id, user_id, saved_item_id, exact, prefix, suffix, start, "end", color, note,
    created_at, updated_at)
  SELECT h.value ->> 'id', ?, ?, h.value ->> 'exact', h.value ->> 'prefix', h.value ->> 'suffix', h.value ->> 'start',
    h.value ->> 'end', h.value ->> 'color', h.value ->> 'note', h.value ->> 'createdAt', h.value ->> 'updatedAt'
  FROM json_each(?) h WHERE true`
// A page brought with an entry is read by enrichment as a captured page is (docs/reading.md#page-capture),
// only for an item without an article; a page the person captured, waiting to be read, is kept.
const KEEP_PAGE = `INSERT INTO captured_pages (item_id, html, captured_at) VALUES (?, ?, ?)
  ON CONFLICT (item_id) DO NOTHING`
// An item already saved that has no article and no job waiting gets one, as imported items are queued.
const QUEUE_PAGE = `INSERT INTO enrichment_jobs (item_id, attempts, run_after_ms, lease_until_ms, last_error, created_at,
    priority, host) VALUES (?, 0, 0, NULL, NULL, ?, 2, ?)
  ON CONFLICT (item_id) DO NOTHING`
const WRITE_PROGRESS = `UPDATE imports SET processed = ?, created = ?, updated = ?, skipped = ?, folder_names = ?,
    dropped_tags = ?, errors = ?, status = ?, finished_at = ?, lease_until_ms = ?
  WHERE id = ? AND processed = ? AND lease_until_ms = ?`
// A finished import's file goes: it was kept only so a crash could resume the job.
const DROP_FILE = 'DELETE FROM import_files WHERE import_id = ?'

/**
 * The highlights and pages of a batch's entries, on their items as just written (docs/import-export.md#highlights):
 * each entry's highlights are placed by core's `placeImportedHighlights` against the item's article text
 * and the highlights it already has (read here, in the batch's transaction, so the text is the stored one
 * and a second import of the same file finds the first one's), the approximate search of the whole batch
 * sharing one budget; an entry's page is kept for an item that has no article yet.
 */
function* placeBatchExtras(
  userId: string,
  rows: readonly ImportRow[],
  now: string,
): Generator<Op, { highlights: number; notes: ImportEntryError[] }, unknown> {
  const extras = rows.filter((row) => row.highlights.length > 0 || row.page !== null)
  const notes: ImportEntryError[] = []
  let written = 0
  if (extras.length === 0) return { highlights: 0, notes }
  const items = (yield {
    all: ITEMS_OF_URLS,
    args: [userId, JSON.stringify([...new Set(extras.map((row) => row.normalizedUrl))])],
  }) as Record<string, unknown>[]
  const byUrl = new Map(items.map((item) => [String(item.url), item]))
  const budget = { remaining: FUZZY_BUDGET }
  for (const row of extras) {
    const item = byUrl.get(row.normalizedUrl)
    if (!item) continue
    const itemId = String(item.id)
    const hasArticle = Number(item.hasArticle) === 1
    if (row.highlights.length > 0) {
      const existing = (yield { all: ITEM_HIGHLIGHTS, args: [itemId] }) as Record<string, unknown>[]
      const placed = placeImportedHighlights(
        hasArticle ? String(item.text) : null,
        existing.map((h) => ({
          id: String(h.id),
          quote: { exact: String(h.exact), prefix: String(h.prefix), suffix: String(h.suffix) },
          position: h.start === null || h.start === undefined ? null : { start: Number(h.start), end: Number(h.end) },
        })),
        row.highlights,
        budget,
      )
      if (placed.insert.length > 0) {
        const values = placed.insert.map(({ highlight, quote, position }) => ({
          id: highlight.id,
          exact: quote.exact,
          prefix: quote.prefix,
          suffix: quote.suffix,
          start: position?.start ?? null,
          end: position?.end ?? null,
          color: highlight.color,
          note: highlight.note,
          createdAt: highlight.createdAt,
          updatedAt: highlight.updatedAt,
        }))
        yield { run: INSERT_HIGHLIGHTS, args: [userId, itemId, JSON.stringify(values)] }
        written += values.length
      }
      if (placed.overLimit > 0)
        notes.push({
          line: row.line,
          message: `${placed.overLimit} of its highlights were not imported: the item has the ${MAX_HIGHLIGHTS_PER_ITEM.toLocaleString('en-US')} highlights an item may have`,
        })
    }
    if (row.page !== null && !hasArticle) {
      yield { run: KEEP_PAGE, args: [itemId, row.page, now] }
      yield { run: QUEUE_PAGE, args: [itemId, now, String(item.host)] }
    }
  }
  return { highlights: written, notes }
}

function* batchProgram(
  claim: ClaimedImport,
  batch: { rows: ImportRow[]; folders: ImportFolder[]; now: string; nextLeaseUntilMs: number },
  progress: (outcome: BatchOutcome) => ImportProgress & { done: boolean },
): Generator<Op, BatchOutcome & { progress: ImportProgress & { done: boolean } }, unknown> {
  const userId = claim.record.userId
  let folderNames: string[] = []
  if (batch.folders.length > 0) {
    yield { run: INSERT_FOLDERS, args: [userId, batch.now, batch.now, JSON.stringify(batch.folders)] }
    const named = (yield {
      all: FOLDER_NAMES,
      args: [userId, JSON.stringify(batch.folders.map((f) => f.key))],
    }) as Record<string, unknown>[]
    folderNames = named.map((row) => row.name as string)
  }
  let created = 0
  let updated = 0
  if (batch.rows.length > 0) {
    // The item's own columns only: highlights and a page are written after, for the items they are on.
    const values = batch.rows.map(({ highlights: _h, page: _p, line: _l, ...row }) => ({
      ...row,
      tags: JSON.stringify(row.tags),
      isRead: row.isRead ? 1 : 0,
    }))
    const returned = (yield { all: UPSERT_ITEMS, args: [userId, batch.now, JSON.stringify(values)] }) as Record<
      string,
      unknown
    >[]
    const fresh = new Set(batch.rows.map((row) => row.id))
    const createdIds = new Set<string>()
    for (const row of returned) if (fresh.has(row.id as string)) createdIds.add(row.id as string)
    created = createdIds.size
    updated = returned.length - created
    if (createdIds.size > 0) yield { run: QUEUE_IMPORTED, args: [JSON.stringify([...createdIds])] }
  }
  const placed = yield* placeBatchExtras(userId, batch.rows, batch.now)
  const outcome = { created, updated, folderNames, ...placed }
  const next = progress(outcome)
  const changed = (yield {
    run: WRITE_PROGRESS,
    args: [
      next.processed,
      next.created,
      next.updated,
      next.skipped,
      JSON.stringify(next.folderNames),
      JSON.stringify(next.droppedTags),
      JSON.stringify(next.errors),
      next.done ? 'done' : 'running',
      next.done ? batch.now : null,
      next.done ? null : batch.nextLeaseUntilMs,
      claim.record.id,
      claim.record.processed,
      claim.leaseUntilMs,
    ],
  }) as number
  if (changed !== 1) throw new ImportLeaseLostError(`import ${claim.record.id}: the claim no longer holds it`)
  if (next.done) yield { run: DROP_FILE, args: [claim.record.id] }
  return { ...outcome, progress: next }
}
