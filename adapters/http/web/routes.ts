import { Elysia } from 'elysia'
import type { RouteContext } from '../route-context.ts'
import { accountRoutes } from './accounts-routes.ts'
import { connectPageRoutes } from './connect-routes.ts'
import { epubRoutes } from './epub-routes.ts'
import { highlightRoutes } from './highlight-routes.ts'
import { hidden } from './route-options.ts'
import { offlineRoutes } from './offline-routes.ts'
import { queueRoutes } from './queue-routes.ts'
import { readerRoutes } from './reader-routes.ts'
import { saveRoutes } from './save-routes.ts'
import { settingsRoutes } from './settings-routes.ts'
import { APP_STYLESHEET, APP_STYLESHEET_PATH } from './pages/styles.ts'
import { webhookSettingsRoutes } from './webhook-routes.ts'

/**
 * The server-rendered web app (docs/web.md#pages), one routes file per page area. Each page states what it
 * needs of the browser's session through the guard (`session`, `signedIn`, `form`: the session, the CSRF
 * check of every form before anything is written, pages for its errors; guard.ts); page-replies.ts makes
 * its answers.
 */
export const webRoutes = (context: RouteContext) => {
  return new Elysia()
    .use(accountRoutes(context))
    .use(settingsRoutes(context))
    .use(webhookSettingsRoutes(context))
    .use(queueRoutes(context))
    .use(readerRoutes(context))
    .use(epubRoutes(context))
    .use(highlightRoutes(context))
    .use(saveRoutes(context))
    .use(connectPageRoutes(context))
    .use(offlineRoutes(context))
    .get(APP_STYLESHEET_PATH, ({ request, query }) => APP_STYLESHEET.respond(request, query.v), hidden)
}
