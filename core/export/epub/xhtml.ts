import { Parser } from 'htmlparser2'
import { xmlAttribute, xmlText } from './xml.ts'
import { NO_TEXT } from '../../reading/sanitize-article.ts'

/**
 * An article as EPUB XHTML (docs/import-export.md#epub). The stored article is sanitized HTML
 * (docs/reading.md#sanitizing): the right elements, but written as HTML (`<br>`, entities, tags a browser
 * closes by itself) and nested however the page nested them. An EPUB chapter is XML and is checked against
 * HTML's content models (epubcheck, and reading systems that refuse what does not parse), so the article is
 * parsed into a small tree and written again:
 *
 * - only the sanitizer's elements, with only its attributes, each value checked (`colspan` a number,
 *   `scope` one of four words, a link an http(s) URL); anything else is unwrapped (its text kept), and the
 *   elements the sanitizer drops whole go whole here too;
 * - every element where its content model allows it: a block inside a paragraph or a heading is unwrapped
 *   into it, a list holds only `li` (other content is put in one), a link holds no link, a table is
 *   caption, head, body and foot rows of cells, a figure has one caption, last, and `th` holds no heading;
 * - void elements closed (`<br/>`), text escaped with XML's own entities only, no `id` at all (so ids in a
 *   book are only the ones its templates write, and unique);
 * - images through `images`: each `src` maps to the book's own copy, or to null, when the image is
 *   written as its alt text instead (an image that is not in the book: a book is self-contained).
 */

/** An element of the parsed article: its name, attributes and children (text as strings). */
export interface ArticleElement {
  name: string
  attributes: Record<string, string>
  children: ArticleNode[]
}
export type ArticleNode = ArticleElement | string

const VOID = new Set([
  'br',
  'hr',
  'img',
  'wbr',
  'area',
  'base',
  'col',
  'embed',
  'input',
  'link',
  'meta',
  'source',
  'track',
])
// As the sanitizer: these go with everything inside them.
const DROPPED: ReadonlySet<string> = new Set(NO_TEXT)
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'])
// Blocks whose content is phrasing: text and inline elements only.
const PHRASING_BLOCKS = new Set(['p', 'pre', ...HEADINGS])
const INLINE = new Set(['em', 'strong', 'sub', 'sup', 'code'])
const TABLE_PARTS = new Set(['caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td'])
/** Beyond this depth an element's text is kept and its markup is not (the walk below is recursive). */
export const MAX_ARTICLE_DEPTH = 200

/** The article's HTML as a tree (htmlparser2's parser, entities decoded, names lower-cased). */
export function parseArticle(html: string): ArticleElement {
  const root: ArticleElement = { name: '#root', attributes: {}, children: [] }
  const open: ArticleElement[] = [root]
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const element: ArticleElement = { name, attributes, children: [] }
        open[open.length - 1]!.children.push(element)
        if (!VOID.has(name)) open.push(element)
      },
      ontext(text) {
        const children = open[open.length - 1]!.children
        const last = children.length - 1
        if (typeof children[last] === 'string') children[last] += text
        else children.push(text)
      },
      onclosetag(name) {
        if (VOID.has(name)) return
        for (let i = open.length - 1; i > 0; i--) {
          if (open[i]!.name === name) {
            open.length = i
            return
          }
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  parser.write(html)
  parser.end()
  return root
}

/**
 * The `src` of every image of the article, in order, each once, with the first alt text given for it
 * (the book copies them before writing; a WebP's fallback says what it showed).
 */
export function imageSources(root: ArticleElement): Map<string, string> {
  const found = new Map<string, string>()
  const pending: ArticleNode[] = [root]
  while (pending.length > 0) {
    const node = pending.pop()!
    if (typeof node === 'string' || DROPPED.has(node.name)) continue
    const src = node.name === 'img' ? node.attributes.src?.trim() : undefined
    if (src) {
      const alt = (node.attributes.alt ?? '').replace(/\s+/g, ' ').trim()
      if (!found.get(src)) found.set(src, alt)
    }
    for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!)
  }
  return found
}

