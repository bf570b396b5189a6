import sanitizeHtml from 'sanitize-html'

/**
 * The markup an article may keep (docs/reading.md#sanitizing): structure, links, images, code, quotes,
 * tables and emphasis. Anything else is dropped with its tags; the elements of NO_TEXT go with their content.
 */
export const ARTICLE_TAGS = [
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'p',
  'br',
  'hr',
  'ul',
  'ol',
  'li',
  'a',
  'img',
  'figure',
  'figcaption',
  'pre',
  'code',
  'blockquote',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'em',
  'strong',
  'sub',
  'sup',
] as const

// Their text is not article text, or not text at all: dropped whole, not unwrapped (also by the EPUB writer).
export const NO_TEXT = [
  'script',
  'style',
  'noscript',
  'template',
  'textarea',
  'option',
  'select',
  'button',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'head',
  'title',
]

// Images a browser renders but never runs: SVG (which can carry script in other contexts) is not among them.
const DATA_IMAGE = /^data:image\/(?:png|jpeg|jpg|gif|webp|avif|bmp);base64,[a-z0-9+/=\s]*$/i

/** `value` as an absolute http(s) URL against `base`, or null (other schemes, unparseable). */
export function httpUrl(value: string, base: string): string | null {
  try {
    const url = new URL(value.trim(), base)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null
  } catch {
    return null
  }
}

/**
 * Cleans an article's HTML to the allowlist: relative links and images resolved against `baseUrl`, only
 * `http(s)` links and images (plus `data:image/*` raster images), no attribute but the few each element
 * needs, links marked `rel="noopener noreferrer nofollow"`. The result is what the reader view embeds, so
 * this is the trust boundary. `archivedImages` maps an image's URL (as a first pass left it) to the URL of
 * our copy of it. @see docs/reading.md#sanitizing
 */
export function sanitizeArticle(
  html: string,
  baseUrl: string,
  options: { archivedImages?: ReadonlyMap<string, string> } = {},
): string {
  const archived = options.archivedImages
  return sanitizeHtml(html, {
    allowedTags: [...ARTICLE_TAGS],
    allowedAttributes: {
      a: ['href', 'title', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      th: ['colspan', 'rowspan', 'scope'],
      td: ['colspan', 'rowspan'],
      ol: ['start'],
    },
    allowedSchemes: ['http', 'https'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    nonTextTags: NO_TEXT,
    parser: { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true },
    transformTags: {
      b: 'strong',
      i: 'em',
      a: (tagName, attribs) => {
        const href = attribs.href === undefined ? null : httpUrl(attribs.href, baseUrl)
        // The page's own `rel` never survives: a link gets ours, a link whose href failed gets none.
        const { href: _, rel: __, ...rest } = attribs
        return {
          tagName,
          attribs: href ? { ...rest, href, rel: 'noopener noreferrer nofollow' } : rest,
        }
      },
      img: (tagName, attribs) => {
        const { src: raw, srcset: _, ...rest } = attribs
        const src = raw === undefined ? null : DATA_IMAGE.test(raw.trim()) ? raw.trim() : httpUrl(raw, baseUrl)
        // An archived image points at our copy (docs/reading.md#archived-images); the copy's URL passes the
        // same check as any other, so the rewritten article is sanitizer output like the first.
        const copy = src === null ? undefined : archived?.get(src)
        const kept = copy === undefined ? src : httpUrl(copy, baseUrl)
        return { tagName, attribs: kept ? { ...rest, src: kept } : rest }
      },
    },
    // An image without a usable source shows nothing: drop it rather than keep an empty <img>.
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
  })
}
