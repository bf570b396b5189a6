import { and, eq, fillPlaceholders, sql, type SQL } from 'drizzle-orm'
import { FolderNotFoundError, SavedItemNotFoundError } from '../../core/errors.ts'
import type { PreparedCapture } from '../../core/items/capture.ts'
import { SORT_KEYS, type CursorValues, type SortKey } from '../../core/items/list-order.ts'
import type { SavedItem, Sort, Tag } from '../../core/types.ts'
import type { Database } from './open-database.ts'
import { folders, savedItems } from './schema.ts'
import { preparedPer } from './prepared.ts'
import { andThen, type MaybePromise } from '../../core/at-once.ts'
import { groupCommitted } from './group-commit.ts'
import { keepCapturedPage, keepCapturedPageQuery, queueCapturedPage, queueCapturedPageQuery } from './reading.ts'
import type { SavedItemDto } from '../../core/items/saved-item-dto.ts'
import {
  ITEM_FIELDS,
  itemFromNamedRow,
  ITEM_LINE,
  WIRE_JSON,
  itemFromRow,
  itemOfFirstSave,
  SORT_KEY_COLUMN,
  type NamedRow,
  type RawRow,
} from './saved-item-rows.ts'
import { readRows } from './read-rows.ts'

const isForeignKeyViolation = (error: unknown): boolean =>
  /FOREIGN KEY constraint failed/.test(String((error as { cause?: unknown })?.cause ?? error))

const folderOfPerson = preparedPer((db) =>
  db
    .select({ id: folders.id })
    .from(folders)
    .where(and(eq(folders.id, sql.placeholder('folderId')), eq(folders.userId, sql.placeholder('userId'))))
    .prepare(),
)

/** At once on an embedded file (core/at-once.ts). */
export function folderExists(db: Database, userId: string, folderId: string): MaybePromise<boolean> {
  return andThen(folderOfPerson(db).values({ folderId, userId }) as MaybePromise<unknown[]>, (rows) => rows.length > 0)
}

// Two statements, since whether a recapture replaces the stored channel depends on the request.
const upsertQuery = (db: Pick<Database, 'insert'>, row: typeof savedItems.$inferInsert, replaceChannel: boolean) =>
  db
    .insert(savedItems)
    .values(row)
    .onConflictDoUpdate({
      target: [savedItems.userId, savedItems.normalizedUrl],
      set: {
        lastSavedAt: sql`excluded.last_saved_at`,
        updatedAt: sql`excluded.updated_at`,
        isRead: false,
        sourceName: sql`coalesce(excluded.source_name, ${savedItems.sourceName})`,
        captureChannel: replaceChannel ? sql`excluded.capture_channel` : sql`${savedItems.captureChannel}`,
        // Stored tags keep their order; given tags not yet present are appended.
        tags: sql`(SELECT json_group_array(value) FROM (
        SELECT value FROM json_each(${savedItems.tags})
        UNION ALL
        SELECT value FROM json_each(excluded.tags) WHERE value NOT IN (SELECT value FROM json_each(${savedItems.tags}))))`,
        folderId: sql`coalesce(excluded.folder_id, ${savedItems.folderId})`,
        enrichmentStatus: sql`CASE ${savedItems.enrichmentStatus} WHEN 'failed' THEN 'pending' ELSE ${savedItems.enrichmentStatus} END`,
      },
      // Only the id comes back: libSQL pays per returned column, and the item is read with its folder next.
    })
    .returning({ id: savedItems.id })
const buildUpsert = (replaceChannel: boolean) =>
  preparedPer((db) => {
    const row = Object.fromEntries(
      UPSERT_COLUMNS.map((name) => [name, sql.placeholder(name)]),
    ) as unknown as typeof savedItems.$inferInsert
    return upsertQuery(db, row, replaceChannel).prepare()
  })
const UPSERT_COLUMNS = [
  'id',
  'userId',
  'originalUrl',
  'normalizedUrl',
  'host',
  'type',
  'tags',
  'enrichmentStatus',
  'sourceName',
  'captureChannel',
  'folderId',
  'isRead',
  'lastSavedAt',
  'createdAt',
  'updatedAt',
] as const
const upsertKeepingChannel = buildUpsert(false)
const upsertReplacingChannel = buildUpsert(true)

