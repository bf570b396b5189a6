import type { Article } from '../../reading/extract-article.ts'
import { readingMinutes } from '../../reading/reading-time.ts'
import { cutFileStem, safeFileStem } from '../markdown.ts'
import {
  CONTAINER_XML,
  CONTENT_DIR,
  chapterDocument,
  type ManifestItem,
  type NavEntry,
  navDocument,
  PACKAGE_PATH,
  packageDocument,
  STYLESHEET,
} from './documents.ts'
import { EpubZip } from './epub-zip.ts'
import { archivedImageOf } from '../../reading/archived-image-url.ts'
import {
  type BookImageType,
  bookImageType,
  dataImageBytes,
  fallbackSvg,
  IMAGE_EXTENSIONS,
  NEEDS_FALLBACK,
  type ReadArchivedImage,
} from './images.ts'
import { articleXhtml, type ChapterImage, imageSources, linkHref, parseArticle } from './xhtml.ts'
import { isRightToLeft, languageTag, oneLine, xmlText } from './xml.ts'

export type { ArchivedImage, ReadArchivedImage } from './images.ts'

/**
 * Saved items as an EPUB 3 book for e-readers (docs/import-export.md#epub): one chapter an item, in the
 * order given, each its article (sanitized HTML written again as XHTML, core/export/epub/xhtml.ts) with the
 * images the book can carry, or, for an item without one, a short page with its link. Streamed: each
 * chapter is made, deflated and handed on before the next item is read (fflate's streaming `Zip`), so
 * memory holds one article and the list of what the book holds (names and titles), never the book.
 */

export const EPUB_CONTENT_TYPE = 'application/epub+zip'

/** What a chapter needs of an article: all of it but its text, which can be as long as its HTML. */
export type EpubArticle = Omit<Article, 'text'>

/** One item as a chapter: what the item knows, and its article (null: none was extracted). */
export interface EpubChapter {
  itemId: string
  url: string
  title: string | null
  siteName: string | null
  description: string | null
  article: EpubArticle | null
}

export interface EpubBook {
  /** A UUID: the book's identifier (the same one for the same item makes a reader see the same book). */
  uuid: string
  title: string
  /** When the book was made, RFC 3339; the package's `dcterms:modified`, to the second. */
  modifiedAt: string
  /**
   * `item`: one article, its page the whole book (creator, source and language are the article's).
   * `collection`: a contents page first, then the chapters; the language is the one most chapters have.
   */
  kind: 'item' | 'collection'
  /** Lines under the contents (a collection cut at its cap says so). */
  notes: readonly string[]
  /** The one page of a collection with no items. */
  emptyMessage: string
}

export interface EpubOptions {
  /** The web app's address: images under `{appUrl}/items/{id}/images/{n}` are archived copies. */
  appUrl: string
  /** Reads an archived image of the person's (the port: docs/import-export.md#epub-images). */
  readArchivedImage: ReadArchivedImage
  /** Image bytes a book carries at most; past them an image is its alt text. Default 256 MiB. */
  imageBudgetBytes?: number
  /** Image files a book carries at most (a zip without ZIP64 holds 65,535 entries). Default 10,000. */
  maxImages?: number
}

/** The language of a book whose chapters say none: the language of its own pages (contents, notices). */
export const DEFAULT_BOOK_LANGUAGE = 'en'
const NO_ARTICLE = 'No article was extracted from this page: open the link above to read it.'

const pad = (n: number) => String(n).padStart(3, '0')

