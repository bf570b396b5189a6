// How elements bear on readable text and metadata while a page streams by.

// The page's `<h1>` is skipped too: it repeats the title, which is shown next to the summary anyway.
const SKIP_TAGS: ReadonlySet<string> = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'nav',
  'header',
  'footer',
  'aside',
  'form',
  'button',
  'select',
  'textarea',
  'title',
  'iframe',
  'object',
  'video',
  'audio',
  'canvas',
  'dialog',
  'h1',
])
// Browsers running scripts read `<noscript>` as text, and `<template>` content is never rendered.
export const INERT_TAGS: ReadonlySet<string> = new Set(['template', 'svg', 'math', 'noscript'])
const SKIP_ROLES: ReadonlySet<string> = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'dialog',
])
// Class or id names of page furniture that sits inside content regions. Whole names only, and never
// on the page's structural elements: `<body class="comments-open">` must not hide the page.
const BOILERPLATE_NAMES: ReadonlySet<string> = new Set([
  'byline',
  'author',
  'author-info',
  'meta',
  'post-meta',
  'entry-meta',
  'article-meta',
  'share',
  'sharing',
  'share-buttons',
  'social',
  'social-share',
  'related',
  'related-posts',
  'comments',
  'comment-list',
  'breadcrumb',
  'breadcrumbs',
  'cookie-banner',
  'cookie-notice',
  'newsletter',
  'promo',
  'ad',
  'ads',
  'advert',
  'advertisement',
  'sr-only',
  'visually-hidden',
  'screen-reader-text',
  'skip-link',
  'toc',
  'table-of-contents',
])
const STRUCTURAL_TAGS: ReadonlySet<string> = new Set(['html', 'body', 'main', 'article'])
// Anything else in the head starts the body, as the HTML tree builder decides.
export const HEAD_TAGS: ReadonlySet<string> = new Set([
  'html',
  'head',
  'title',
  'base',
  'link',
  'meta',
  'style',
  'script',
  'noscript',
  'template',
])
// Text-level elements join their text to their neighbours'; every other boundary reads as a space.
export const INLINE_TAGS: ReadonlySet<string> = new Set([
  'a',
  'abbr',
  'acronym',
  'b',
  'bdi',
  'bdo',
  'big',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'img',
  'ins',
  'kbd',
  'label',
  'mark',
  'nobr',
  'output',
  'q',
  'rb',
  'rp',
  'rt',
  'ruby',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
])

/** Whether an element's text is not readable page content: scripts, navigation, hidden or furniture. */
export function hidesText(name: string, attributes: Record<string, string>): boolean {
  return SKIP_TAGS.has(name) || isHidden(attributes) || isBoilerplate(name, attributes)
}

/** Whether an element holds the page's main content, whose text the summary prefers. */
export function isContentRegion(name: string, attributes: Record<string, string>): boolean {
  const region = name === 'article' || name === 'main' || attributes.role?.trim().toLowerCase() === 'main'
  return region && !isHidden(attributes)
}

function isHidden(attributes: Record<string, string>): boolean {
  return (
    attributes.hidden !== undefined ||
    attributes['aria-hidden']?.trim().toLowerCase() === 'true' ||
    SKIP_ROLES.has(attributes.role?.trim().toLowerCase() ?? '')
  )
}

function isBoilerplate(name: string, attributes: Record<string, string>): boolean {
  const { class: classes, id } = attributes
  if ((classes === undefined && id === undefined) || STRUCTURAL_TAGS.has(name)) return false
  if (id !== undefined && BOILERPLATE_NAMES.has(id.trim().toLowerCase())) return true
  return (
    classes !== undefined &&
    classes
      .toLowerCase()
      .split(/[\t\n\f\r ]+/)
      .some((value) => BOILERPLATE_NAMES.has(value))
  )
}

/** Whether a `<script type>` is JSON-LD (parameters such as `charset` allowed). */
export function isJsonLd(type: string | undefined): boolean {
  return type?.split(';')[0]?.trim().toLowerCase() === 'application/ld+json'
}