/**
 * Saves a URL for a person in ONE statement: insert, or on (person, normalizedUrl) conflict merge into the
 * stored row by the rule of mergeRecapture (core/items/capture.ts). SQLite serializes writers, so concurrent captures of one URL make one row.
 * The SQL merge is a speed twin of mergeRecapture, held equal to it by test/storage/protocol-ports.test.ts
 * (docs/benchmarks.md#speed-twins).
 */
export async function upsertCapture(
  db: Database,
  capture: PreparedCapture,
  page: string | null = null,
): Promise<{ created: boolean; item: SavedItem }> {
  const { row, explicitChannel } = capture
  const statement = (explicitChannel === null ? upsertKeepingChannel : upsertReplacingChannel)(db)
  // The page a capture brought goes in with the item, in one transaction: no worker can claim the job
  // before the page is there, so the URL is never fetched (docs/reading.md#page-capture).
  const pageValues =
    page === null ? null : { userId: row.userId, normalizedUrl: row.normalizedUrl, html: page, now: row.updatedAt }
  try {
    if (!db.$exec && pageValues) {
      const stored = await db.transaction(async (tx) => {
        const [upserted] = await upsertQuery(tx, row, explicitChannel !== null)
        await keepCapturedPageQuery(tx, pageValues)
        await queueCapturedPageQuery(tx, pageValues)
        return upserted
      })
      if (!stored) throw new Error('upsert returned no row')
      const item = await findSavedItem(db, row.userId, stored.id)
      if (!item) throw new SavedItemNotFoundError(stored.id)
      return { created: stored.id === row.id, item }
    }
    if (db.$exec) {
      // Embedded: the upsert and its read-back join this turn's group commit (docs/benchmarks.md#group-commit).
      return await groupCommitted(db, () => {
        const [stored] = statement.all({ ...row }) as unknown as { id: string }[]
        if (!stored) throw new Error('upsert returned no row')
        if (pageValues) {
          keepCapturedPage(db).run(pageValues)
          queueCapturedPage(db).run(pageValues)
        }
        const created = stored.id === row.id
        // A first save outside any folder stored exactly the row: nothing to read back. A recapture merged
        // into a stored row, and a folder brings its name, so those are read.
        if (created && row.folderId === null) return { created, item: itemOfFirstSave(row) }
        return { created, item: readItem(db, row.userId, stored.id) }
      })
    }
    const [stored] = await statement.all({ ...row })
    if (!stored) throw new Error('upsert returned no row')
    // Read after the atomic write: under concurrent recaptures this may already show a later save, never an older one.
    const item = await findSavedItem(db, row.userId, stored.id)
    if (!item) throw new SavedItemNotFoundError(stored.id) // deleted in between
    return { created: stored.id === row.id, item }
  } catch (error) {
    // The folder was checked just before; this is the race where it was deleted in between.
    if (row.folderId && isForeignKeyViolation(error)) throw new FolderNotFoundError(row.folderId)
    throw error
  }
}

/** The item as its write left it, read synchronously inside a group commit (embedded drivers only). */
function readItem(db: Database, userId: string, id: string): SavedItem {
  const [found] = itemOfPerson(db).values({ id, userId }) as unknown as RawRow[]
  if (!found) throw new SavedItemNotFoundError(id)
  return itemFromRow(found)
}

const itemOfPerson = preparedPer((db) =>
  db
    .select(ITEM_FIELDS)
    .from(savedItems)
    .leftJoin(folders, eq(folders.id, savedItems.folderId))
    .where(and(eq(savedItems.id, sql.placeholder('id')), eq(savedItems.userId, sql.placeholder('userId'))))
    .prepare(),
)

export async function findSavedItem(db: Database, userId: string, id: string): Promise<SavedItem | null> {
  const [found] = (await itemOfPerson(db).values({ id, userId })) as RawRow[]
  return found ? itemFromRow(found) : null
}

const itemOfPersonByUrl = preparedPer((db) =>
  db
    .select(ITEM_FIELDS)
    .from(savedItems)
    .leftJoin(folders, eq(folders.id, savedItems.folderId))
    .where(
      and(
        eq(savedItems.userId, sql.placeholder('userId')),
        eq(savedItems.normalizedUrl, sql.placeholder('normalizedUrl')),
      ),
    )
    .prepare(),
)

