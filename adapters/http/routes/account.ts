import { Elysia } from 'elysia'
import { UnauthorizedError } from '../../../core/errors.ts'
import type { RouteContext } from '../route-context.ts'
import { commonAuthedErrors, Health, Me } from '../schemas.ts'
import { findUserById } from '../../storage/users.ts'

const health = () => ({ ok: true })

export const accountRoutes = ({ deps, principalOf, docs }: RouteContext) =>
  new Elysia()
    .get('/health', health, { response: { 200: Health }, detail: docs('public', { summary: 'Health check', tags: ['Health'] }) })
    .get('/v1/health', health, { response: { 200: Health }, detail: docs('public', { summary: 'Health check', tags: ['Health'] }) })
    .get('/v1/me', async ({ request }) => {
      const user = await findUserById(deps.db, principalOf(request).userId)
      if (!user) throw new UnauthorizedError('The account behind this credential no longer exists', true)
      return { id: user.id, email: user.email }
    }, {
      response: { 200: Me, ...commonAuthedErrors },
      detail: docs('account:read', { summary: 'The account the credential acts for', tags: ['Account'] }),
    })
