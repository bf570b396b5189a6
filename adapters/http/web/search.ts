import { isAppError } from '../../../core/errors.ts'
import { SEARCH_DEFAULT_LIMIT } from '../../../core/search/cursor.ts'
import type { AppDeps } from '../../app/deps.ts'
import { searchItems } from '../../app/search.ts'
import { articleWordCountsOf } from '../../app/reading.ts'
import { sessionPrincipal } from './reader.ts'
import type { WebSession } from '../browser-session.ts'
import type { SearchView } from './pages/search-results.ts'

export type { SearchView } from './pages/search-results.ts'

// The queue page's search (docs/web.md#search): what `?q=` and `?cursor=` ask for, answered by the same
// app layer function as the API, so the web shows exactly what `GET /v1/search` would.

/** Results per page, as the API's default. */
export const SEARCH_PAGE_SIZE = SEARCH_DEFAULT_LIMIT

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