/** The book's bytes, as they are made. `chapters` is read one at a time, as the bytes are taken. */
export async function* epubChunks(
  book: EpubBook,
  chapters: AsyncIterable<EpubChapter>,
  options: EpubOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const modified = new Date(book.modifiedAt)
  if (Number.isNaN(modified.getTime())) throw new RangeError(`Cannot make a book: "${book.modifiedAt}" is not a date`)
  const zip = new EpubZip(modified)
  zip.add('META-INF/container.xml', CONTAINER_XML)
  zip.add(`${CONTENT_DIR}style.css`, STYLESHEET)
  yield* zip.take()

  const manifest: ManifestItem[] = [
    { id: 'nav', href: 'nav.xhtml', mediaType: 'application/xhtml+xml', properties: 'nav' },
    { id: 'style', href: 'style.css', mediaType: 'text/css' },
  ]
  const spine: string[] = book.kind === 'collection' ? ['nav'] : []
  const nav: NavEntry[] = []
  const languages = new Map<string, number>()
  const images = { budget: options.imageBudgetBytes ?? 256 * 1024 * 1024, left: options.maxImages ?? 10_000 }
  let single: EpubChapter | null = null

  const addChapter = (id: string, title: string, document: string) => {
    zip.add(`${CONTENT_DIR}${id}.xhtml`, document)
    manifest.push({ id, href: `${id}.xhtml`, mediaType: 'application/xhtml+xml' })
    spine.push(id)
    nav.push({ href: `${id}.xhtml`, title })
  }

  for await (const chapter of chapters) {
    const id = `chapter-${pad(nav.length + 1)}`
    single ??= chapter
    const title = chapterTitle(chapter)
    const url = linkHref(chapter.url) ?? 'https://invalid.invalid/'
    const article = chapter.article
    const declared = languageTag(article?.lang)
    if (declared) languages.set(declared, (languages.get(declared) ?? 0) + 1)
    // An article's language as its page declared it; `und` (undetermined) for one that declared none; our
    // own notice, for an item without an article, is English.
    const lang = declared ?? (article ? 'und' : DEFAULT_BOOK_LANGUAGE)
    const meta = [
      article?.siteName ?? chapter.siteName ?? '',
      article?.byline ?? '',
      article ? `${readingMinutes(article.wordCount)} min read` : '',
    ]
    let body: string
    if (article) {
      const tree = parseArticle(article.html)
      const copies = new Map<string, ChapterImage>()
      let n = 0
      for (const [src, alt] of imageSources(tree)) {
        const copy = await bookImage(chapter.itemId, src, options, images)
        if (!copy) continue
        n++
        const name = `${id.replace('chapter-', 'image-')}-${n}`
        const href = `images/${name}.${IMAGE_EXTENSIONS[copy.type]}`
        zip.add(`${CONTENT_DIR}${href}`, copy.bytes, 0)
        const item: ManifestItem = { id: name, href, mediaType: copy.type }
        if (NEEDS_FALLBACK.has(copy.type)) {
          const fallback = { id: `${name}-fallback`, href: `images/${name}-fallback.svg`, mediaType: 'image/svg+xml' }
          zip.add(`${CONTENT_DIR}${fallback.href}`, fallbackSvg(alt, copy.type))
          item.fallback = fallback.id
          manifest.push(item, fallback)
        } else manifest.push(item)
        copies.set(src, { href })
        yield* zip.take()
      }
      body = `<div class="article">\n${articleXhtml(tree, copies)}\n</div>`
    } else {
      const description = chapter.description ? oneLine(chapter.description) : ''
      body = `${description ? `<p>${xmlText(description)}</p>\n` : ''}<p class="notice">${xmlText(NO_ARTICLE)}</p>`
    }
    addChapter(id, title, chapterDocument({ title, url, meta }, lang, body))
    yield* zip.take()
  }

  if (nav.length === 0)
    addChapter(
      'chapter-001',
      book.title,
      chapterDocument(
        { title: book.title, url: options.appUrl, meta: [] },
        DEFAULT_BOOK_LANGUAGE,
        `<p class="notice">${xmlText(book.emptyMessage)}</p>`,
      ),
    )

  const lang =
    book.kind === 'item'
      ? (languageTag(single?.article?.lang) ?? DEFAULT_BOOK_LANGUAGE)
      : ([...languages].sort((a, b) => b[1] - a[1])[0]?.[0] ?? DEFAULT_BOOK_LANGUAGE)
  zip.add(`${CONTENT_DIR}nav.xhtml`, navDocument(book.title, lang, nav, book.notes, book.kind === 'collection'))
  zip.add(
    PACKAGE_PATH,
    packageDocument({
      uuid: book.uuid,
      title: book.title,
      lang,
      modified: `${modified.toISOString().slice(0, 19)}Z`,
      creator: book.kind === 'item' ? (single?.article?.byline ?? null) : null,
      source: book.kind === 'item' && single ? (linkHref(single.url) ?? null) : null,
      manifest,
      spine,
      rightToLeft: book.kind === 'item' && isRightToLeft(lang),
    }),
  )
  zip.end()
  yield* zip.take()
}

/** A chapter's title: the article's, else the item's, else its URL; one line. */
export function chapterTitle(chapter: EpubChapter): string {
  for (const candidate of [chapter.article?.title, chapter.title, chapter.url]) {
    const title = candidate ? oneLine(candidate) : ''
    if (title !== '') return title
  }
  return 'Untitled'
}

/**
 * An image of the chapter's article as the book carries it, or null (its alt text is written instead):
 * a `data:` image, or one of the item's own archived images (read through the port). An external image is
 * never fetched: the book is made from what is stored. Its type is read from its bytes; anything but PNG,
 * JPEG, GIF, WebP and AVIF stays out, and so does every image past the book's budget.
 */
async function bookImage(
  itemId: string,
  src: string,
  options: EpubOptions,
  left: { budget: number; left: number },
): Promise<{ type: BookImageType; bytes: Uint8Array } | null> {
  if (left.left <= 0 || left.budget <= 0) return null
  let bytes: Uint8Array | null = null
  if (src.startsWith('data:')) bytes = dataImageBytes(src)
  else {
    const archived = archivedImageOf(src, options.appUrl)
    // Only the item's own images: a page can name any address, the archive answers for this item alone.
    if (archived && archived.itemId === itemId)
      bytes = (await options.readArchivedImage(itemId, archived.n))?.bytes ?? null
  }
  if (!bytes || bytes.byteLength > left.budget) return null
  const type = bookImageType(bytes)
  if (!type) return null
  left.budget -= bytes.byteLength
  left.left -= NEEDS_FALLBACK.has(type) ? 2 : 1
  return { type, bytes }
}

/**
 * The download's file name: the title made safe for every file system (the Markdown export's rules,
 * core/export/markdown.ts), at most 100 characters with `.epub`. `ascii` is the same with only printable
 * ASCII, for `filename="…"` (a header holds bytes; `filename*` carries the name itself).
 */
export function epubFileName(title: string | null, url: string): { name: string; ascii: string } {
  const stem = cutFileStem(safeFileStem(title, url), 95)
  const asciiStem = stem
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|[%;]/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+|[\s.]+$/g, '')
  return { name: `${stem}.epub`, ascii: `${asciiStem === '' ? 'readlater' : asciiStem}.epub` }
}
