import { assetText, staticAsset } from './pages/static-asset.ts'

/** Where the reader view's script is served; the page adds `?v=` (its hash) so a new release is fetched anew. */
export const READER_SCRIPT_PATH = '/assets/reader.js'

/**
 * The reader view's only script (docs/web.md#reader-view, `assets/reader.js`): it puts the person back where
 * they stopped and saves how far they have read as they scroll. Plain ES2017 with no dependencies, served as
 * a file of our own because the page's policy allows no inline script. It reads the item id, the CSRF token
 * and the saved progress from the article's `data-` attributes.
 */
export const READER_SCRIPT = assetText('reader.js')

/** How long after scrolling stops the position is saved: the script's own `SAVE_DELAY_MS`. */
export const SAVE_DELAY_MS = Number(/\bvar SAVE_DELAY_MS = (\d+)\b/.exec(READER_SCRIPT)?.[1] ?? Number.NaN)
if (!Number.isInteger(SAVE_DELAY_MS)) throw new Error('assets/reader.js declares no SAVE_DELAY_MS')

/** Changes whenever the script does: the page asks for this version, and it may be cached for good. */
export const READER_SCRIPT_ASSET = staticAsset(READER_SCRIPT_PATH, READER_SCRIPT)
export const READER_SCRIPT_VERSION = READER_SCRIPT_ASSET.version
