import { isAppError } from '../../../core/errors.ts'
import { SEARCH_DEFAULT_LIMIT } from '../../../core/search/cursor.ts'
import type { AppDeps } from '../../app/deps.ts'
import { searchItems, type SearchPage } from '../../app/search.ts'
import { articleWordCountsOf } from '../../app/reading.ts'
import { sessionPrincipal } from './reader.ts'
import type { WebSession } from '../browser-session.ts'

// The queue page's search (docs/web.md#search): what `?q=` and `?cursor=` ask for, answered by the same
// app layer function as the API, so the web shows exactly what `GET /v1/search` would.

/** Results per page, as the API's default. */
export const SEARCH_PAGE_SIZE = SEARCH_DEFAULT_LIMIT

export interface SearchView {
  /** The query as typed, kept in the box. */
  q: string
  results: SearchPage['results']
  /** The results that have an article: their title opens the reader view. */
  readable: ReadonlySet<string>
  nextCursor: string | null
  /** Whether this is a page after the first (a cursor was given). */
  later: boolean
  /** Why the query was refused (a ValidationError), shown next to the box with a 400. */
  error: string | null
}

/**
 * The search the page's address asks for, or null for none: a blank `q` is an emptied box, which shows
 * the queue rather than an error. A refused query or cursor is a view with `error`, never a throw.
 */
export async function searchFor(
  deps: AppDeps,
  session: WebSession,
  params: URLSearchParams,
): Promise<SearchView | null> {
  const q = params.get('q') ?? ''
  if (q.trim() === '') return null
  const cursor = params.get('cursor') || null
  try {
    const page = await searchItems(deps, sessionPrincipal(session), { q, limit: SEARCH_PAGE_SIZE, cursor })
    // One query for the page, not one per result.
    const readable = new Set(
      (
        await articleWordCountsOf(
          deps,
          page.results.map((result) => result.savedItem.id),
        )
      ).keys(),
    )
    return { q, results: page.results, readable, nextCursor: page.nextCursor, later: cursor !== null, error: null }
  } catch (error) {
    if (!isAppError(error) || error._tag !== 'ValidationError') throw error
    // Word for word what the API says (`q: …`, `cursor: …`), so a person and a script read the same rule.
    return { q, results: [], readable: new Set(), nextCursor: null, later: false, error: error.message }
  }
}
