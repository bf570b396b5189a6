import { readFileSync } from 'node:fs'

// The web app's own files: its icons and its manifest (docs/web.md#save-from-anywhere).

const file = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`./assets/${name}`, import.meta.url)))

const ICONS: Record<string, { type: string; bytes: Uint8Array }> = {
  'icon.svg': { type: 'image/svg+xml', bytes: file('icon.svg') },
  'icon-192.png': { type: 'image/png', bytes: file('icon-192.png') },
  'icon-512.png': { type: 'image/png', bytes: file('icon-512.png') },
}

export const ICON_PATHS = Object.keys(ICONS).map((name) => `/assets/${name}`)

/** An icon, cached for a day (they change with a release, rarely). */
export function iconResponse(path: string): Response {
  const icon = ICONS[path.slice('/assets/'.length)]!
  return new Response(icon.bytes as BodyInit, {
    headers: { 'content-type': icon.type, 'cache-control': 'public, max-age=86400' },
  })
}

/**
 * The web app's manifest: installable, and a share target, so Android's share sheet can send a link to
 * `/save` (`url`, or a link inside `text`, which is where most apps put it).
 */
export const MANIFEST = {
  name: 'Readlater',
  short_name: 'Readlater',
  description: 'Your queue of saved web pages',
  id: '/',
  start_url: '/',
  scope: '/',
  display: 'standalone',
  background_color: '#fbfbfd',
  theme_color: '#c2410c',
  icons: [
    { src: '/assets/icon.svg', sizes: 'any', type: 'image/svg+xml' },
    { src: '/assets/icon-192.png', sizes: '192x192', type: 'image/png' },
    { src: '/assets/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any maskable' },
  ],
  share_target: {
    action: '/save',
    method: 'GET',
    params: { title: 'title', text: 'text', url: 'url' },
  },
}

export function manifestResponse(): Response {
  return new Response(JSON.stringify(MANIFEST), {
    headers: { 'content-type': 'application/manifest+json', 'cache-control': 'public, max-age=3600' },
  })
}
