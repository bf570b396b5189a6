import { Elysia } from 'elysia'
import type { RouteContext } from '../route-context.ts'
import { commonAuthedErrors, Health, Me } from '../schemas.ts'
import { whoAmI } from '../../app/account.ts'

export const accountRoutes = ({ deps, guard }: RouteContext) => {
  // Healthy means the database answers; a 503 lets load balancers and Docker see an outage.
  const health = async ({ set }: { set: { status?: number | string } }) => {
    const ok = await deps.db.$client.execute('SELECT 1').then(
      () => true,
      () => false,
    )
    if (!ok) set.status = 503
    return { ok }
  }
  const healthOptions = {
    response: { 200: Health, 503: Health },
    public: true as const,
    detail: {
      summary: 'Health check: 200 {"ok":true} while the database answers, else 503 {"ok":false}',
      tags: ['Health'],
    },
  }
  return new Elysia()
    .use(guard)
    .get('/health', health, healthOptions)
    .get('/v1/health', health, healthOptions)
    .get('/v1/me', ({ principal }) => whoAmI(deps, principal), {
      response: { 200: Me, ...commonAuthedErrors },
      auth: 'account:read',
      detail: { summary: 'The account the credential acts for', tags: ['Account'] },
    })
}