/** The person's item for a normalized URL (one at most: the pair is unique), by the capture index. */
export async function findSavedItemByUrl(
  db: Database,
  userId: string,
  normalizedUrl: string,
): Promise<SavedItem | null> {
  const [found] = (await itemOfPersonByUrl(db).values({ userId, normalizedUrl })) as RawRow[]
  return found ? itemFromRow(found) : null
}

export type ItemChange =
  | { kind: 'read-state'; isRead: boolean }
  | { kind: 'open' }
  | { kind: 'folder'; folderId: string | null }
  /** Replaces the set of tags (deduplicated, in the given order); the same set in another order is no change. */
  | { kind: 'tags'; tags: readonly Tag[] }

const sameTags = sql`((SELECT count(*) FROM json_each(${savedItems.tags})) = json_array_length(${sql.placeholder('tags')}) AND NOT EXISTS (SELECT 1 FROM json_each(${sql.placeholder('tags')}) AS given WHERE given.value NOT IN (SELECT value FROM json_each(${savedItems.tags}))))`

const ofPerson = and(eq(savedItems.id, sql.placeholder('id')), eq(savedItems.userId, sql.placeholder('userId')))

/**
 * One prepared UPDATE per kind of change; `updatedAt` moves only when a value of the item does, decided in
 * the statement itself so concurrent requests agree (docs/api.md#no-op-writes).
 */
const changeStatements = {
  // `openedAt` is recorded every time, but it is not part of the item as any client sees it: opening an
  // item already read is no change of it (no `updatedAt`, no feed entry, no webhook message).
  open: preparedPer((db) =>
    db
      .update(savedItems)
      .set({
        isRead: true,
        openedAt: sql`${sql.placeholder('now')}`,
        updatedAt: sql`CASE WHEN ${savedItems.isRead} = 1 THEN ${savedItems.updatedAt} ELSE ${sql.placeholder('now')} END`,
      })
      .where(ofPerson)
      .returning({ id: savedItems.id })
      .prepare(),
  ),
  'read-state': preparedPer((db) =>
    db
      .update(savedItems)
      .set({
        isRead: sql`${sql.placeholder('isRead')}`,
        updatedAt: sql`CASE WHEN ${savedItems.isRead} = ${sql.placeholder('isRead')} THEN ${savedItems.updatedAt} ELSE ${sql.placeholder('now')} END`,
      })
      .where(ofPerson)
      .returning({ id: savedItems.id })
      .prepare(),
  ),
  folder: preparedPer((db) =>
    db
      .update(savedItems)
      .set({
        folderId: sql`${sql.placeholder('folderId')}`,
        updatedAt: sql`CASE WHEN ${savedItems.folderId} IS ${sql.placeholder('folderId')} THEN ${savedItems.updatedAt} ELSE ${sql.placeholder('now')} END`,
      })
      .where(ofPerson)
      .returning({ id: savedItems.id })
      .prepare(),
  ),
  // Tags are a set: the stored and given sets are equal when they have as many values and every given one
  // is stored (both are free of duplicates). Then nothing is written, not even a new order.
  tags: preparedPer((db) =>
    db
      .update(savedItems)
      .set({
        tags: sql`CASE WHEN ${sameTags} THEN ${savedItems.tags} ELSE ${sql.placeholder('tags')} END`,
        updatedAt: sql`CASE WHEN ${sameTags} THEN ${savedItems.updatedAt} ELSE ${sql.placeholder('now')} END`,
      })
      .where(ofPerson)
      .returning({ id: savedItems.id })
      .prepare(),
  ),
}

/**
 * Applies one state change. `updatedAt` moves only when a value of the item actually changes
 * (docs/api.md#no-op-writes); opening always records the time in `openedAt`, which is no change of the item.
 */
