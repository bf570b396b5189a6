import { createHash } from 'node:crypto'
import { Elysia } from 'elysia'
import { offlineManifest } from '../../app/offline.ts'
import type { RouteContext } from '../route-context.ts'
import { ICON_PATHS, iconResponse, MANIFEST } from './app-assets.ts'
import { OFFLINE_SCRIPT_ASSET, OFFLINE_SCRIPT_PATH, OFFLINE_USER_HEADER } from './pages/offline-asset.ts'
import { assetText } from './pages/static-asset.ts'
import { APP_STYLESHEET } from './pages/styles.ts'
import { QUEUE_SCRIPT_ASSET } from './queue-script.ts'
import { READER_SCRIPT_ASSET } from './reader-script.ts'
import { type PageVisitor, sendHeldCookie } from './page-replies.ts'
import { hidden } from './route-options.ts'

/**
 * Sent with sign-out and account deletion: the browser drops this origin's caches and storage, the service
 * worker with its kept pages and queued actions among them (docs/security.md#offline-storage). Cookies are
 * the answer's own business (the session cookie is ended beside it).
 */
export const CLEAR_OFFLINE_DATA = '"cache", "storage"'

/** Where the service worker is served: at the root, so its scope is the whole app without `Service-Worker-Allowed`. */
export const SERVICE_WORKER_PATH = '/sw.js'

/**
 * The service worker as built from `worker/sw.js` with Workbox by `npm run build:sw` (committed:
 * `npm start` has no build step; test/web/offline-bundle.test.ts holds it equal to a fresh build).
 */
const WORKER_BUNDLE = assetText('sw.js')

const hash = (bytes: string | Uint8Array): string => createHash('sha256').update(bytes).digest('hex').slice(0, 16)

/**
 * The app shell the worker precaches (Workbox's precache manifest), by the versioned names pages use: the
 * stylesheet and scripts carry `?v=` their hash already; the icons and the web app manifest get theirs as a
 * revision. Any change makes a new worker text, which the browser installs in place of the old.
 */
async function shell(): Promise<{ url: string; revision: string | null }[]> {
  const icons = await Promise.all(
    ICON_PATHS.map(async (path) => ({
      url: path,
      revision: hash(new Uint8Array(await iconResponse(path).arrayBuffer())),
    })),
  )
  return [
    { url: APP_STYLESHEET.src, revision: null },
    { url: QUEUE_SCRIPT_ASSET.src, revision: null },
    { url: READER_SCRIPT_ASSET.src, revision: null },
    { url: OFFLINE_SCRIPT_ASSET.src, revision: null },
    ...icons,
    { url: '/manifest.webmanifest', revision: hash(JSON.stringify(MANIFEST)) },
  ]
}

let worker: Promise<{ text: string; etag: string }> | undefined
/** The served worker: the shell list, then the bundle. Made once per process. */
const workerText = () =>
  (worker ??= shell().then((entries) => {
    const text = `self.__READLATER_SHELL = ${JSON.stringify(entries)};\n${WORKER_BUNDLE}`
    return { text, etag: `"${hash(text)}"` }
  }))

/** The offline web app's routes (docs/web.md#offline): the worker, the list of what it keeps, the page script. */
export function offlineRoutes({ deps, guard }: RouteContext) {
  // Always revalidated (browsers check a worker's script at most every 24 hours anyway): a release's new
  // shell reaches every browser at its next page load.
  const serveWorker = async ({ request }: { request: Request }) => {
    const { text, etag } = await workerText()
    const headers = { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', etag }
    if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers })
    return new Response(text, { headers })
  }

  /**
   * What the worker keeps for the signed-in person: a session's JSON for the app's own worker (not an API
   * route: it lists pages of the web app). Signed out, 401 and no redirect: the worker reads the status.
   */
  const showManifest = async (c: PageVisitor) => {
    sendHeldCookie(c)
    const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' })
    if (!c.session) {
      const body = { _tag: 'UnauthorizedError', message: 'Sign in to keep your queue for reading offline.' }
      return new Response(JSON.stringify(body), { status: 401, headers })
    }
    const manifest = await offlineManifest(deps, c.session.userId, c.csrf)
    headers.set(OFFLINE_USER_HEADER, manifest.user)
    const text = JSON.stringify(manifest)
    const etag = `"${hash(text)}"`
    headers.set('etag', etag)
    if (c.request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers })
    return new Response(text, { headers })
  }

  return new Elysia()
    .use(guard)
    .get(SERVICE_WORKER_PATH, serveWorker, hidden)
    .get('/offline/manifest.json', showManifest, { ...hidden, session: true })
    .get(OFFLINE_SCRIPT_PATH, ({ request, query }) => OFFLINE_SCRIPT_ASSET.respond(request, query.v), hidden)
}
