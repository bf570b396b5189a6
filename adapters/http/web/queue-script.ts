import { assetText, staticAsset } from './pages/static-asset.ts'

/** Where the queue's script is served. */
export const QUEUE_SCRIPT_PATH = '/assets/queue.js'

/**
 * The queue page's script (docs/web.md#queue, `assets/queue.js`), an enhancement only: every form and link
 * works without it. With it, the queue's forms and links are fetched and the answer's `<main>` put in place
 * of the page's (no full reload; the address follows, and Back works), and the keyboard shortcuts listed
 * on the page work: `j`/`k` move between items, `o` opens one, `m` marks it read or unread, `/` goes to the
 * search box. Plain ES2017, no dependencies.
 */
export const QUEUE_SCRIPT = assetText('queue.js')

export const QUEUE_SCRIPT_ASSET = staticAsset(QUEUE_SCRIPT_PATH, QUEUE_SCRIPT)