export async function changeSavedItem(
  db: Database,
  userId: string,
  id: string,
  change: ItemChange,
  now: string,
): Promise<SavedItem> {
  if (change.kind === 'folder' && change.folderId !== null) {
    if (!(await findSavedItem(db, userId, id))) throw new SavedItemNotFoundError(id)
    if (!(await folderExists(db, userId, change.folderId))) throw new FolderNotFoundError(change.folderId)
  }
  const params = {
    id,
    userId,
    now,
    ...(change.kind === 'read-state' ? { isRead: change.isRead ? 1 : 0 } : {}),
    ...(change.kind === 'folder' ? { folderId: change.folderId } : {}),
    ...(change.kind === 'tags' ? { tags: JSON.stringify([...new Set(change.tags)]) } : {}),
  }
  const statement = changeStatements[change.kind](db)
  try {
    if (db.$exec) {
      // Embedded: the update and its read-back join this turn's group commit (docs/benchmarks.md#group-commit).
      return await groupCommitted(db, () => {
        if ((statement.all(params) as unknown as unknown[]).length === 0) throw new SavedItemNotFoundError(id)
        return readItem(db, userId, id)
      })
    }
    if ((await statement.all(params)).length === 0) throw new SavedItemNotFoundError(id)
  } catch (error) {
    if (change.kind === 'folder' && change.folderId && isForeignKeyViolation(error))
      throw new FolderNotFoundError(change.folderId)
    throw error
  }
  const item = await findSavedItem(db, userId, id)
  if (!item) throw new SavedItemNotFoundError(id)
  return item
}

export async function deleteSavedItem(db: Database, userId: string, id: string): Promise<void> {
  await db.delete(savedItems).where(and(eq(savedItems.id, id), eq(savedItems.userId, userId)))
}

const keyExpressions: Record<SortKey['field'], SQL> = {
  lastSavedAt: sql`${savedItems.lastSavedAt}`,
  id: sql`${savedItems.id}`,
  titleMissing: sql`(${savedItems.title} IS NULL)`,
  titleKey: sql`coalesce(lower(${savedItems.title}), '')`,
  isRead: sql`${savedItems.isRead}`,
}

/** Keyset condition "strictly after the cursor row" in the sort's total order. */
function afterCursor(keys: readonly SortKey[], values: readonly SQL[]): SQL {
  const alternatives = keys.map((key, i) => {
    const equalPrefix = keys.slice(0, i).map((k, j) => sql`${keyExpressions[k.field]} = ${values[j]}`)
    const beyond =
      key.direction === 'asc'
        ? sql`${keyExpressions[key.field]} > ${values[i]}`
        : sql`${keyExpressions[key.field]} < ${values[i]}`
    return sql`(${sql.join([...equalPrefix, beyond], sql` AND `)})`
  })
  return sql`(${sql.join(alternatives, sql` OR `)})`
}

export interface ListQuery {
  sort: Sort
  /** A folder id, 'none' for items in no folder, or null for all. */
  folder: string | null
  limit: number | null
  after: CursorValues | null
  /** Only unread or only read items; all when absent (the web queue's filters, docs/web.md#queue). */
  state?: ReadStateFilter
}

export type ReadStateFilter = 'all' | 'unread' | 'read'

type FolderFilter = 'all' | 'none' | 'one'

/**
 * One statement per (sort, folder filter, first page or not, read state, shape): its SQL text, built once,
 * with the person, folder, cursor values and page size as placeholders, so a page costs a bound execution
 * (the statement prepared once per text: `$all`), not a query build and a parse. Its rows are read as
 * objects (NamedRow).
 */
const listStatements = new Map<string, ReturnType<typeof buildList>>()

