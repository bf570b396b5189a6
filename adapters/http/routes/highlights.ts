import { Elysia, t } from 'elysia'
import { parseLimit } from '../../../core/items/list-order.ts'
import {
  createHighlight,
  deleteHighlight,
  listHighlightsPage,
  listItemHighlights,
  updateHighlight,
} from '../../app/highlights.ts'
import type { RouteContext } from '../route-context.ts'
import { responseSchemaFailure } from '../errors.ts'
import { highlightPageSchemaFailure } from '../page-check.ts'
import {
  commonAuthedErrors,
  commonWriteErrors,
  Errors,
  HighlightCreateRequest,
  HighlightList,
  HighlightListQuery,
  HighlightPatchRequest,
  HighlightResponse,
  IdParams,
  ListedHighlightList,
} from '../schemas.ts'

// docs/highlights.md#endpoints: the REST face of adapters/app/highlights.ts.

const tags = ['Highlights']
const highlightNotFound = { 404: Errors.HighlightNotFoundError }

const CREATE = [
  "Highlights a passage of the item's article `text` (`GET …/content`). The passage is found at `position` when `text.slice(start, end)` is `quote.exact`; otherwise by `quote.exact`, choosing among repeats by how much of `prefix` and `suffix` surrounds it, then the one nearest `position.start`, then the first.",
  'The stored `prefix` and `suffix` are the up to 32 characters around the passage found (not what was sent). Highlights may overlap; an item has at most 1,000.',
  'The text does not contain the quote: 422 `HighlightAnchorError`, nothing written. The item has no article: 404 `ContentNotFoundError`.',
].join(' ')

export const highlightRoutes = ({ deps, guard }: RouteContext) =>
  new Elysia()
    .use(guard)
    .post(
      '/v1/saved-items/:id/highlights',
      async ({ params, body, principal, set }) => {
        const highlight = await createHighlight(deps, principal, params.id, {
          quote: body.quote,
          position: body.position ?? null,
          color: body.color ?? undefined,
          note: body.note,
        })
        set.status = 201
        return { highlight }
      },
      {
        params: IdParams,
        body: HighlightCreateRequest,
        response: {
          201: HighlightResponse,
          ...commonAuthedErrors,
          ...commonWriteErrors,
          404: t.Union([Errors.SavedItemNotFoundError, Errors.ContentNotFoundError]),
          422: t.Union([Errors.HighlightAnchorError, Errors.IdempotencyKeyReuseError], {
            description:
              'The article does not contain the quote (`HighlightAnchorError`), or this Idempotency-Key was already used for a different request (`IdempotencyKeyReuseError`)',
          }),
        },
        auth: 'saved-items:write',
        detail: { summary: 'Highlight a passage of an item', description: CREATE, tags },
      },
    )
    .get(
      '/v1/saved-items/:id/highlights',
      async ({ params, principal }) => ({ highlights: await listItemHighlights(deps, principal, params.id) }),
      {
        params: IdParams,
        response: { 200: HighlightList, ...commonAuthedErrors, 404: Errors.SavedItemNotFoundError },
        auth: 'saved-items:read',
        detail: {
          summary: "An item's highlights, in text order",
          description:
            'By `position.start`, then `end`, then creation; highlights whose quote is not in the current text (`position: null`) last, by creation.',
          tags,
        },
      },
    )
    .get(
      '/v1/highlights',
      async ({ query, principal }) => {
        const limit = parseLimit(query.limit)
        const listed = await listHighlightsPage(deps, principal, { limit, cursor: query.cursor ?? null })
        // The page is sent as the JSON the cache holds, so Elysia's response check is done here, once per page.
        const failure = highlightPageSchemaFailure(listed)
        if (failure !== null) return responseSchemaFailure(deps.log, failure)
        const headers: Record<string, string> = { 'content-type': 'application/json' }
        if (listed.page.nextCursor !== null) {
          const next = new URL(`${deps.config.baseUrl}/v1/highlights`)
          next.searchParams.set('limit', String(limit))
          next.searchParams.set('cursor', listed.page.nextCursor)
          headers.link = `<${next.href}>; rel="next"`
        }
        return new Response(listed.json as Uint8Array<ArrayBuffer>, { headers })
      },
      {
        query: HighlightListQuery,
        response: { 200: ListedHighlightList, ...commonAuthedErrors, 400: Errors.ValidationError },
        auth: 'saved-items:read',
        detail: {
          summary: 'All your highlights, newest first',
          description:
            'Newest first (`createdAt`, then `id`, descending), each with its item\'s `id`, `title` and `normalizedUrl`. With `limit`, a `Link: <…>; rel="next"` header names the next page.',
          tags,
        },
      },
    )
    .patch(
      '/v1/highlights/:id',
      async ({ params, body, principal }) => ({
        highlight: await updateHighlight(deps, principal, params.id, body),
      }),
      {
        params: IdParams,
        body: HighlightPatchRequest,
        response: { 200: HighlightResponse, ...commonAuthedErrors, ...commonWriteErrors, ...highlightNotFound },
        auth: 'saved-items:write',
        detail: {
          summary: "Change a highlight's colour or note",
          description:
            '`note: null` (or a blank note) clears the note. A patch that changes nothing writes nothing: `updatedAt` stays.',
          tags,
        },
      },
    )
    .delete(
      '/v1/highlights/:id',
      async ({ params, principal, set }) => {
        await deleteHighlight(deps, principal, params.id)
        set.status = 204
      },
      {
        params: IdParams,
        response: {
          204: t.Void({ description: 'Deleted' }),
          ...commonAuthedErrors,
          ...commonWriteErrors,
          ...highlightNotFound,
        },
        auth: 'saved-items:write',
        detail: { summary: 'Delete a highlight', tags },
      },
    )
