import { assetText, staticAsset } from './static-asset.ts'

// Small, dependency-free CSS: readable on a phone and a desktop, light and dark.
export const STYLES = assetText('styles.css')

/** The reader view's own CSS (`assets/reader.css`), in its page's `<style>` beside the app's stylesheet. */
export const READER_STYLES = assetText('reader.css')

/** Where the app's stylesheet is served (every page links it; docs/web.md#pages). */
export const APP_STYLESHEET_PATH = '/assets/app.css'
export const APP_STYLESHEET = staticAsset(APP_STYLESHEET_PATH, STYLES, 'text/css; charset=utf-8')
