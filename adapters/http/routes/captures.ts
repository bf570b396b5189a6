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
      // A capture may carry the page as the browser rendered it (docs/reading.md#page-capture): up to 5 MiB.
      auth: { scope: 'saved-items:capture', pageBody: true },
      detail: {
        summary: 'Save a URL',
        description:
          'Saves a URL to the queue. A URL already saved (same normalized URL) is updated instead: 200 with captureResult "updated". Send an Idempotency-Key so a retry never saves twice. With `html` (the page as the browser rendered it; the body may then be up to 5 MiB, else 64 KiB) enrichment reads that page instead of fetching the URL, and a recapture with `html` replaces the stored article.',
        tags: ['Capture'],
      },
    },
  )
