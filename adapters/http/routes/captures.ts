import { Elysia, t } from 'elysia'
import type { RouteContext } from '../route-context.ts'
import {
  CaptureRequest,
  CaptureResponseCreated,
  CaptureResponseUpdated,
  commonAuthedErrors,
  commonWriteErrors,
  Errors,
} from '../schemas.ts'
import { captureUrl } from '../../app/saved-items.ts'

export const captureRoutes = ({ deps, guard }: RouteContext) =>
  new Elysia().use(guard).post(
    '/v1/captures',
    async ({ body, principal, set }) => {
      const { created, savedItem } = await captureUrl(deps, principal, body)
      set.status = created ? 201 : 200
      return { savedItem, captureResult: created ? ('created' as const) : ('updated' as const) }
    },
    {
      body: CaptureRequest,
      response: {
        200: CaptureResponseUpdated,
        201: CaptureResponseCreated,
        ...commonAuthedErrors,
        ...commonWriteErrors,
        400: t.Union([Errors.ValidationError, Errors.InvalidUrlError]),
        404: Errors.FolderNotFoundError,
      },
      auth: 'saved-items:capture',
      detail: {
        summary: 'Save a URL',
        description:
          'Saves a URL to the queue. A URL already saved (same normalized URL) is updated instead: 200 with captureResult "updated". Send an Idempotency-Key so a retry never saves twice.',
        tags: ['Capture'],
      },
    },
  )
