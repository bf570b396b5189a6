import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { SearchClause, SearchFilter, SearchQuery, SearchTerm } from '../../core/search/query.ts'
import type { SavedItem } from '../../core/types.ts'
import type { Database } from './open-database.ts'
import { ITEM_FIELDS, itemFromRow, type RawRow } from './saved-item-rows.ts'
import { folders, savedItems, searchDocs } from './schema.ts'

/**
 * The FTS5 table the 0006 migration creates (docs/search.md#index), declared here for queries only:
 * drizzle-kit reads schema.ts, which must not try to create a virtual table.
 */
const searchIndex = sqliteTable('search_index', {
  rowid: integer('rowid'),
  title: text('title'),
  body: text('body'),
})

/**
 * bm25 weights per indexed column, in the table's order: title, description, site_name, host, url,
 * summary, source_name, body, owner. A word in the title counts most, one deep in the article least; the
 * owner token (the person's id) counts nothing.
 */
const BM25 = sql.raw('bm25(search_index, 10.0, 4.0, 3.0, 3.0, 2.0, 3.0, 2.0, 1.0, 0.0)')
/** Results ranked beyond the page, so equally scored ones can still be put newest first. */
const TIE_SLACK = 50
/** Marks around matched words, the separator for cut text, and the window in tokens. */
const SNIPPET = sql.raw("snippet(search_index, -1, '«', '»', '…', 24)")

/** A query with its folder filter resolved to an id (or "no folder"). */
export interface ResolvedSearch {
  query: SearchQuery
  /** The folder id `folder:<name>` named; absent when the query has no folder filter. */
  folderId?: string | null
}

export interface SearchHit {
  item: SavedItem
  snippet: string | null
}

/**
 * One page of the person's items matching the query, best first (bm25 with the weights above; ties
 * newest first), or for a query of filters only, newest first. Fetches one row more than `limit` to tell
 * whether another page follows. Only index tokens reach MATCH (core/search/query.ts), each quoted.
 */
export async function searchSavedItems(
  db: Database,
  userId: string,
  search: ResolvedSearch,
  limit: number,
  offset: number,
): Promise<{ hits: SearchHit[]; more: boolean }> {
  const positive = search.query.clauses.filter((clause) => !clause.negated)
  const negative = search.query.clauses.filter((clause) => clause.negated)
  const conditions: SQL[] = [eq(savedItems.userId, userId), ...search.query.filters.map((f) => filterSql(f, search))]
  const expanded = await expandPrefixes(db, search.query.clauses)
  const exclude = negative.length > 0 ? negative.map((clause) => clauseMatch(clause, expanded)).join(' OR ') : null

  if (positive.length > 0) {
    // The person's words, never matched against the owner column; and only the person's rows.
    let words = positive.map((clause) => clauseMatch(clause, expanded)).join(' AND ')
    if (exclude) words = `(${words}) NOT (${exclude})`
    const match = `owner : "${ownerToken(userId)}" AND (- {owner} : (${words}))`
    let ranked: { doc: number; id: string }[]
    if (search.query.filters.length === 0) {
      // Words only: ranked inside the index (no join per match), then the page's items put in order.
      const top = (await db.all(
        sql`SELECT rowid AS doc, ${BM25} AS score FROM search_index WHERE search_index MATCH ${match} ORDER BY score, rowid DESC LIMIT ${offset + limit + 1 + TIE_SLACK}`,
      )) as { doc: number; score: number }[]
      ranked = await orderTies(db, userId, top, offset, limit)
    } else {
      ranked = (await db
        .select({ doc: sql<number>`${searchIndex}.rowid`, id: savedItems.id })
        .from(searchIndex)
        .innerJoin(searchDocs, eq(searchDocs.doc, sql`${searchIndex}.rowid`))
        .innerJoin(savedItems, eq(savedItems.id, searchDocs.itemId))
        .where(and(sql`search_index MATCH ${match}`, ...conditions))
        .orderBy(BM25, desc(savedItems.lastSavedAt), desc(savedItems.id))
        .limit(limit + 1)
        .offset(offset)) as { doc: number; id: string }[]
    }
    const more = ranked.length > limit
    const page = more ? ranked.slice(0, limit) : ranked
    if (page.length === 0) return { hits: [], more }
    const items = new Map(
      (
        (await db
          .select(ITEM_FIELDS)
          .from(savedItems)
          .leftJoin(folders, eq(folders.id, savedItems.folderId))
          .where(
            inArray(
              savedItems.id,
              page.map((hit) => hit.id),
            ),
          )
          .values()) as RawRow[]
      ).map((row) => [row[0] as string, itemFromRow(row)]),
    )
    // Snippets for the page alone, from the words alone (the owner token is never what a snippet shows).
    const snippets = new Map(
      (
        (await db.all(
          sql`SELECT rowid AS doc, ${SNIPPET} AS snippet FROM search_index WHERE search_index MATCH ${`- {owner} : (${words})`} AND rowid IN (${sql.raw(page.map((hit) => String(Math.trunc(Number(hit.doc)))).join(', '))})`,
        )) as { doc: number; snippet: string | null }[]
      ).map((row) => [Number(row.doc), row.snippet]),
    )
    const hits: SearchHit[] = []
    for (const hit of page) {
      const item = items.get(hit.id)
      // Deleted between the two reads: left out of this page.
      if (item) hits.push({ item, snippet: cutSnippet(snippets.get(hit.doc) ?? null) })
    }
    return { hits, more }
  }
  if (exclude)
    conditions.push(
      sql`${savedItems.id} NOT IN (SELECT d.item_id FROM search_index JOIN search_docs d ON d.doc = search_index.rowid WHERE search_index MATCH ${exclude})`,
    )
  const rows = (await db
    .select({ ...ITEM_FIELDS, snippet: sql<string | null>`NULL` })
    .from(savedItems)
    .leftJoin(folders, eq(folders.id, savedItems.folderId))
    .where(and(...conditions))
    .orderBy(desc(savedItems.lastSavedAt), desc(savedItems.id))
    .limit(limit + 1)
    .offset(offset)
    .values()) as RawRow[]
  const more = rows.length > limit
  const page = more ? rows.slice(0, limit) : rows
  return { hits: page.map((row) => ({ item: itemFromRow(row), snippet: null })), more }
}

