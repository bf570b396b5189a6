import { Elysia } from 'elysia'
import type { RouteContext } from '../route-context.ts'
import { accountRoutes } from './accounts-routes.ts'
import { hidden, webKit } from './kit.ts'
import { queueRoutes } from './queue-routes.ts'
import { readerRoutes } from './reader-routes.ts'
import { saveRoutes } from './save-routes.ts'
import { settingsRoutes } from './settings-routes.ts'
import { APP_STYLESHEET, APP_STYLESHEET_PATH } from './styles.ts'
import { webhookSettingsRoutes } from './webhook-routes.ts'

/**
 * The server-rendered web app (docs/web.md#pages), one routes file per page area. Pages are outside the API
 * guard: they read the session cookie themselves and check the CSRF field on every POST before anything is
 * written (kit.ts).
 */
export const webRoutes = ({ deps, guard }: RouteContext) => {
  const kit = webKit(deps)
  return new Elysia()
    .use(accountRoutes(kit, guard))
    .use(settingsRoutes(kit))
    .use(webhookSettingsRoutes(kit))
    .use(queueRoutes(kit))
    .use(readerRoutes(kit))
    .use(saveRoutes(kit))
    .get(APP_STYLESHEET_PATH, ({ request, query }) => APP_STYLESHEET.respond(request, query.v), hidden)
}