/** An image as the chapter shows it: the book's copy (`href`, relative to the chapter), or its alt text. */
export type ChapterImage = { href: string } | null

interface Context {
  /** Only phrasing content may be written here (inside `p`, a heading, `pre`, an inline element, a caption). */
  phrasing: boolean
  inLink: boolean
  /** Inside `th`: no heading may be written. */
  noHeading: boolean
  depth: number
}

/**
 * The article as the body of an XHTML chapter. `images` maps each `src` (as `imageSources` gave it) to the
 * book's copy of the image or null; a source missing from it counts as null.
 */
export function articleXhtml(root: ArticleElement, images: ReadonlyMap<string, ChapterImage>): string {
  const out: string[] = []
  children(root, { phrasing: false, inLink: false, noHeading: false, depth: 0 }, out, images)
  return out.join('')
}

function children(
  parent: ArticleElement,
  context: Context,
  out: string[],
  images: ReadonlyMap<string, ChapterImage>,
): void {
  for (const child of parent.children) node(child, context, out, images)
}

function node(child: ArticleNode, context: Context, out: string[], images: ReadonlyMap<string, ChapterImage>): void {
  if (typeof child === 'string') {
    out.push(xmlText(child))
    return
  }
  const { name, attributes } = child
  if (DROPPED.has(name)) return
  if (context.depth >= MAX_ARTICLE_DEPTH) {
    // Past the depth the walk goes, the text is kept as text.
    out.push(xmlText(textOf(child)))
    return
  }
  const inner: Context = { ...context, depth: context.depth + 1 }
  const phrasing: Context = { ...inner, phrasing: true }
  const flow: Context = { ...inner, phrasing: false }
  // A block met where only phrasing may go: its content joins the phrasing, set off by spaces.
  const unwrapBlock = () => {
    out.push(' ')
    children(child, phrasing, out, images)
    out.push(' ')
  }
  switch (name) {
    case 'br':
      out.push('<br/>')
      return
    case 'hr':
      if (!context.phrasing) out.push('<hr/>')
      return
    case 'img': {
      const src = attributes.src?.trim()
      const copy = src ? images.get(src) : null
      const alt = (attributes.alt ?? '').replace(/\s+/g, ' ').trim()
      if (copy) out.push(`<img src="${xmlAttribute(copy.href)}" alt="${xmlAttribute(alt)}"/>`)
      else if (alt !== '') out.push(`<span class="image-alt">[${xmlText(alt)}]</span>`)
      return
    }
    case 'a': {
      const href = attributes.href === undefined ? null : linkHref(attributes.href)
      if (context.inLink || href === null) {
        children(child, context, out, images)
        return
      }
      const title = attributes.title?.trim()
      out.push(`<a href="${xmlAttribute(href)}"${title ? ` title="${xmlAttribute(title)}"` : ''}>`)
      children(child, { ...phrasing, inLink: true }, out, images)
      out.push('</a>')
      return
    }
    case 'ul':
    case 'ol':
      if (context.phrasing) unwrapBlock()
      else list(child, flow, out, images)
      return
    case 'figure':
      if (context.phrasing) unwrapBlock()
      else figure(child, flow, out, images)
      return
    case 'table':
      if (context.phrasing) unwrapBlock()
      else table(child, flow, out, images)
      return
    case 'blockquote':
      if (context.phrasing) unwrapBlock()
      else {
        out.push('<blockquote>')
        children(child, flow, out, images)
        out.push('</blockquote>')
      }
      return
    case 'li':
    case 'figcaption':
      // Outside a list or a figure: a block of its own.
      if (context.phrasing) unwrapBlock()
      else {
        out.push('<div>')
        children(child, flow, out, images)
        out.push('</div>')
      }
      return
  }
  if (PHRASING_BLOCKS.has(name)) {
    if (context.phrasing) unwrapBlock()
    else {
      const tag = HEADINGS.has(name) && context.noHeading ? 'p' : name
      out.push(`<${tag}>`)
      children(child, phrasing, out, images)
      out.push(`</${tag}>`)
    }
    return
  }
  if (INLINE.has(name) || name === 'b' || name === 'i') {
    // As the sanitizer writes them (a stored article written before it did, too).
    const tag = name === 'b' ? 'strong' : name === 'i' ? 'em' : name
    out.push(`<${tag}>`)
    children(child, phrasing, out, images)
    out.push(`</${tag}>`)
    return
  }
  // A table's part outside a table, or any other element: its content, where it stands.
  if (TABLE_PARTS.has(name) && context.phrasing) unwrapBlock()
  else children(child, inner, out, images)
}

