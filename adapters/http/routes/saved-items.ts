import { Elysia, t } from 'elysia'
import type { RouteContext } from '../route-context.ts'
import {
  ContentQuery,
  HtmlContent,
  MarkdownContent,
  ProgressRequest,
  ProgressResponse,
  commonAuthedErrors,
  commonWriteErrors,
  Errors,
  IdParams,
  ListQuery,
  ReadStateRequest,
  SavedItem,
  SavedItemList,
  SetFolderRequest,
  SetTagsRequest,
  LookupQuery,
} from '../schemas.ts'
import type { Principal } from '../../../core/types.ts'
import type { ItemChange } from '../../storage/saved-items.ts'
import { changeItem, deleteItem, lookupItem } from '../../app/saved-items.ts'
import { readContent, saveProgress } from '../../app/reading.ts'
import { readItemImage } from '../../app/item-images.ts'
import { ARCHIVED_IMAGE_TYPES } from '../../../core/reading/image-sniff.ts'
import { imageResponse } from '../image-response.ts'
import { LIST_PATH, listResponse, listUrlOf } from '../list-response.ts'

const tags = ['Saved items']
const notFound = { 404: Errors.SavedItemNotFoundError }

export const savedItemRoutes = ({ deps, guard }: RouteContext) => {
  const listUrl = listUrlOf(deps.config.baseUrl)
  const stateChange = (path: string, summary: string, itemChange: ItemChange) => ({
    path,
    handler: ({ params, principal }: { params: { id: string }; principal: Principal }) =>
      changeItem(deps, principal, params.id, itemChange),
    options: {
      params: IdParams,
      response: { 200: SavedItem, ...commonAuthedErrors, ...commonWriteErrors, ...notFound },
      auth: 'saved-items:write' as const,
      detail: { summary, tags },
    },
  })
  const open = stateChange('/v1/saved-items/:id/open', 'Open an item: marks it read and records when it was opened', {
    kind: 'open',
  })
  const read = stateChange('/v1/saved-items/:id/read', 'Mark an item read', { kind: 'read-state', isRead: true })
  const unread = stateChange('/v1/saved-items/:id/unread', 'Mark an item unread', { kind: 'read-state', isRead: false })

  return new Elysia()
    .use(guard)
    .get(LIST_PATH, ({ query, principal }) => listResponse(deps, principal, query, listUrl), {
      query: ListQuery,
      response: {
        200: SavedItemList,
        ...commonAuthedErrors,
        400: Errors.ValidationError,
        404: Errors.FolderNotFoundError,
      },
      auth: 'saved-items:read',
      detail: {
        summary: 'List saved items',
        description:
          'Sorted by `sort` (newest by default; ties by id, newest first). `folder` filters by a folder id, or `none` for items in no folder. With `limit`, a `Link: <…>; rel="next"` header names the next page.',
        tags,
      },
    })
    .get('/v1/saved-items/lookup', async ({ query, principal }) => await lookupItem(deps, principal, query.url), {
      query: LookupQuery,
      response: {
        200: SavedItem,
        ...commonAuthedErrors,
        400: t.Union([Errors.ValidationError, Errors.InvalidUrlError]),
        ...notFound,
      },
      auth: 'saved-items:read',
      detail: {
        summary: 'Is this page saved? The item for a URL',
        description:
          'The caller\'s item whose `normalizedUrl` is the normalization of `url` (the rules of a capture, docs/url-normalization.md), so `https://www.example.org/a/?utm_source=x#top` finds the item saved as `https://example.org/a`. None: 404 `SavedItemNotFoundError`, its `savedItemId` carrying the normalized URL looked up. Not an absolute http(s) URL: 400 `InvalidUrlError`. Capture clients use it for a "saved" mark on the page in view.',
        tags,
      },
    })
    .post(open.path, open.handler, open.options)
    .post(read.path, read.handler, read.options)
    .post(unread.path, unread.handler, unread.options)
    .post(
      '/v1/saved-items/:id/read-state',
      ({ params, body, principal }) =>
        changeItem(deps, principal, params.id, { kind: 'read-state', isRead: body.isRead }),
      {
        params: IdParams,
        body: ReadStateRequest,
        response: { 200: SavedItem, ...commonAuthedErrors, ...commonWriteErrors, ...notFound },
        auth: 'saved-items:write',
        detail: { summary: 'Set the read state of an item', tags },
      },
    )
    .put(
      '/v1/saved-items/:id/folder',
      ({ params, body, principal }) =>
        changeItem(deps, principal, params.id, { kind: 'folder', folderId: body.folderId }),
      {
        params: IdParams,
        body: SetFolderRequest,
        response: {
          200: SavedItem,
          ...commonAuthedErrors,
          ...commonWriteErrors,
          404: t.Union([Errors.SavedItemNotFoundError, Errors.FolderNotFoundError]),
        },
        auth: 'saved-items:write',
        detail: {
          summary: 'Put an item in a folder, or take it out with folderId null',
          tags,
        },
      },
    )
    .put(
      '/v1/saved-items/:id/tags',
      ({ params, body, principal }) => changeItem(deps, principal, params.id, { kind: 'tags', tags: body.tags }),
      {
        params: IdParams,
        body: SetTagsRequest,
        response: { 200: SavedItem, ...commonAuthedErrors, ...commonWriteErrors, ...notFound },
        auth: 'saved-items:write',
        detail: {
          summary: "Set an item's tags",
          description:
            "Replaces the item's tags with the given set (duplicates dropped, in the given order); `[]` removes them all. A capture only ever adds tags (the union of old and new); this is how a client takes one away. The same set in any order changes nothing (no `updatedAt`, no change in the feed).",
          tags,
        },
      },
    )
    .get(
      '/v1/saved-items/:id/content',
      // async: Elysia awaits a handler's answer before checking it only when it can tell it is a promise.
      async ({ params, query, principal }) =>
        query.format === 'markdown'
          ? await readContent(deps, principal, params.id, 'markdown')
          : await readContent(deps, principal, params.id, 'html'),
      {
        params: IdParams,
        query: ContentQuery,
        response: {
          200: t.Union([HtmlContent, MarkdownContent]),
          ...commonAuthedErrors,
          400: Errors.ValidationError,
          404: t.Union([Errors.SavedItemNotFoundError, Errors.ContentNotFoundError]),
        },
        auth: 'saved-items:read',
        detail: {
          summary: "Read an item's article",
          description:
            'The readable article enrichment extracted from the page (or from the `html` a capture sent), sanitized; with `format=markdown`, as Markdown instead of `html` and `text`. 404 `ContentNotFoundError` while the item has none: pending, failed, not an article, or nothing readable.',
          tags,
        },
      },
    )
    .get(
      '/v1/saved-items/:id/images/:n',
      async ({ params, principal }) => imageResponse(await readItemImage(deps, principal, params.id, params.n)),
      {
        params: t.Object({ id: t.String(), n: t.String() }),
        response: {
          200: t.String(),
          ...commonAuthedErrors,
          404: t.Union([Errors.SavedItemNotFoundError, Errors.ImageNotFoundError]),
        },
        auth: 'saved-items:read',
        detail: {
          summary: "Read one of an article's archived images",
          description:
            "The n-th image enrichment archived for the item's article (docs/reading.md#archived-images): the bytes, with the type sniffed from them (PNG, JPEG, GIF, WebP or AVIF) and `Cache-Control: private, max-age=31536000, immutable` (an image's number never names other bytes). The article's HTML (`GET …/content`) points at each archived image as `{APP_URL}/items/{id}/images/{n}`, the web app's address of the same image; with a bearer credential, fetch it here instead. 404 `SavedItemNotFoundError` when the item is not the caller's, `ImageNotFoundError` when it has no image of that number.",
          tags,
          'x-download': [...ARCHIVED_IMAGE_TYPES],
        } as never,
      },
    )
    .put(
      '/v1/saved-items/:id/progress',
      async ({ params, body, principal }) => await saveProgress(deps, principal, params.id, body.progress),
      {
        params: IdParams,
        body: ProgressRequest,
        response: { 200: ProgressResponse, ...commonAuthedErrors, ...commonWriteErrors, ...notFound },
        auth: 'saved-items:write',
        detail: {
          summary: 'Save reading progress',
          description:
            'How far the person has read, 0 to 1; kept when the article is extracted again. Progress 1 also marks the item read, as `…/read` does. `updatedAt` is when the progress last changed: the progress already stored, sent again, changes nothing.',
          tags,
        },
      },
    )
    .delete(
      '/v1/saved-items/:id',
      async ({ params, principal, set }) => {
        await deleteItem(deps, principal, params.id)
        set.status = 204
      },
      {
        params: IdParams,
        response: {
          204: t.Void({ description: 'Deleted, or there was no such item' }),
          ...commonAuthedErrors,
          ...commonWriteErrors,
        },
        auth: 'saved-items:delete',
        detail: {
          summary: 'Delete an item (idempotent: 204 whether or not it existed)',
          tags,
        },
      },
    )
}
