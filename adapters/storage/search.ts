import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { SearchClause, SearchFilter, SearchQuery, SearchTerm } from '../../core/search/query.ts'
import { snippetOf } from '../../core/search/snippet.ts'
import type { SavedItem } from '../../core/types.ts'
import type { Database } from './open-database.ts'
import { preparedPer } from './prepared.ts'
import { AFTER_ITEM_FIELDS, ITEM_FIELDS, itemFromRow, type RawRow } from './saved-item-rows.ts'
import { folders, itemContents, savedItems, searchDocs, searchOwners } from './schema.ts'
import { BODY_INDEX_CHARS, DOC_BITS, highlightsTextSql } from './search-index.ts'

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
 * summary, source_name, body, highlights. A word in the title counts most, one deep in the article least;
 * one the person highlighted or wrote in a note counts as much as the description (docs/search.md#results).
 */
const BM25 = sql.raw('bm25(search_index, 10.0, 4.0, 3.0, 3.0, 2.0, 3.0, 2.0, 1.0, 4.0)')
/** Results ranked beyond the page, so equally scored ones can still be put newest first. */
const TIE_SLACK = 50

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

/** The first and last document number of the person whose slot is the `slot` placeholder, as SQL. */
const RANGE_FIRST = sql`(${sql.placeholder('slot')} << ${sql.raw(String(DOC_BITS))})`
const RANGE_LAST = sql`(${sql.placeholder('slot')} << ${sql.raw(String(DOC_BITS))}) + ${sql.raw(String(2 ** DOC_BITS - 1))}`

/**
 * The best-scored rows of the person's range for a MATCH, as offsets in the range (below 2^32, so exact
 * in JavaScript; the document numbers themselves are computed by SQLite, in 64 bits).
 */
const rankedRows = preparedPer((db) =>
  db
    .select({ offset: sql<number>`${searchIndex.rowid} - ${RANGE_FIRST}`, score: sql<number>`${BM25}` })
    .from(searchIndex)
    .where(
      sql`search_index MATCH ${sql.placeholder('match')} AND ${searchIndex.rowid} BETWEEN ${RANGE_FIRST} AND ${RANGE_LAST}`,
    )
    .orderBy(BM25, desc(searchIndex.rowid))
    .limit(sql.placeholder('limit'))
    .prepare(),
)

const slotOf = preparedPer((db) =>
  db
    .select({ slot: searchOwners.slot })
    .from(searchOwners)
    .where(eq(searchOwners.userId, sql.placeholder('userId')))
    .prepare(),
)

/**
 * One page of the person's items matching the query, best first (bm25 with the weights above; ties
 * newest first), or for a query of filters only, newest first. Fetches one row more than `limit` to tell
 * whether another page follows. Only index tokens reach MATCH (core/search/query.ts), each quoted; and
 * only the person's range of the index is read.
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
  const [owner] = (await slotOf(db).all({ userId })) as { slot: number }[]
  // No range yet: none of the person's items is indexed, so no words can match.
  if (!owner && positive.length > 0) return { hits: [], more: false }
  const slot = owner?.slot ?? 0
  const bits = sql.raw(String(DOC_BITS))
  const inRange = sql`${searchIndex.rowid} BETWEEN (${slot} << ${bits}) AND (${slot} << ${bits}) + ${sql.raw(String(2 ** DOC_BITS - 1))}`
  const expanded = await expandPrefixes(db, search.query.clauses)
  const exclude = negative.length > 0 ? negative.map((clause) => clauseMatch(clause, expanded)).join(' OR ') : null

  if (positive.length > 0) {
    let match = positive.map((clause) => clauseMatch(clause, expanded)).join(' AND ')
    if (exclude) match = `(${match}) NOT (${exclude})`
    if (search.query.filters.length === 0) {
      // Words only: ranked inside the index (no join per match), then the page's rows read once.
      const top = (await rankedRows(db).all({ match, slot, limit: offset + limit + 1 + TIE_SLACK })) as {
        offset: number
        score: number
      }[]
      const ranked = await pageOfRanked(db, userId, slot, top, offset, limit)
      const more = ranked.length > limit
      const page = more ? ranked.slice(0, limit) : ranked
      return {
        hits: page.map(({ item, body, marked }) => ({
          item,
          snippet: snippetOf(snippetFields(item, body, marked), search.query),
        })),
        more,
      }
    }
    const ranked = (await db
      .select({
        offset: sql<number>`${searchIndex.rowid} - (${slot} << ${sql.raw(String(DOC_BITS))})`,
        id: savedItems.id,
      })
      .from(searchIndex)
      .innerJoin(searchDocs, eq(searchDocs.doc, searchIndex.rowid))
      .innerJoin(savedItems, eq(savedItems.id, searchDocs.itemId))
      .where(and(sql`search_index MATCH ${match}`, inRange, ...conditions))
      .orderBy(BM25, desc(savedItems.lastSavedAt), desc(savedItems.id))
      .limit(limit + 1)
      .offset(offset)) as { offset: number; id: string }[]
    const more = ranked.length > limit
    const page = more ? ranked.slice(0, limit) : ranked
    if (page.length === 0) return { hits: [], more }
    // The page's items with their article text (as much as is indexed), for their snippets.
    const items = new Map(
      ((await pageItems(db).values({ ids: JSON.stringify(page.map((hit) => hit.id)) })) as RawRow[]).map((row) => [
        row[0] as string,
        {
          item: itemFromRow(row),
          body: row[AFTER_ITEM_FIELDS] as string | null,
          marked: row[AFTER_ITEM_FIELDS + 1] as string | null,
        },
      ]),
    )
    const hits: SearchHit[] = []
    for (const hit of page) {
      const found = items.get(hit.id)
      // Deleted between the two reads: left out of this page.
      if (found)
        hits.push({
          item: found.item,
          snippet: snippetOf(snippetFields(found.item, found.body, found.marked), search.query),
        })
    }
    return { hits, more }
  }
  if (exclude && owner)
    conditions.push(
      sql`${savedItems.id} NOT IN (SELECT d.item_id FROM search_index JOIN search_docs d ON d.doc = search_index.rowid WHERE search_index MATCH ${exclude} AND ${inRange})`,
    )
  const rows = (await db
    .select(ITEM_FIELDS)
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

/**
 * The texts a snippet may come from, in order of preference: the article, then the person's highlights and
 * notes (each line of their indexed text on its own, so a snippet never runs from one into the next), then
 * what describes the item, then the title and the rest of what is indexed (docs/search.md#results).
 */
const snippetFields = (item: SavedItem, body: string | null, marked: string | null): (string | null | undefined)[] => [
  body,
  ...(marked === null ? [] : marked.split('\n')),
  item.description,
  item.previewSummary,
  item.title,
  item.siteName,
  item.sourceName,
  item.host,
  item.normalizedUrl,
]

/**
 * The person's items of some ranked rows, by their offsets in the person's range, each with the indexed
 * part of its article's text, then the offset. CROSS JOIN keeps search_docs the outer loop: the planner
 * otherwise walked all of the person's items (by the user_id index) to find these few. One statement,
 * built once, whatever the number of rows (a JSON array).
 */
const itemsAt = preparedPer((db) =>
  db
    .select({
      ...ITEM_FIELDS,
      body: sql<string | null>`substr(${itemContents.text}, 1, ${sql.raw(String(BODY_INDEX_CHARS))})`,
      marked: sql<string | null>`${sql.raw(highlightsTextSql('"saved_items"."id"'))}`,
      offset: sql<number>`${searchDocs.doc} - (${sql.placeholder('slot')} << ${sql.raw(String(DOC_BITS))})`,
    })
    .from(searchDocs)
    .crossJoin(savedItems)
    .leftJoin(folders, eq(folders.id, savedItems.folderId))
    .leftJoin(itemContents, eq(itemContents.itemId, savedItems.id))
    .where(
      and(
        sql`${searchDocs.doc} IN (SELECT (${sql.placeholder('slot')} << ${sql.raw(String(DOC_BITS))}) + value FROM json_each(${sql.placeholder('offsets')}))`,
        eq(savedItems.id, searchDocs.itemId),
        eq(savedItems.userId, sql.placeholder('userId')),
      ),
    )
    .prepare(),
)

/** Items by id (a JSON array), each with the indexed part of its article's text and of its highlights. */
const pageItems = preparedPer((db) =>
  db
    .select({
      ...ITEM_FIELDS,
      body: sql<string | null>`substr(${itemContents.text}, 1, ${sql.raw(String(BODY_INDEX_CHARS))})`,
      marked: sql<string | null>`${sql.raw(highlightsTextSql('"saved_items"."id"'))}`,
    })
    .from(savedItems)
    .leftJoin(folders, eq(folders.id, savedItems.folderId))
    .leftJoin(itemContents, eq(itemContents.itemId, savedItems.id))
    .where(sql`${savedItems.id} IN (SELECT value FROM json_each(${sql.placeholder('ids')}))`)
    .prepare(),
)

/**
 * The page of `top` (ranked by score inside the index, best first) with equal scores newest saved first,
 * and one row more when there is one. Only the page's rows are read, and with them every row of a tie
 * the page cuts through (its order is by lastSavedAt, so the rows are read before the cut is made): the
 * rows from the start of the tie holding the page's first row to the end of the tie holding its last.
 */
async function pageOfRanked(
  db: Database,
  userId: string,
  slot: number,
  top: { offset: number; score: number }[],
  offset: number,
  limit: number,
): Promise<{ item: SavedItem; body: string | null; marked: string | null }[]> {
  if (top.length <= offset) return []
  let from = offset
  while (from > 0 && top[from - 1]!.score === top[offset]!.score) from--
  let to = Math.min(offset + limit + 1, top.length)
  while (to < top.length && top[to]!.score === top[to - 1]!.score) to++
  const rows = (await itemsAt(db).values({
    slot,
    offsets: JSON.stringify(top.slice(from, to).map((row) => Number(row.offset))),
    userId,
  })) as RawRow[]
  const score = new Map(top.slice(from, to).map((row) => [Number(row.offset), row.score]))
  return rows
    .map((row) => ({
      item: itemFromRow(row),
      body: row[AFTER_ITEM_FIELDS] as string | null,
      marked: row[AFTER_ITEM_FIELDS + 1] as string | null,
      score: score.get(Number(row[AFTER_ITEM_FIELDS + 2]))!,
    }))
    .sort(
      (a, b) =>
        a.score - b.score ||
        (a.item.lastSavedAt < b.item.lastSavedAt ? 1 : a.item.lastSavedAt > b.item.lastSavedAt ? -1 : 0) ||
        (a.item.id < b.item.id ? 1 : a.item.id > b.item.id ? -1 : 0),
    )
    .slice(offset - from, offset - from + limit + 1)
    .map(({ item, body, marked }) => ({ item, body, marked }))
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
  if (terms) return terms.length === 1 ? quoted(terms[0]!) : `(${terms.map(quoted).join(' OR ')})`
  return `${quoted(term.tokens.join(' '))}${term.prefix ? '*' : ''}`
}

/** Prefixes up to this long are served by the index's own prefix indexes (2 and 3 characters). */
const NATIVE_PREFIX_CHARS = 3
/** A longer prefix naming more terms than this is left to FTS5's own prefix query. */
const MAX_EXPANSION = 64

/** The index's `search_vocab` (an fts5vocab table), declared for queries only, like search_index. */
const searchVocab = sqliteTable('search_vocab', { term: text('term') })

/** Terms from `from` (inclusive) to `to` (exclusive), at most {@link MAX_EXPANSION}. */
const termsBetween = preparedPer((db) =>
  db
    .select({ term: searchVocab.term })
    .from(searchVocab)
    .where(and(gte(searchVocab.term, sql.placeholder('from')), lt(searchVocab.term, sql.placeholder('to'))))
    .limit(MAX_EXPANSION)
    .prepare(),
)

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
      // The first string after every term the prefix starts: its last character counted up by one.
      const chars = [...token]
      const next = chars.slice(0, -1).join('') + String.fromCodePoint(chars.at(-1)!.codePointAt(0)! + 1)
      // The terms after the word itself: the vocabulary counts each term's documents as it goes, and the
      // word as typed is often the commonest of them ("memory" cost 2 ms to count, 0.1 ms to step over).
      // Tokens hold no character below "0", so token + "\u0001" is the first string after it.
      const rows = (await termsBetween(db).all({ from: `${token}\u0001`, to: next })) as { term: string }[]
      if (rows.length < MAX_EXPANSION) expanded.set(token, [token, ...rows.map((row) => row.term)])
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
    case 'has-highlights':
      // One probe of highlights_item_text_idx (which leads with saved_item_id) per item.
      return sql`EXISTS (SELECT 1 FROM highlights h WHERE h.saved_item_id = ${savedItems.id})`
  }
}