/** A list's items; anything between them (text, another element) is gathered into an item of its own. */
function list(element: ArticleElement, context: Context, out: string[], images: ReadonlyMap<string, ChapterImage>) {
  const items: ArticleElement[] = []
  let loose: ArticleNode[] = []
  const gather = () => {
    if (loose.some((n) => typeof n !== 'string' || n.trim() !== ''))
      items.push({ name: 'li', attributes: {}, children: loose })
    loose = []
  }
  for (const child of element.children) {
    if (typeof child !== 'string' && child.name === 'li') {
      gather()
      items.push(child)
    } else loose.push(child)
  }
  gather()
  if (items.length === 0) return
  const start = element.name === 'ol' ? element.attributes.start?.trim() : undefined
  out.push(start && /^-?\d{1,9}$/.test(start) ? `<ol start="${start}">` : `<${element.name}>`)
  for (const item of items) {
    out.push('<li>')
    children(item, context, out, images)
    out.push('</li>')
  }
  out.push(`</${element.name}>`)
}

/** A figure: its content, then its captions (there may be one, first or last: all of them, last). */
function figure(element: ArticleElement, context: Context, out: string[], images: ReadonlyMap<string, ChapterImage>) {
  const captions = element.children.filter(
    (child): child is ArticleElement => typeof child !== 'string' && child.name === 'figcaption',
  )
  out.push('<figure>')
  for (const child of element.children)
    if (!captions.includes(child as ArticleElement)) node(child, context, out, images)
  if (captions.length > 0) {
    out.push('<figcaption>')
    for (const caption of captions) children(caption, context, out, images)
    out.push('</figcaption>')
  }
  out.push('</figure>')
}

type Row = ArticleNode[]

/**
 * A table as its content model allows: one caption, then the head's rows in `thead`, every body row (of
 * each `tbody`, or directly in the table) in one `tbody`, the foot's in `tfoot`; cells met outside a row
 * make a row, and content met outside a cell makes a cell. A table without rows is its caption, as a paragraph.
 */
function table(element: ArticleElement, context: Context, out: string[], images: ReadonlyMap<string, ChapterImage>) {
  const captions: ArticleElement[] = []
  const head: Row[] = []
  const body: Row[] = []
  const foot: Row[] = []
  const rowsOf = (section: ArticleElement, into: Row[]) => {
    let loose: ArticleNode[] = []
    const gather = () => {
      if (loose.some((n) => typeof n !== 'string' || n.trim() !== '')) into.push(loose)
      loose = []
    }
    for (const child of section.children) {
      if (typeof child !== 'string' && child.name === 'tr') {
        gather()
        into.push(child.children)
      } else loose.push(child)
    }
    gather()
  }
  const loose: ArticleElement = { name: '#rows', attributes: {}, children: [] }
  const flushLoose = () => {
    if (loose.children.length > 0) rowsOf(loose, body)
    loose.children = []
  }
  for (const child of element.children) {
    if (typeof child === 'string' || !['caption', 'thead', 'tbody', 'tfoot'].includes(child.name)) {
      loose.children.push(child)
      continue
    }
    flushLoose()
    if (child.name === 'caption') captions.push(child)
    else rowsOf(child, child.name === 'thead' ? head : child.name === 'tfoot' ? foot : body)
  }
  flushLoose()
  const phrasing: Context = { ...context, phrasing: true }
  if (head.length + body.length + foot.length === 0) {
    if (captions.length > 0) {
      out.push('<p>')
      for (const caption of captions) children(caption, phrasing, out, images)
      out.push('</p>')
    }
    return
  }
  out.push('<table>')
  if (captions.length > 0) {
    out.push('<caption>')
    for (const caption of captions) children(caption, phrasing, out, images)
    out.push('</caption>')
  }
  const section = (tag: string, rows: Row[]) => {
    if (rows.length === 0) return
    out.push(`<${tag}>`)
    for (const row of rows) tableRow(row, context, out, images)
    out.push(`</${tag}>`)
  }
  section('thead', head)
  section('tbody', body)
  section('tfoot', foot)
  out.push('</table>')
}

