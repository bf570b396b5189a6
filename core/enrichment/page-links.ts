// Longer URLs are tracking blobs or inlined data, not something worth storing on an item.
const MAX_URL_LENGTH = 4096
const DARK = /prefers-color-scheme\s*:\s*dark/i
const LIGHT = /prefers-color-scheme\s*:\s*light/i

/** A `<link>` whose rel names an icon, as written in the page. */
export interface IconLink {
  href: string
  media: string
  appleTouch: boolean
}

/**
 * `raw` resolved against `base` (an absolute URL), when the result is http or https and of a sane
 * length; else null. Surrounding whitespace is ignored, as browsers do; the fragment is kept.
 */
export function resolveHttpUrl(raw: string | null | undefined, base: string): string | null {
  const trimmed = raw?.trim() ?? ''
  // An empty href would resolve to the page itself, which is not an image or an icon.
  if (trimmed === '') return null
  let url: URL
  try {
    url = new URL(trimmed, base)
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  return url.href.length > MAX_URL_LENGTH ? null : url.href
}

/** The first of `candidates` that resolves to an http(s) URL. */
export function firstHttpUrl(candidates: readonly string[], base: string): string | null {
  for (const candidate of candidates) {
    const url = resolveHttpUrl(candidate, base)
    if (url !== null) return url
  }
  return null
}

/**
 * Favicons from the page's icon links: the first light and dark variants (by a
 * `prefers-color-scheme` media query), and a main icon: the first icon without a color scheme,
 * else the light one, else the dark one, else an apple-touch-icon, else `/favicon.ico` at the
 * origin of the page.
 */
export function chooseFavicons(
  icons: readonly IconLink[],
  base: string,
  pageUrl: string,
): {
  faviconUrl: string | null
  faviconLightUrl: string | null
  faviconDarkUrl: string | null
} {
  let plain: string | null = null
  let light: string | null = null
  let dark: string | null = null
  let appleTouch: string | null = null
  for (const icon of icons) {
    const url = resolveHttpUrl(icon.href, base)
    if (url === null) continue
    if (icon.appleTouch) appleTouch ??= url
    else if (DARK.test(icon.media)) dark ??= url
    else if (LIGHT.test(icon.media)) light ??= url
    else plain ??= url
  }
  return {
    faviconUrl: plain ?? light ?? dark ?? appleTouch ?? defaultFavicon(pageUrl),
    faviconLightUrl: light,
    faviconDarkUrl: dark,
  }
}

/** `{origin}/favicon.ico` for an http(s) page, else null. */
export function defaultFavicon(pageUrl: string): string | null {
  return resolveHttpUrl('/favicon.ico', pageUrl)
}
