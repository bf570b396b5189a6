import { Elysia } from 'elysia'
import { changesSince } from '../../app/changes.ts'
import type { RouteContext } from '../route-context.ts'
import { ChangesPage, ChangesQuery, commonAuthedErrors, Errors } from '../schemas.ts'

const DESCRIPTION = [
  'What changed in the library, oldest change first, at most 500 entries a page: each changed item, highlight (and folder, with folders:read) once per page, as it is now (`upsert`) or `delete`.',
  'Without `since`: every live folder, item and highlight as upserts, then a cursor. Send each page’s `cursor` back as `since`; while `hasMore`, ask again at once.',
  'Deletions stay visible for 30 days: an older cursor is 410 CursorExpiredError (start over without `since`); a cursor this API did not issue is 400 ValidationError.',
].join(' ')

export const changesRoutes = ({ deps, guard }: RouteContext) =>
  new Elysia().use(guard).get('/v1/changes', ({ query, principal }) => changesSince(deps, principal, query.since), {
    query: ChangesQuery,
    response: { 200: ChangesPage, ...commonAuthedErrors, 400: Errors.ValidationError, 410: Errors.CursorExpiredError },
    auth: 'saved-items:read',
    detail: { summary: 'Changes since a cursor', description: DESCRIPTION, tags: ['Sync'] },
  })