function buildList(
  db: Database,
  sort: Sort,
  folder: FolderFilter,
  withCursor: boolean,
  state: ReadStateFilter,
  fields: typeof ITEM_FIELDS | typeof JSON_FIELDS | typeof LINE_FIELDS,
) {
  const keys = SORT_KEYS[sort]
  const conditions: SQL[] = [sql`${savedItems.userId} = ${sql.placeholder('userId')}`]
  if (state !== 'all') conditions.push(sql`${savedItems.isRead} = ${state === 'read' ? 1 : 0}`)
  if (folder === 'none') conditions.push(sql`${savedItems.folderId} IS NULL`)
  if (folder === 'one') conditions.push(sql`${savedItems.folderId} = ${sql.placeholder('folder')}`)
  if (withCursor)
    conditions.push(
      afterCursor(
        keys,
        keys.map((_, i) => sql`${sql.placeholder(`c${i}`)}`),
      ),
    )
  const order = keys.map((k) =>
    k.direction === 'asc' ? sql`${keyExpressions[k.field]} ASC` : sql`${keyExpressions[k.field]} DESC`,
  )
  return db
    .select(
      sort === 'title' && fields === ITEM_FIELDS
        ? {
            ...fields,
            // The sort keys beyond the item's own fields, for the next cursor: the two columns after
            // `fields`. Only the title sort has them: computing them for every row of another sort cost a tenth
            // of an uncached list (docs/benchmarks.md#the-uncached-list).
            titleMissing: sql<number>`(${savedItems.title} IS NULL)`.as(SORT_KEY_COLUMN.titleMissing),
            titleKey: sql<string>`coalesce(lower(${savedItems.title}), '')`.as(SORT_KEY_COLUMN.titleKey),
          }
        : fields,
    )
    .from(savedItems)
    .leftJoin(folders, eq(folders.id, savedItems.folderId))
    .where(sql.join(conditions, sql` AND `))
    .orderBy(...order)
    .limit(sql.placeholder('limit'))
    .toSQL()
}

/** The one column of a JSON page's rows: the item as SQLite writes its wire shape (WIRE_JSON). */
const JSON_FIELDS = { j: sql<string>`${WIRE_JSON}`.as('j') }
/** A JSON page's rows with each item's line of MCP's text beside its JSON (ITEM_LINE). */
const LINE_FIELDS = { ...JSON_FIELDS, l: sql<string>`${ITEM_LINE}`.as('l') }

function listStatement(
  db: Database,
  sort: Sort,
  folder: FolderFilter,
  withCursor: boolean,
  state: ReadStateFilter,
  form: ListForm,
) {
  const key = `${sort}:${folder}:${withCursor}:${state}:${form}`
  let statement = listStatements.get(key)
  if (!statement) {
    const fields = form === 'item' ? ITEM_FIELDS : form === 'json' ? JSON_FIELDS : LINE_FIELDS
    statement = buildList(db, sort, folder, withCursor, state, fields)
    // A JSON page is its rows' objects joined into one string by SQLite. The rows reach the aggregate in the
    // page's order: SQLite never flattens a subquery with a LIMIT into an aggregate query, and runs it as a
    // co-routine that yields its rows as its ORDER BY sorts them. An ORDER BY inside group_concat would say
    // so explicitly, at a sort of the page's rows (a quarter more time); test/storage/protocol-ports.test.ts
    // holds the order on every driver and sort.
    if (form !== 'item') {
      const lines = form === 'lines' ? ', group_concat(l, char(10)) AS lines' : ''
      statement = {
        ...statement,
        sql: `SELECT group_concat(j, ',') AS items${lines}, count(*) AS n FROM (${statement.sql})`,
      }
    }
    listStatements.set(key, statement)
  }
  return statement
}

/** A page of the person's list as items (the web queue's, docs/web.md#queue). */
export async function listSavedItems(
  db: Database,
  userId: string,
  query: ListQuery,
): Promise<{ items: SavedItem[]; nextCursorValues: CursorValues | null }> {
  return andThen(readListRows(db, userId, query, 'item'), (found) => pageOfRows(found, query))
}

/** How a list statement reads its rows: as items, as the page's JSON, or as its JSON and MCP's lines. */
type ListForm = 'item' | 'json' | 'lines'

/** The rows of the list statement for `query` in `form`: at once on an embedded file (core/at-once.ts). */
function readListRows(db: Database, userId: string, query: ListQuery, form: ListForm): MaybePromise<NamedRow[]> {
  const folder: FolderFilter = query.folder === null ? 'all' : query.folder === 'none' ? 'none' : 'one'
  const params: Record<string, unknown> = { userId, limit: query.limit === null ? -1 : query.limit + 1 }
  if (folder === 'one') params.folder = query.folder
  query.after?.forEach((value, i) => {
    params[`c${i}`] = value
  })
  const statement = listStatement(db, query.sort, folder, query.after !== null, query.state ?? 'all', form)
  const args = fillPlaceholders(statement.params, params)
  return readRows(db, statement.sql, args)
}

