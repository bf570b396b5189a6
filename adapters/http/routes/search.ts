import { Elysia } from 'elysia'
import { parseSearchLimit } from '../../../core/search/cursor.ts'
import type { RouteContext } from '../route-context.ts'
import { commonAuthedErrors, Errors, SearchQueryParams, SearchResults } from '../schemas.ts'
import { searchItems } from '../../app/search.ts'

const QUERY_SYNTAX = [
  'Words must all match (any case, any accents; the last word also matches as a prefix: "typesc" finds TypeScript), in any field: the title, description, site, URL, the article, and the text and notes of the item’s highlights.',
  '`"a phrase"` matches the words together; `-word` or `-"a phrase"` must not match; `OR` between two terms: either.',
  'Filters: `is:read`, `is:unread`, `type:article|video|website|repository`, `tag:<tag>`, `site:<host>` (and its subdomains),',
  '`folder:<name>` (quotes for spaces) or `folder:none`, `status:pending|enriched|failed`, `after:YYYY-MM-DD`, `before:YYYY-MM-DD` (on lastSavedAt, UTC), `has:highlights` (items with at least one highlight).',
  'A query of filters only lists the matching items newest first. Anything else typed is read as words or ignored.',
  'Ranked best first (title highest), ties newest first; `snippet` is up to 200 characters around the first match, matched words in « ».',
  'An empty query, one over 1,000 characters or 32 terms, an unknown filter value or a folder name that names no folder: 400 ValidationError naming it.',
].join(' ')

export const searchRoutes = ({ deps, guard }: RouteContext) =>
  new Elysia().use(guard).get(
    '/v1/search',
    async ({ query, principal }) => {
      const limit = parseSearchLimit(query.limit)
      const page = await searchItems(deps, principal, { q: query.q, limit, cursor: query.cursor ?? null })
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (page.nextCursor) {
        const next = new URL(`${deps.config.baseUrl}/v1/search`)
        next.searchParams.set('q', query.q)
        next.searchParams.set('limit', String(limit))
        next.searchParams.set('cursor', page.nextCursor)
        headers.link = `<${next.href}>; rel="next"`
      }
      return new Response(JSON.stringify({ results: page.results }), { headers })
    },
    {
      query: SearchQueryParams,
      response: { 200: SearchResults, ...commonAuthedErrors, 400: Errors.ValidationError },
      auth: 'saved-items:read',
      detail: { summary: 'Search saved items', description: QUERY_SYNTAX, tags: ['Saved items'] },
    },
  )
