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

export const folderRoutes = ({ deps, guard }: RouteContext) =>
  new Elysia()
    .use(guard)
    .get('/v1/folders', async ({ principal }) => ({ folders: await folderList(deps, principal) }), {
      response: { 200: FolderList, ...commonAuthedErrors },
      auth: 'folders:read',
      detail: { summary: 'List folders, sorted by name (case-insensitive)', tags },
    })
    .post('/v1/folders', ({ body, principal }) => folderCreate(deps, principal, body.name), {
      body: FolderNameRequest,
      response: { 200: Folder, ...commonAuthedErrors, ...commonWriteErrors, ...nameErrors },
      auth: 'folders:write',
      detail: { summary: 'Create a folder (names are unique per person, ignoring case)', tags },
    })
    .patch('/v1/folders/:id', ({ params, body, principal }) => folderRename(deps, principal, params.id, body.name), {
      params: IdParams,
      body: FolderNameRequest,
      response: {
        200: Folder,
        ...commonAuthedErrors,
        ...commonWriteErrors,
        ...nameErrors,
        404: Errors.FolderNotFoundError,
      },
      auth: 'folders:write',
      detail: { summary: 'Rename a folder', tags },
    })
    .delete(
      '/v1/folders/:id',
      async ({ params, principal, set }) => {
        await folderDelete(deps, principal, params.id)
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
        auth: 'folders:delete',
        detail: {
          summary: 'Delete a folder, keeping its items (their folder becomes null)',
          tags,
        },
      },
    )
