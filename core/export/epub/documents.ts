import { isRightToLeft, oneLine, xmlAttribute, xmlText } from './xml.ts'

/**
 * The files of an EPUB 3 besides its chapters' articles and images (docs/import-export.md#epub): the
 * container, the package document, the navigation document, the stylesheet, and a chapter's page around
 * its article. Every piece of text that comes from a page or a person goes through `xmlText` or
 * `xmlAttribute` (core/export/epub/xml.ts).
 */

/** The package document's place in the zip, and the folder of everything it lists. */
export const PACKAGE_PATH = 'EPUB/package.opf'
export const CONTENT_DIR = 'EPUB/'

export const CONTAINER_XML = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="${PACKAGE_PATH}" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
`

/**
 * Readable on e-ink: black on white, no colours or fonts of our own (the reader's choice stands), images
 * never wider than the page, code that wraps rather than runs off the screen, tables with rules.
 */
export const STYLESHEET = `body { margin: 0 0.5em; line-height: 1.5; }
h1.title { font-size: 1.6em; line-height: 1.25; margin: 0 0 0.4em; }
p.meta { font-size: 0.9em; margin: 0 0 0.2em; }
p.source { font-size: 0.85em; margin: 0 0 1.2em; overflow-wrap: break-word; word-wrap: break-word; }
p.notice { font-style: italic; }
div.article { overflow-wrap: break-word; word-wrap: break-word; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; page-break-after: avoid; }
img { max-width: 100%; height: auto; }
figure { margin: 1em 0; page-break-inside: avoid; }
figcaption { font-size: 0.9em; font-style: italic; }
blockquote { margin: 1em 0 1em 1em; padding-left: 0.8em; border-left: 0.2em solid #000000; }
pre { white-space: pre-wrap; font-size: 0.85em; }
code, pre { font-family: monospace; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #000000; padding: 0.2em 0.4em; vertical-align: top; }
span.image-alt { font-style: italic; }
a { color: inherit; text-decoration: underline; }
nav ol { padding-left: 1.2em; }
nav li { margin: 0.3em 0; }
`

/** `<html>`'s language attributes: `xml:lang` and `lang` alike (HTML requires them equal), and `dir`. */
function languageAttributes(lang: string | null): string {
  if (!lang) return ''
  return ` xml:lang="${lang}" lang="${lang}"${isRightToLeft(lang) ? ' dir="rtl"' : ''}`
}

function page(title: string, lang: string | null, body: string, epubNamespace = false): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"${epubNamespace ? ' xmlns:epub="http://www.idpf.org/2007/ops"' : ''}${languageAttributes(lang)}>
<head>
<meta charset="UTF-8"/>
<title>${xmlText(title)}</title>
<link rel="stylesheet" type="text/css" href="style.css"/>
</head>
<body>
${body}
</body>
</html>
`
}

/** What a chapter's page shows above its article. */
export interface ChapterHead {
  title: string
  url: string
  /** The site's name, the byline and the reading time, as they are known. */
  meta: string[]
}

/**
 * A chapter: its title, a line of site, byline and reading time, the link to the original, then `body`
 * (the article as `articleXhtml` wrote it, or a notice). `lang` is the article's language, when known.
 */
export function chapterDocument(head: ChapterHead, lang: string | null, body: string): string {
  const meta = head.meta.map(oneLine).filter((part) => part !== '')
  return page(
    head.title,
    lang,
    `<h1 class="title">${xmlText(head.title)}</h1>
${meta.length > 0 ? `<p class="meta">${xmlText(meta.join(' · '))}</p>\n` : ''}<p class="source"><a href="${xmlAttribute(head.url)}">${xmlText(displayUrl(head.url))}</a></p>
${body}`,
  )
}

/** A URL as a person reads it: without its scheme and `www.`, cut at 100 characters. */
export function displayUrl(url: string): string {
  const bare = url.replace(/^https?:\/\/(?:www\.)?/i, '')
  const points = [...bare]
  return points.length > 100 ? `${points.slice(0, 99).join('')}…` : bare
}

export interface NavEntry {
  href: string
  title: string
}

/**
 * The navigation document: the book's title, then "Contents", one entry a chapter in reading order, any
 * notes (a collection cut at its cap says so), and the landmarks (hidden: where the contents are and where
 * reading starts, for a reader's "Go to" menu).
 */
export function navDocument(
  title: string,
  lang: string,
  entries: readonly NavEntry[],
  notes: readonly string[],
  /** Whether the contents are a page of the book (a collection's): only then can a landmark lead there. */
  inReadingOrder: boolean,
): string {
  const items = entries.map((entry) => `<li><a href="${xmlAttribute(entry.href)}">${xmlText(entry.title)}</a></li>`)
  return page(
    'Contents',
    lang,
    `<h1>${xmlText(title)}</h1>
<nav epub:type="toc" id="toc">
<h2>Contents</h2>
<ol>
${items.join('\n')}
</ol>
</nav>
${notes.map((note) => `<p class="notice">${xmlText(note)}</p>\n`).join('')}<nav epub:type="landmarks" id="landmarks" hidden="hidden">
<h2>Landmarks</h2>
<ol>
${inReadingOrder ? '<li><a epub:type="toc" href="nav.xhtml#toc">Contents</a></li>\n' : ''}<li><a epub:type="bodymatter" href="${xmlAttribute(entries[0]!.href)}">Start of reading</a></li>
</ol>
</nav>`,
    true,
  )
}

export interface ManifestItem {
  id: string
  href: string
  mediaType: string
  properties?: string
  fallback?: string
}

export interface PackageInfo {
  /** A UUID: the book's identifier is `urn:uuid:` and it. */
  uuid: string
  title: string
  lang: string
  /** `dcterms:modified`, to the second (`2026-11-25T10:00:00Z`). */
  modified: string
  creator: string | null
  source: string | null
  manifest: readonly ManifestItem[]
  /** Manifest ids in reading order. */
  spine: readonly string[]
  /** Page progression right to left (a book of one article in Arabic, Hebrew…). */
  rightToLeft: boolean
}

/** The package document: metadata, every file of the book, and the reading order. */
export function packageDocument(info: PackageInfo): string {
  const optional = (element: string, value: string | null) => {
    const text = value === null ? '' : oneLine(value)
    return text === '' ? '' : `\n    <${element}>${xmlText(text)}</${element}>`
  }
  const manifest = info.manifest.map(
    (item) =>
      `    <item id="${xmlAttribute(item.id)}" href="${xmlAttribute(item.href)}" media-type="${xmlAttribute(item.mediaType)}"${
        item.properties ? ` properties="${xmlAttribute(item.properties)}"` : ''
      }${item.fallback ? ` fallback="${xmlAttribute(item.fallback)}"` : ''}/>`,
  )
  return `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="${info.lang}">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="book-id">urn:uuid:${info.uuid}</dc:identifier>
    <dc:title>${xmlText(oneLine(info.title) || 'Untitled')}</dc:title>
    <dc:language>${info.lang}</dc:language>${optional('dc:creator', info.creator)}${optional('dc:source', info.source)}
    <meta property="dcterms:modified">${info.modified}</meta>
  </metadata>
  <manifest>
${manifest.join('\n')}
  </manifest>
  <spine${info.rightToLeft ? ' page-progression-direction="rtl"' : ''}>
${info.spine.map((id) => `    <itemref idref="${xmlAttribute(id)}"/>`).join('\n')}
  </spine>
</package>
`
}