function tableRow(row: Row, context: Context, out: string[], images: ReadonlyMap<string, ChapterImage>) {
  out.push('<tr>')
  let loose: ArticleNode[] = []
  const gather = () => {
    if (loose.some((n) => typeof n !== 'string' || n.trim() !== '')) cell('td', {}, loose, context, out, images)
    loose = []
  }
  for (const child of row) {
    if (typeof child !== 'string' && (child.name === 'td' || child.name === 'th')) {
      gather()
      cell(child.name, child.attributes, child.children, context, out, images)
    } else loose.push(child)
  }
  gather()
  out.push('</tr>')
}

function cell(
  name: string,
  attributes: Record<string, string>,
  content: ArticleNode[],
  context: Context,
  out: string[],
  images: ReadonlyMap<string, ChapterImage>,
) {
  let kept = ''
  // HTML's limits: colspan 1 to 1000, rowspan 0 to 65534.
  const colspan = attributes.colspan?.trim()
  if (colspan && /^\d{1,4}$/.test(colspan) && Number(colspan) >= 1 && Number(colspan) <= 1000)
    kept += ` colspan="${Number(colspan)}"`
  const rowspan = attributes.rowspan?.trim()
  if (rowspan && /^\d{1,5}$/.test(rowspan) && Number(rowspan) <= 65534) kept += ` rowspan="${Number(rowspan)}"`
  const scope = attributes.scope?.trim().toLowerCase()
  if (name === 'th' && scope && ['row', 'col', 'rowgroup', 'colgroup'].includes(scope)) kept += ` scope="${scope}"`
  out.push(`<${name}${kept}>`)
  children(
    { name, attributes: {}, children: content },
    { ...context, noHeading: context.noHeading || name === 'th' },
    out,
    images,
  )
  out.push(`</${name}>`)
}

/** The text of an element, read without recursion (for what lies past MAX_ARTICLE_DEPTH). */
function textOf(element: ArticleElement): string {
  let text = ''
  const pending: ArticleNode[] = [element]
  while (pending.length > 0) {
    const next = pending.pop()!
    if (typeof next === 'string') text += next
    else if (!DROPPED.has(next.name))
      for (let i = next.children.length - 1; i >= 0; i--) pending.push(next.children[i]!)
  }
  return text
}

// What RFC 3986 lets a URL hold as it is; anything else is percent-encoded (epubcheck reads links as URLs).
const URL_UNSAFE = /[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]|%(?![0-9A-Fa-f]{2})/gu

/**
 * A link's `href` as the book writes it: an absolute http(s) URL, in the form the URL standard gives it,
 * with what it leaves unencoded that RFC 3986 does not allow (`|`, `^`, `[` outside a host, a lone `%`…)
 * percent-encoded; null for anything else (the link is dropped, its text kept).
 */
export function linkHref(raw: string): string | null {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  const encode = (part: string) =>
    part.replace(URL_UNSAFE, (character) =>
      [...new TextEncoder().encode(character)]
        .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
        .join(''),
    )
  const origin = `${url.protocol}//${url.host}`
  return origin + encode(url.pathname) + encode(url.search) + encode(url.hash)
}
