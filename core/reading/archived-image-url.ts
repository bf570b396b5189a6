// The address of an archived image (docs/reading.md#archived-images), imported alone by the typed client: no
// dependency, Web APIs only.

/**
 * Where our copy of an item's n-th image is served and what a stored article's `<img src>` says:
 * `{APP_URL}/items/{id}/images/{n}`, absolute, so the reader view, the content endpoint's HTML and an
 * offline copy all load it from here (docs/reading.md#archived-images).
 */
export function archivedImageUrl(appUrl: string, itemId: string, n: number): string {
  return `${appUrl.replace(/\/+$/, '')}/items/${encodeURIComponent(itemId)}/images/${n}`
}

/**
 * The item and number of an archived image's URL as {@link archivedImageUrl} wrote it under `appUrl`, or
 * null for any other URL: how an export or an offline copy finds the images of stored HTML to read them
 * by number (REST: `GET /v1/saved-items/{id}/images/{n}`).
 */
export function archivedImageOf(src: string, appUrl: string): { itemId: string; n: number } | null {
  const prefix = `${appUrl.replace(/\/+$/, '')}/items/`
  if (!src.startsWith(prefix)) return null
  const match = /^([^/?#]+)\/images\/([1-9][0-9]{0,8})$/.exec(src.slice(prefix.length))
  if (!match) return null
  try {
    return { itemId: decodeURIComponent(match[1]!), n: Number(match[2]) }
  } catch {
    return null
  }
}

/**
 * The article's HTML with its archived images at the current `appUrl`: a stored article keeps the address
 * its images were archived under, so after the service moves (a new `APP_URL`, or the first one set after
 * running on the default) every read rewrites them (docs/reading.md#archived-images). Only an attribute
 * value that is an http(s) URL ending in this item's own `/items/{id}/images/{n}` is rewritten: no other
 * page's address holds the item's id. The HTML itself when it has none.
 */
export function rebaseArchivedImages(html: string, itemId: string, appUrl: string): string {
  const tail = `/items/${encodeURIComponent(itemId)}/images/`
  if (!html.includes(tail)) return html
  const escaped = tail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const current = `${appUrl.replace(/\/+$/, '')}${tail}`
  return html.replace(
    new RegExp(`(["'])https?://[^"'\\s<>]*?${escaped}([1-9][0-9]{0,8})(?=["'])`, 'g'),
    (_, quote: string, n: string) => `${quote}${current}${n}`,
  )
}
