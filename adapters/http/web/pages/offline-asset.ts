import { assetText, staticAsset } from './static-asset.ts'

// The web app's offline pieces that pages need (docs/web.md#offline): the page script and the header that
// says whose page it is. The worker itself is served by offline-routes.ts.

/** Where the offline script is served; pages ask for it with `?v=` its hash. */
export const OFFLINE_SCRIPT_PATH = '/assets/offline.js'

/**
 * The script of the pages kept for reading offline (`assets/offline.js`): it registers the service worker,
 * shows the "Offline" banner, shows changes made offline before they are sent, and says when they were.
 * Plain ES2017, no dependencies.
 */
export const OFFLINE_SCRIPT_ASSET = staticAsset(OFFLINE_SCRIPT_PATH, assetText('offline.js'))

/** On a signed-in person's page: an opaque key of theirs; the worker keeps and serves only that person's pages. */
export const OFFLINE_USER_HEADER = 'x-readlater-user'
