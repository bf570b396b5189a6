/** A value URLSearchParams writes as it is (its form encoding leaves only these, and `*`, alone). */
const PLAIN_QUERY_VALUE = /^[A-Za-z0-9._-]*$/

/**
 * The next page's address for the Link header, exactly as URLSearchParams writes it on `listUrl` (the list's
 * address, parsed once): by concatenation when every value is plain (the sort, a base64url cursor, an id or
 * `none`), since a URL parsed and serialized on every page cost more than the header is worth
 * (docs/benchmarks.md#the-uncached-list); through URL otherwise. test/http/next-page-url.test.ts holds both
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
