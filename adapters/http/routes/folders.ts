import { Elysia, t } from 'elysia'
import type { RouteContext } from '../route-context.ts'
import {
  commonAuthedErrors,
  commonWriteErrors,
  Errors,
  Folder,
  FolderList,
  FolderNameRequest,
  IdParams,
} from '../schemas.ts'
import { folderCreate, folderDelete, folderList, folderRename } from '../../app/folders.ts'

const tags = ['Folders']
const nameErrors = {
  400: t.Union([Errors.ValidationError, Errors.InvalidFolderNameError]),
  409: t.Union([Errors.FolderNameConflictError, Errors.IdempotencyKeyInFlightError]),
}

export const folderRoutes = ({ deps, principalOf, docs }: RouteContext) =>
  new Elysia()
    .get('/v1/folders', async ({ request }) => ({ folders: await folderList(deps, principalOf(request)) }), {
      response: { 200: FolderList, ...commonAuthedErrors },
      detail: docs('folders:read', { summary: 'List folders, sorted by name (case-insensitive)', tags }),
    })
    .post('/v1/folders', ({ body, request }) => folderCreate(deps, principalOf(request), body.name), {
      body: FolderNameRequest,
      response: { 200: Folder, ...commonAuthedErrors, ...commonWriteErrors, ...nameErrors },
      detail: docs('folders:write', { summary: 'Create a folder (names are unique per person, ignoring case)', tags }),
    })
    .patch(
      '/v1/folders/:id',
      ({ params, body, request }) => folderRename(deps, principalOf(request), params.id, body.name),
      {
        params: IdParams,
        body: FolderNameRequest,
        response: {
          200: Folder,
          ...commonAuthedErrors,
          ...commonWriteErrors,
          ...nameErrors,
          404: Errors.FolderNotFoundError,
        },
        detail: docs('folders:write', { summary: 'Rename a folder', tags }),
      },
    )
    .delete(
      '/v1/folders/:id',
      async ({ params, request, set }) => {
        await folderDelete(deps, principalOf(request), params.id)
        set.status = 204
      },
      {
        params: IdParams,
        response: {
          204: t.Void({ description: 'Deleted; its items are kept with folder null' }),
          ...commonAuthedErrors,
          ...commonWriteErrors,
          404: Errors.FolderNotFoundError,
        },
        detail: docs('folders:delete', {
          summary: 'Delete a folder, keeping its items (their folder becomes null)',
          tags,
        }),
      },
    )
