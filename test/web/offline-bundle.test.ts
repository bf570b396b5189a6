import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
// @ts-expect-error: a plain ES module script of the build, without type declarations.
import { buildServiceWorker, OUTPUT } from '../../scripts/build-service-worker.mjs'

// docs/web.md#offline: the service worker is served from a committed bundle (`npm start` and the installed
// package have no build step and no esbuild), so the bundle must be what its source and the locked Workbox
// make today. After changing adapters/http/web/worker/sw.js or Workbox: `npm run build:sw`.
test('assets/sw.js is a fresh build of worker/sw.js with the locked Workbox', async () => {
  const fresh: string = await buildServiceWorker()
  expect(readFileSync(OUTPUT, 'utf8') === fresh).toBe(true)
  // No remote code: Workbox is inside, never loaded from a CDN (the pages' CSP allows our own scripts only).
  expect(fresh.includes('importScripts')).toBe(false)
  expect(fresh).toContain('readlater-actions')
})
