import { Elysia, t } from 'elysia'
import { FolderNotFoundError } from '../../../core/errors.ts'
import { prepareCapture } from '../../../core/items/capture.ts'
import { uuidv7 } from '../../../core/ids.ts'
import type { RouteContext } from '../route-context.ts'
import { toSavedItemDto } from '../dto.ts'
import { CaptureRequest, CaptureResponseCreated, CaptureResponseUpdated, commonAuthedErrors, commonWriteErrors, Errors } from '../schemas.ts'
import { folderExists, upsertCapture } from '../../storage/saved-items.ts'

export const captureRoutes = ({ deps, principalOf, docs }: RouteContext) =>
  new Elysia().post('/v1/captures', async ({ body, request, set }) => {
    const principal = principalOf(request)
    const now = deps.clock.now()
    const prepared = prepareCapture(body, { id: uuidv7(now.getTime(), deps.random), userId: principal.userId, now, connectClient: principal.connectClient })
    if (prepared.row.folderId && !(await folderExists(deps.db, principal.userId, prepared.row.folderId))) {
      throw new FolderNotFoundError(prepared.row.folderId)
    }
    const { created, item } = await upsertCapture(deps.db, prepared)
    set.status = created ? 201 : 200
    return { savedItem: toSavedItemDto(item), captureResult: created ? 'created' as const : 'updated' as const }
  }, {
    body: CaptureRequest,
    response: {
      200: CaptureResponseUpdated,
      201: CaptureResponseCreated,
      ...commonAuthedErrors,
      ...commonWriteErrors,
      400: t.Union([Errors.ValidationError, Errors.InvalidUrlError]),
      404: Errors.FolderNotFoundError,
    },
    detail: docs('saved-items:capture', {
      summary: 'Save a URL',
      description: 'Saves a URL to the queue. A URL already saved (same normalized URL) is updated instead: 200 with captureResult "updated". Send an Idempotency-Key so a retry never saves twice.',
      tags: ['Capture'],
    }),
  })
