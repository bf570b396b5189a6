import { parseLimit, parseSort } from '../../core/items/list-order.ts'
import type { Principal } from '../../core/types.ts'
import type { AppDeps } from '../app/deps.ts'
import { listPage } from '../app/saved-items.ts'
import { andThen, type MaybePromise } from '../../core/at-once.ts'

// GET /v1/saved-items's answer, once the caller may list: one function for the route
// (routes/saved-items.ts) and for the direct list (direct-list.ts), so the two cannot drift.

/** The list's path. */
export const LIST_PATH = '/v1/saved-items'

/** The list's address under `baseUrl`, for the Link header: made once per app, not per request. */
export const listUrlOf = (baseUrl: string): string => new URL(`${baseUrl}${LIST_PATH}`).href

/** The list's query as the route's schema let it through. */
export interface ListQueryInput {
  sort?: string | null | undefined
  folder?: string | null | undefined
  limit?: string | undefined
  cursor?: string | undefined
}

/**
 * The page for `query` as the answer: the JSON SQLite wrote for it, or the page cache holds (its items keep
 * the response schema because the database refuses a value outside it: docs/api.md#data-rules), with a
 * Link header to the next page on `listUrl`. Value errors (sort, limit, cursor, folder) are thrown as the
 * app's typed errors, at once when the page is read at once (an embedded file: core/at-once.ts).
 */
export function listResponse(
  deps: AppDeps,
  principal: Principal,
  query: ListQueryInput,
  listUrl: string,
): MaybePromise<Response> {
  const sort = parseSort(query.sort)
  const limit = parseLimit(query.limit)
  const folder = query.folder ?? null
  return andThen(listPage(deps, principal, { sort, folder, limit, cursor: query.cursor ?? null }), (listed) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (listed.nextCursor)
      headers.link = `<${nextPageUrl(listUrl, sort, folder, limit, listed.nextCursor)}>; rel="next"`
    return new Response(listed.json as Uint8Array<ArrayBuffer> | string, { headers })
  })
}

/** A value URLSearchParams writes as it is (its form encoding leaves only these, and `*`, alone). */
const PLAIN_QUERY_VALUE = /^[A-Za-z0-9._-]*$/

/**
 * The next page's address for the Link header, exactly as URLSearchParams writes it on `listUrl` (the list's
 * address, parsed once): by concatenation when every value is plain (the sort, a base64url cursor, an id or
 * `none`), since a URL parsed and serialized on every page cost more than the header is worth
 * (docs/benchmarks.md#the-uncached-list); through URL otherwise. test/http/list-response.test.ts holds both
 * equal.
 */
export function nextPageUrl(
  listUrl: string,
  sort: string,
  folder: string | null,
  limit: number | null,
  cursor: string,
): string {
  if (
    PLAIN_QUERY_VALUE.test(sort) &&
    PLAIN_QUERY_VALUE.test(cursor) &&
    (folder === null || PLAIN_QUERY_VALUE.test(folder))
  )
    return `${listUrl}?sort=${sort}${folder === null ? '' : `&folder=${folder}`}&limit=${limit}&cursor=${cursor}`
  const next = new URL(listUrl)
  next.searchParams.set('sort', sort)
  if (folder !== null) next.searchParams.set('folder', folder)
  next.searchParams.set('limit', String(limit))
  next.searchParams.set('cursor', cursor)
  return next.href
}
