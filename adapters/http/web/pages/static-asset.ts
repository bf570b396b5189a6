import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

/** One of our own scripts or stylesheets, served from a same-origin path (pages carry no inline script: docs/security.md). */
export interface StaticAsset {
  /** The address a page loads: the path with `?v=` its hash, so a new release is fetched anew. */
  src: string
  version: string
  /**
   * The asset's answer. The page asks for the version it was made with (`?v=`), which may be kept for good;
   * any other address of it is revalidated, so a stale page never pins an old script.
   */
  respond(request: Request, version: string | undefined): Response
}

export function staticAsset(path: string, source: string, type = 'text/javascript; charset=utf-8'): StaticAsset {
  const version = createHash('sha256').update(source).digest('hex').slice(0, 16)
  const etag = `"${version}"`
  return {
    src: `${path}?v=${version}`,
    version,
    respond(request, asked) {
      const headers = {
        'content-type': type,
        'cache-control': asked === version ? 'public, max-age=31536000, immutable' : 'no-cache',
        etag,
      }
      if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers })
      return new Response(source, { headers })
    },
  }
}

/**
 * The text of one of our files in `web/assets/` (scripts and stylesheets, formatted by Biome like the rest of
 * the code), read once at start-up from the folder beside `pages/`; `scripts/build.mjs` copies the folder into the package.
 */
export const assetText = (name: string): string => readFileSync(new URL(`../assets/${name}`, import.meta.url), 'utf8')
