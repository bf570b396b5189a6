import { InvalidUrlError } from '../errors.ts'
import { isTrackingParam } from './tracking-params.ts'

/** Longest URL a capture accepts, counted on the raw input. @see docs/api.md#limits */
export const MAX_URL_LENGTH = 8192

export interface NormalizedUrl {
  /** The input, trimmed, with tabs and line breaks removed as the WHATWG parser removes them: what the person captured. */
  originalUrl: string
  /** The identity of the item: two captures are the same item when these are equal. */
  normalizedUrl: string
  /** Hostname without `www.`, trailing dot or port; IPv6 keeps its brackets. */
  host: string
}

/**
 * Removes what the WHATWG URL parser ignores: leading and trailing C0 controls and spaces, and every tab,
 * line feed and carriage return inside. Kept as given, a CR/LF would reach logs, exports and `Location`
 * headers that other code builds from the stored URL.
 * @see https://url.spec.whatwg.org/#concept-basic-url-parser (steps 1–3)
 */
function stripAsWhatwg(input: string): string {
  // eslint-disable-next-line no-control-regex
  return input.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '')
}

/**
 * Validates a captured URL and reduces it to the form that identifies a saved item.
 * Throws {@link InvalidUrlError} for anything but an absolute http(s) URL with a host and no
 * userinfo, or an input longer than {@link MAX_URL_LENGTH}.
 * @see docs/url-normalization.md
 */
export function normalizeUrl(input: string): NormalizedUrl {
  if (typeof input !== 'string') {
    throw new InvalidUrlError(String(input), 'Cannot save URL: the URL must be a string')
  }
  if (input.length > MAX_URL_LENGTH) {
    throw new InvalidUrlError(
      input,
      `Cannot save URL: it is ${input.length} characters long, the limit is ${MAX_URL_LENGTH}`,
    )
  }

  // Step 1: the WHATWG parser lowercases scheme and host, punycodes IDN, drops default ports and
  // resolves dot segments, identically on every runtime.
  const originalUrl = stripAsWhatwg(input.trim())
  if (originalUrl === '') throw new InvalidUrlError(input, 'Cannot save URL: the URL is empty')
  let url: URL
  try {
    url = new URL(originalUrl)
  } catch {
    throw new InvalidUrlError(input, `Cannot save URL: "${originalUrl}" is not an absolute URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidUrlError(input, `Cannot save URL: scheme "${url.protocol}" is not http or https`)
  }
  // Credentials in a saved link would be stored and shown in clear; refuse rather than strip, so
  // the person notices.
  if (url.username !== '' || url.password !== '') {
    throw new InvalidUrlError(input, 'Cannot save URL: it contains a user name or password')
  }

  // Step 2.
  let host = url.hostname
  if (host.endsWith('.')) host = host.slice(0, -1)
  // `www.` goes only when a registrable-looking name remains: `www.com` must not become `com`.
  if (host.startsWith('www.') && host.indexOf('.', 4) !== -1) host = host.slice(4)
  if (host === '') throw new InvalidUrlError(input, `Cannot save URL: "${originalUrl}" has no host`)

  // Step 3: `#!` and `#/` address client-side routes, so they name different content.
  const hash = url.hash.startsWith('#!') || url.hash.startsWith('#/') ? url.hash : ''

  // Step 6 (done early; it touches only the path).
  let path = url.pathname
  if (path !== '/' && path.endsWith('/')) path = path.slice(0, -1)

  const port = url.port === '' ? '' : `:${url.port}`
  return {
    originalUrl,
    normalizedUrl: `${url.protocol}//${host}${port}${path}${normalizeQuery(url.search)}${hash}`,
    host,
  }
}

/**
 * Steps 4 and 5 on the raw query string. URLSearchParams is avoided on purpose: it re-encodes
 * every value (`%20` becomes `+`, `a` becomes `a=`), which would make the stored URL differ from
 * what the site was given. Each `name=value` pair is kept byte for byte as the WHATWG parser left
 * it; only names are decoded, to compare and sort them. Empty pairs (`a=1&&b=2`) are dropped.
 */
function normalizeQuery(search: string): string {
  const pairs: { name: string; text: string }[] = []
  for (const text of search.slice(1).split('&')) {
    if (text === '') continue
    const name = decodeQueryName(text.split('=', 1)[0] ?? '')
    if (!isTrackingParam(name)) pairs.push({ name, text })
  }
  // Array.prototype.sort is stable (ES2019), so repeated names keep their relative order,
  // which matters for `tag=a&tag=b`.
  pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return pairs.length === 0 ? '' : `?${pairs.map((pair) => pair.text).join('&')}`
}

function decodeQueryName(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '))
  } catch {
    // A malformed escape such as `%zz` cannot be decoded; compare it as written.
    return raw
  }
}
