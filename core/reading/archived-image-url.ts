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
