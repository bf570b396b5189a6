// One source for Chromium and Firefox. In Manifest V3 both answer with promises: Firefox under `browser`
// (and `chrome`), Chromium under `chrome`; every call this extension makes has the same shape in both, so
// a one-line shim does what webextension-polyfill would (docs/extension.md#firefox).

/** The extension API of whichever browser runs this. */
export const ext: typeof chrome = (globalThis as { browser?: typeof chrome }).browser ?? chrome

declare const __READLATER_TARGET__: 'chromium' | 'firefox'

/** The build this file is part of (set by scripts/build-extension.mjs). */
export const TARGET: 'chromium' | 'firefox' = __READLATER_TARGET__