/** A page of the list as JSON: its items' objects joined by commas (the inside of the REST body's array). */
export interface JsonPage {
  items: string
  /**
   * With `lines`: each item's line of MCP's text as a JSON string (ITEM_LINE), joined by line breaks, in the
   * page's order; null otherwise.
   */
  lines: string | null
  /** How many items the page holds. */
  count: number
  nextCursorValues: CursorValues | null
}

/** Where an item's object starts in a JSON page, but the first (docs/benchmarks.md#the-uncached-list). */
const ITEM_START = ',{"id":'

/**
 * `listSavedItems` as the REST body needs it: the page's items written as JSON by SQLite (WIRE_JSON),
 * joined in the same statement, and the next cursor. One string comes back from the database instead of
 * each item's 23 values (docs/benchmarks.md#the-uncached-list). With `withLines`, also each item's line of
 * MCP's list text (ITEM_LINE), in the same statement. At once on an embedded file.
 */
export function listSavedItemsJson(
  db: Database,
  userId: string,
  query: ListQuery,
  withLines = false,
): MaybePromise<JsonPage> {
  return andThen(readListRows(db, userId, query, withLines ? 'lines' : 'json'), ([row]): MaybePromise<JsonPage> => {
    const items = (row?.items as string | null) ?? ''
    const lines = withLines ? ((row?.lines as string | null) ?? '') : null
    const found = Number(row?.n ?? 0)
    if (query.limit === null || found <= query.limit) return { items, lines, count: found, nextCursorValues: null }
    // One row past the page was read, to know there is a next page: its object is the last one. Every object
    // SQLite writes starts `{"id":` with no space, and a quote inside a value is escaped, so `,{"id":`
    // occurs only where one item's object ends and the next begins (the folder's own `{"id":` follows
    // `"folder":`).
    const page = items.slice(0, items.lastIndexOf(ITEM_START))
    const last = JSON.parse(page.slice(page.lastIndexOf(ITEM_START) + 1)) as SavedItemDto
    return andThen(titleKeyOf(db, query.sort, last.title), (titleKey) => ({
      items: page,
      // The row past the page has the last line; a line is a JSON string, with no raw line break in it.
      lines: lines === null ? null : lines.slice(0, lines.lastIndexOf('\n')),
      count: query.limit!,
      nextCursorValues: SORT_KEYS[query.sort].map((key) => cursorValueOf(key.field, last, titleKey)),
    }))
  })
}

/**
 * The title sort's key of a title, by SQLite's own `lower()` (the list orders by it, and it folds only
 * ASCII letters), for the next cursor of a JSON page; null for the other sorts, which need none.
 */
function titleKeyOf(db: Database, sort: Sort, title: string | null): MaybePromise<string | null> {
  if (sort !== 'title') return null
  // coalesce(lower(NULL), ''), without a statement (and libsql's `all` takes a lone null for named arguments).
  if (title === null) return ''
  return andThen(readRows(db, TITLE_KEY, [title]), ([row]) => row!.k as string)
}

const TITLE_KEY = "SELECT coalesce(lower(?), '') AS k"

/** A sort key's value for the item `last` in a cursor, as the list's keyset condition compares it. */
function cursorValueOf(field: SortKey['field'], last: SavedItemDto, titleKey: string | null): string | number {
  switch (field) {
    case 'lastSavedAt':
      return last.lastSavedAt
    case 'id':
      return last.id
    case 'isRead':
      return last.isRead ? 1 : 0
    case 'titleMissing':
      return last.title === null ? 1 : 0
    case 'titleKey':
      return titleKey!
  }
}

function pageOfRows(rows: NamedRow[], query: ListQuery): { items: SavedItem[]; nextCursorValues: CursorValues | null } {
  const keys = SORT_KEYS[query.sort]
  const hasMore = query.limit !== null && rows.length > query.limit
  const count = hasMore ? query.limit! : rows.length
  const items = new Array<SavedItem>(count)
  for (let i = 0; i < count; i++) items[i] = itemFromNamedRow(rows[i]!)
  const last = rows[count - 1]
  const nextCursorValues = hasMore && last ? keys.map((k) => cursorValue(last[SORT_KEY_COLUMN[k.field]])) : null
  return { items, nextCursorValues }
}

/** A sort key's value in a row, as the keyset condition compares it (booleans as 0/1). */
function cursorValue(value: unknown): string | number {
  return typeof value === 'string' ? value : Number(value)
}