/** A person's id as the one token their index rows carry (hex: the tokenizer keeps it whole). */
const ownerToken = (userId: string): string => userId.replaceAll('-', '').toLowerCase()

/**
 * The page of `top` (ranked by score inside the index) with equal scores newest saved first: the items of
 * the ranked rows are read once, sorted by (score, lastSavedAt desc, id desc), and cut to the page.
 */
async function orderTies(
  db: Database,
  userId: string,
  top: { doc: number; score: number }[],
  offset: number,
  limit: number,
): Promise<{ doc: number; id: string }[]> {
  if (top.length <= offset) return []
  // CROSS JOIN keeps search_docs the outer loop: the planner otherwise walked all of the person's items
  // (by the user_id index) to find these few. The numbers come from the index, written in as integers.
  const docs = top.map((row) => String(Math.trunc(Number(row.doc)))).join(', ')
  const keys = (await db.all(
    sql`SELECT d.doc AS doc, s.id AS id, s.last_saved_at AS lastSavedAt FROM search_docs d CROSS JOIN saved_items s ON s.id = d.item_id WHERE d.doc IN (${sql.raw(docs)}) AND s.user_id = ${userId}`,
  )) as { doc: number; id: string; lastSavedAt: string }[]
  const score = new Map(top.map((row) => [Number(row.doc), row.score]))
  return keys
    .sort(
      (a, b) =>
        score.get(a.doc)! - score.get(b.doc)! ||
        (a.lastSavedAt < b.lastSavedAt ? 1 : a.lastSavedAt > b.lastSavedAt ? -1 : 0) ||
        (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
    )
    .slice(offset, offset + limit + 1)
    .map(({ doc, id }) => ({ doc, id }))
}

/** A clause as FTS5 query text: its alternatives joined by OR. */
function clauseMatch(clause: SearchClause, expanded: Map<string, string[]>): string {
  const terms = clause.alternatives.map((term) => termMatch(term, expanded))
  return terms.length === 1 ? terms[0]! : `(${terms.join(' OR ')})`
}

/**
 * A term as an FTS5 string (a phrase of its tokens), with `*` for a prefix; or, for a one-token prefix the
 * vocabulary expanded, its terms ORed. Tokens are runs of letters, marks and digits, so a double quote can
 * never be among them; doubling is belt and braces.
 */
function termMatch(term: SearchTerm, expanded: Map<string, string[]>): string {
  const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`
  const terms = term.prefix && term.tokens.length === 1 ? expanded.get(term.tokens[0]!) : undefined
  if (terms) return terms.length === 0 ? quoted(term.tokens[0]!) : `(${terms.map(quoted).join(' OR ')})`
  return `${quoted(term.tokens.join(' '))}${term.prefix ? '*' : ''}`
}

/** Prefixes up to this long are served by the index's own prefix indexes (2 and 3 characters). */
const NATIVE_PREFIX_CHARS = 3
/** A longer prefix naming more terms than this is left to FTS5's own prefix query. */
const MAX_EXPANSION = 64

/**
 * The terms each longer one-token prefix of the query names, read from the index's vocabulary. FTS5
 * evaluates a prefix longer than its prefix indexes by merging the doclists of all its terms in memory
 * first; a common word typed last ("memory") cost 190 ms at 100,000 items, and far more when the page's
 * snippets asked again. Its terms ORed are read incrementally, like any word. (docs/search.md#index)
 */
async function expandPrefixes(db: Database, clauses: SearchClause[]): Promise<Map<string, string[]>> {
  const expanded = new Map<string, string[]>()
  for (const clause of clauses)
    for (const term of clause.alternatives) {
      const token = term.tokens[0]!
      if (!term.prefix || term.tokens.length !== 1 || [...token].length <= NATIVE_PREFIX_CHARS) continue
      if (expanded.has(token)) continue
      const last = token.codePointAt(token.length - 1)!
      const next = token.slice(0, token.length - (last > 0xffff ? 2 : 1)) + String.fromCodePoint(last + 1)
      const rows = (await db.all(
        sql`SELECT term FROM search_vocab WHERE term >= ${token} AND term < ${next} LIMIT ${MAX_EXPANSION + 1}`,
      )) as { term: string }[]
      if (rows.length <= MAX_EXPANSION)
        expanded.set(
          token,
          rows.map((row) => row.term),
        )
    }
  return expanded
}

function filterSql(filter: SearchFilter, search: ResolvedSearch): SQL {
  switch (filter.kind) {
    case 'is':
      return eq(savedItems.isRead, filter.read)
    case 'type':
      return eq(savedItems.type, filter.type)
    case 'tag':
      return sql`EXISTS (SELECT 1 FROM json_each(${savedItems.tags}) WHERE value = ${filter.tag})`
    case 'site':
      // The host and its subdomains; hosts hold only [a-z0-9.-], so LIKE has no wildcard to escape.
      return sql`(${savedItems.host} = ${filter.host} OR ${savedItems.host} LIKE ${`%.${filter.host}`})`
    case 'folder':
      return eq(savedItems.folderId, search.folderId ?? '')
    case 'folder-none':
      return sql`${savedItems.folderId} IS NULL`
    case 'status':
      return eq(savedItems.enrichmentStatus, filter.status)
    case 'after':
      return sql`${savedItems.lastSavedAt} >= ${`${filter.date}T00:00:00.000Z`}`
    case 'before':
      return sql`${savedItems.lastSavedAt} < ${`${filter.date}T00:00:00.000Z`}`
  }
}

/** The longest snippet sent, in characters (marks included). */
export const SNIPPET_MAX_CHARS = 200

/** FTS5's snippet, cut to {@link SNIPPET_MAX_CHARS} at a word boundary without leaving a mark open. */
function cutSnippet(snippet: string | null): string | null {
  if (snippet === null) return null
  const text = snippet.replace(/\s+/g, ' ').trim()
  if (text === '') return null
  if (text.length <= SNIPPET_MAX_CHARS) return text
  let cut = text.slice(0, SNIPPET_MAX_CHARS - 2)
  const space = cut.lastIndexOf(' ')
  if (space > SNIPPET_MAX_CHARS / 2) cut = cut.slice(0, space)
  // An opened mark without its close: close it, so the text stays balanced.
  if (cut.lastIndexOf('«') > cut.lastIndexOf('»')) cut += '»'
  return `${cut}…`
}
