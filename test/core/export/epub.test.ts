import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { unzipSync } from 'fflate'
import {
  chapterTitle,
  type EpubBook,
  type EpubChapter,
  epubChunks,
  epubFileName,
  type ReadArchivedImage,
} from '../../../core/export/epub/epub.ts'
import { crc32, EpubZip } from '../../../core/export/epub/epub-zip.ts'
import { bookImageType, dataImageBytes, fallbackSvg } from '../../../core/export/epub/images.ts'
import { archivedImageUrl } from '../../../core/reading/archived-image-url.ts'
import { avifHead, HTML_PAGE, SVG_WITH_SCRIPT } from '../../fixtures/images/images.ts'
import { articleXhtml, imageSources, linkHref, parseArticle } from '../../../core/export/epub/xhtml.ts'
import { isRightToLeft, xmlAttribute, xmlText } from '../../../core/export/epub/xml.ts'
import { bytesOf, IMAGES, readBook } from './epub-fixtures.ts'

// docs/import-export.md#epub: saved items as an EPUB 3 book. test/epub/epubcheck.test.ts runs epubcheck on
// such books; these check what goes in them.

const APP = 'https://read.example.com'
const ITEM = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'
const xhtml = (html: string, images = new Map()) => articleXhtml(parseArticle(html), images)

const book = (over: Partial<EpubBook> = {}): EpubBook => ({
  uuid: '017f22e2-79b0-7cc3-98c4-000000000001',
  title: 'Readlater: Unread, 2026-11-25',
  modifiedAt: '2026-11-25T10:00:00.123Z',
  kind: 'collection',
  notes: [],
  emptyMessage: 'There are no unread items here.',
  ...over,
})

const chapter = (
  over: Partial<EpubChapter> = {},
  article: Partial<NonNullable<EpubChapter['article']>> | null = {},
): EpubChapter => ({
  itemId: ITEM,
  url: 'https://example.com/post',
  title: 'A post',
  siteName: 'Example',
  description: null,
  article:
    article === null
      ? null
      : { title: null, byline: null, siteName: null, lang: 'en', wordCount: 460, html: '<p>Text.</p>', ...article },
  ...over,
})

async function* listOf<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items
}

/** A port that knows the fixture images of ITEM, by number: 1 PNG, 2 JPEG, 3 GIF, 4 WebP, 5 not an image. */
function archive(calls: [string, number][] = []): ReadArchivedImage {
  const images: Record<number, Uint8Array> = {
    1: IMAGES.png,
    2: IMAGES.jpeg,
    3: IMAGES.gif,
    4: IMAGES.webp,
    5: new TextEncoder().encode('<html>not an image</html>'),
  }
  return async (itemId, n) => {
    calls.push([itemId, n])
    return itemId === ITEM && images[n] ? { mediaType: 'image/png', bytes: images[n] } : null
  }
}

const make = (b: EpubBook, chapters: EpubChapter[], readArchivedImage = archive(), extra = {}) =>
  bytesOf(epubChunks(b, listOf(chapters), { appUrl: APP, readArchivedImage, ...extra }))

describe('xml text', () => {
  test('escapes with numeric references, drops what XML cannot hold, keeps emoji and right-to-left text', () => {
    assert.equal(xmlText('a & b < c > ]]> d'), 'a &#38; b &#60; c &#62; ]]&#62; d')
    assert.equal(
      xmlText('bell\u0007 nul\u0000 del\u007f c1\u0085 nonchar\ufffe\uffff tab\t'),
      'bell nul del c1 nonchar tab\t',
    )
    assert.equal(xmlText('lone \ud800 half \udc00 pair 😀'), 'lone  half  pair 😀')
    assert.equal(xmlText('cr\r\nlf\rx'), 'cr\nlf\nx')
    assert.equal(xmlText('עברית ‮ RLO'), 'עברית ‮ RLO')
    assert.equal(xmlAttribute('"q"\nline'), '&#34;q&#34;&#10;line')
  })
  test('right-to-left languages', () => {
    for (const tag of ['ar', 'he', 'fa-IR', 'ur', 'yi', 'az-Arab']) assert.equal(isRightToLeft(tag), true, tag)
    for (const tag of ['en', 'pt-BR', 'ar-Latn', 'zh-Hant', 'ku']) assert.equal(isRightToLeft(tag), false, tag)
  })
})

describe('articleXhtml()', () => {
  test('void elements closed, entities numeric, no id, no attribute but the allowed ones', () => {
    assert.equal(
      xhtml('<p id="x" class="y" style="color:red" onclick="a()">One&nbsp;&amp;<br>two</p><hr><img src="x" alt="">'),
      '<p>One\u00a0&#38;<br/>two</p><hr/>',
    )
  })
  test('a block inside phrasing is unwrapped into it; a heading in a table header cell becomes a paragraph', () => {
    assert.equal(xhtml('<h2>Title <blockquote>quoted</blockquote></h2>'), '<h2>Title  quoted </h2>')
    assert.equal(xhtml('<em><ul><li>a</li></ul></em>'), '<em>  a  </em>')
    assert.equal(
      xhtml('<table><tr><th><h3>Head</h3></th><td><h3>Cell</h3></td></tr></table>'),
      '<table><tbody><tr><th><p>Head</p></th><td><h3>Cell</h3></td></tr></tbody></table>',
    )
  })
  test('lists hold only items: loose content becomes an item; an orphan item is a block', () => {
    assert.equal(
      xhtml('<ul> <li>a</li> loose <b>text</b><li>b</li></ul>'),
      '<ul><li>a</li><li> loose <strong>text</strong></li><li>b</li></ul>',
    )
    assert.equal(
      xhtml('<ol start="3"><li>c</li></ol><ol start="x"><li>d</li></ol>'),
      '<ol start="3"><li>c</li></ol><ol><li>d</li></ol>',
    )
    assert.equal(xhtml('<li>orphan</li>'), '<div>orphan</div>')
    assert.equal(xhtml('<ul>   </ul>'), '')
  })
  test('tables: caption, head, body and foot rows; cells and content outside rows are put in rows', () => {
    assert.equal(
      xhtml(
        '<table><tfoot><tr><td>f</td></tr></tfoot><caption>Cap</caption><tr><td colspan="2" rowspan="x">a</td></tr><tbody><tr><th scope="COL" colspan="0">b</th></tr></tbody><td>loose cell</td>text<thead><tr><th scope="bogus">h</th></tr></thead></table>',
      ),
      '<table><caption>Cap</caption><thead><tr><th>h</th></tr></thead><tbody><tr><td colspan="2">a</td></tr><tr><th scope="col">b</th></tr><tr><td>loose cell</td><td>text</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>',
    )
    assert.equal(xhtml('<table><caption>Only a caption</caption></table>'), '<p>Only a caption</p>')
  })
  test('a figure keeps one caption, last', () => {
    assert.equal(
      xhtml(
        '<figure><figcaption>One</figcaption><p>Body</p><figcaption>Two</figcaption></figure><figcaption>alone</figcaption>',
      ),
      '<figure><p>Body</p><figcaption>OneTwo</figcaption></figure><div>alone</div>',
    )
  })
  test('links: only http(s), never nested, encoded as RFC 3986 allows', () => {
    assert.equal(
      xhtml(
        '<p><a href="https://example.com/a b|c?q=[1]#f^" title="T &amp; t">x</a> <a href="javascript:alert(1)">js</a> <a>none</a></p>',
      ),
      '<p><a href="https://example.com/a%20b%7Cc?q=%5B1%5D#f%5E" title="T &#38; t">x</a> js none</p>',
    )
    // The parser closes a link when another opens; a tree with one inside another keeps the outer one.
    const nested = {
      name: '#root',
      attributes: {},
      children: [
        {
          name: 'a',
          attributes: { href: 'https://a.example/' },
          children: [
            'x',
            {
              name: 'em',
              attributes: {},
              children: [{ name: 'a', attributes: { href: 'https://b.example/' }, children: ['y'] }],
            },
          ],
        },
      ],
    }
    assert.equal(articleXhtml(nested, new Map()), '<a href="https://a.example/">x<em>y</em></a>')
    assert.equal(linkHref('https://EXAMPLE.com:443/%zz%41?x=%'), 'https://example.com/%25zz%41?x=%25')
    assert.equal(linkHref('https://bücher.example/ü'), 'https://xn--bcher-kva.example/%C3%BC')
    assert.equal(linkHref('https://user:pw@example.com/'), 'https://example.com/')
    for (const bad of ['mailto:a@b.c', 'data:text/html,x', '/relative', 'not a url'])
      assert.equal(linkHref(bad), null, bad)
  })
  test('what the sanitizer drops whole is dropped whole; unknown elements are unwrapped', () => {
    assert.equal(
      xhtml(
        '<div><script>alert(1)</script><style>p{}</style><svg><text>t</text></svg><span>kept</span><meta http-equiv="refresh"></div>',
      ),
      'kept',
    )
  })
  test('images: the book’s copy, or the alt text; an image without alt and without a copy leaves nothing', () => {
    const html =
      '<p><img src="https://a.example/1.png" alt="  First\n image "><img src="https://a.example/2.png" alt="Second"><img src="https://a.example/3.png"></p>'
    const tree = parseArticle(html)
    assert.deepEqual(
      [...imageSources(tree)],
      [
        ['https://a.example/1.png', 'First image'],
        ['https://a.example/2.png', 'Second'],
        ['https://a.example/3.png', ''],
      ],
    )
    assert.equal(
      articleXhtml(tree, new Map([['https://a.example/1.png', { href: 'images/image-001-1.png' }]])),
      '<p><img src="images/image-001-1.png" alt="First image"/><span class="image-alt">[Second]</span></p>',
    )
  })
  test('nesting deeper than the walk goes keeps the text', () => {
    const deep = `${'<blockquote>'.repeat(500)}deep text${'</blockquote>'.repeat(500)}`
    const out = xhtml(deep)
    assert.ok(out.includes('deep text'))
    assert.equal(out.split('<blockquote>').length - 1, 200)
    assert.equal(out.split('</blockquote>').length - 1, 200)
  })
})

describe('images', () => {
  test('the type comes from the bytes, as the archive reads them', () => {
    assert.equal(bookImageType(IMAGES.png), 'image/png')
    assert.equal(bookImageType(IMAGES.jpeg), 'image/jpeg')
    assert.equal(bookImageType(IMAGES.gif), 'image/gif')
    assert.equal(bookImageType(IMAGES.webp), 'image/webp')
    assert.equal(bookImageType(avifHead([64, 48])), 'image/avif')
    assert.equal(bookImageType(SVG_WITH_SCRIPT), null)
    assert.equal(bookImageType(HTML_PAGE), null)
    assert.equal(bookImageType(new Uint8Array([0x42, 0x4d, 0, 0])), null) // BMP
    assert.equal(bookImageType(IMAGES.png.subarray(0, 12)), null) // a PNG cut before its size
    assert.equal(bookImageType(new Uint8Array()), null)
  })
  test('the archive’s addresses are read under the app’s mount path, for the item’s own images only', async () => {
    const mounted = `${APP}/rl`
    const html = `<p><img src="${archivedImageUrl(mounted, ITEM, 1)}" alt="mounted"><img src="${archivedImageUrl(APP, ITEM, 2)}" alt="not under the mount"><img src="${archivedImageUrl(mounted, 'another', 3)}" alt="another item"></p>`
    const calls: [string, number][] = []
    const read = readBook(
      await bytesOf(
        epubChunks(book(), listOf([chapter({}, { html })]), { appUrl: mounted, readArchivedImage: archive(calls) }),
      ),
    )
    assert.deepEqual(calls, [[ITEM, 1]])
    assert.match(
      read.text('EPUB/chapter-001.xhtml'),
      /<img src="images\/image-001-1.png" alt="mounted"\/><span class="image-alt">\[not under the mount\]<\/span><span class="image-alt">\[another item\]<\/span>/,
    )
  })
  test('data: images decode; anything else is null', () => {
    const src = `data:image/png;base64,${btoa(String.fromCharCode(...IMAGES.png))}`
    assert.deepEqual(dataImageBytes(src), IMAGES.png)
    assert.equal(dataImageBytes('data:image/png;base64,@@@'), null)
    assert.equal(dataImageBytes('https://example.com/x.png'), null)
  })
  test('the fallback of a WebP says what it was, cut', () => {
    const svg = fallbackSvg(`${'long & <alt> '.repeat(20)}`, 'image/webp')
    assert.match(svg, /<text [^>]*>WebP image: long &#38; &#60;alt&#62; /)
    assert.match(svg, /…<\/text>/)
    assert.match(fallbackSvg('', 'image/avif'), />A AVIF image this reader cannot show</)
  })
})

describe('EpubZip', () => {
  test('mimetype first, stored, sized in its header; fflate’s entries after it, their offsets moved', () => {
    const zip = new EpubZip(new Date('2026-11-25T10:00:00Z'))
    zip.add('META-INF/container.xml', '<container/>')
    zip.add('EPUB/a.png', IMAGES.png, 0)
    zip.end()
    const parts = zip.take()
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0))
    let at = 0
    for (const part of parts) {
      bytes.set(part, at)
      at += part.byteLength
    }
    const view = new DataView(bytes.buffer)
    assert.equal(view.getUint32(14, true), crc32(new TextEncoder().encode('application/epub+zip')))
    assert.equal(view.getUint32(18, true), 20)
    assert.equal(view.getUint32(22, true), 20)
    const files = unzipSync(bytes)
    assert.deepEqual(Object.keys(files), ['mimetype', 'META-INF/container.xml', 'EPUB/a.png'])
    assert.deepEqual(files['EPUB/a.png'], IMAGES.png)
    assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926)
  })
})

describe('epubChunks()', () => {
  test('a collection: contents first in the reading order, one chapter per item in order, every file listed', async () => {
    const chapters = [
      chapter({ title: 'First' }),
      chapter({ itemId: 'b', url: 'https://example.org/b', title: 'Second', description: 'What it is about' }, null),
      chapter({ itemId: 'c', url: 'https://example.net/c', title: '   ', siteName: null }, { title: null, lang: null }),
    ]
    const read = readBook(await make(book({ notes: ['Cut at 500.'] }), chapters))
    assert.deepEqual(read.spine, ['nav', 'chapter-001', 'chapter-002', 'chapter-003'])
    assert.deepEqual(read.toc, [
      ['chapter-001.xhtml', 'First'],
      ['chapter-002.xhtml', 'Second'],
      ['chapter-003.xhtml', 'https://example.net/c'],
    ])
    assert.equal(read.title, 'Readlater: Unread, 2026-11-25')
    assert.equal(read.identifier, 'urn:uuid:017f22e2-79b0-7cc3-98c4-000000000001')
    assert.equal(read.language, 'en')
    assert.match(read.opf, /<meta property="dcterms:modified">2026-11-25T10:00:00Z<\/meta>/)
    assert.match(read.text('EPUB/nav.xhtml'), /<p class="notice">Cut at 500.<\/p>/)
    const second = read.text('EPUB/chapter-002.xhtml')
    assert.match(second, /<h1 class="title">Second<\/h1>/)
    assert.match(second, /<p class="source"><a href="https:\/\/example.org\/b">example.org\/b<\/a><\/p>/)
    assert.match(second, /<p>What it is about<\/p>\n<p class="notice">No article was extracted/)
    assert.match(second, /<html xmlns="http:\/\/www.w3.org\/1999\/xhtml" xml:lang="en" lang="en">/)
    // An article whose page declared no language is "undetermined", not English.
    assert.match(read.text('EPUB/chapter-003.xhtml'), /xml:lang="und" lang="und"/)
    assert.match(read.text('EPUB/chapter-001.xhtml'), /<p class="meta">Example · 2 min read<\/p>/)
    // Mimetype, container, stylesheet, then each chapter as it was made; the contents and package last.
    assert.deepEqual(
      read.entries.map((entry) => entry.name),
      [
        'mimetype',
        'META-INF/container.xml',
        'EPUB/style.css',
        'EPUB/chapter-001.xhtml',
        'EPUB/chapter-002.xhtml',
        'EPUB/chapter-003.xhtml',
        'EPUB/nav.xhtml',
        'EPUB/package.opf',
      ],
    )
  })

  test('one item: its page is the book; the identifier is given, creator and source are the article’s', async () => {
    const read = readBook(
      await make(book({ kind: 'item', uuid: ITEM, title: 'A post' }), [
        chapter({}, { byline: 'Ada & Bob', lang: 'ar' }),
      ]),
    )
    assert.deepEqual(read.spine, ['chapter-001'])
    assert.equal(read.identifier, `urn:uuid:${ITEM}`)
    assert.equal(read.language, 'ar')
    assert.match(read.opf, /<dc:creator>Ada &#38; Bob<\/dc:creator>/)
    assert.match(read.opf, /<dc:source>https:\/\/example.com\/post<\/dc:source>/)
    assert.match(read.opf, /<spine page-progression-direction="rtl">/)
    assert.match(read.text('EPUB/chapter-001.xhtml'), /xml:lang="ar" lang="ar" dir="rtl"/)
  })

  test('a collection takes the language most of its articles have', async () => {
    const read = readBook(
      await make(book(), [
        chapter({}, { lang: 'de' }),
        chapter({ itemId: 'b' }, { lang: 'fr' }),
        chapter({ itemId: 'c' }, { lang: 'fr' }),
        chapter({ itemId: 'd' }, null),
      ]),
    )
    assert.equal(read.language, 'fr')
    assert.doesNotMatch(read.opf, /page-progression-direction/)
  })

  test('an empty collection is a book of one page saying so', async () => {
    const read = readBook(await make(book(), []))
    assert.deepEqual(read.spine, ['nav', 'chapter-001'])
    assert.deepEqual(read.toc, [['chapter-001.xhtml', 'Readlater: Unread, 2026-11-25']])
    assert.match(read.text('EPUB/chapter-001.xhtml'), /There are no unread items here./)
  })

  test('images: the item’s archived PNG, JPEG, GIF and WebP (with its fallback) and data: images are in the book; the rest is alt text', async () => {
    const calls: [string, number][] = []
    const own = (n: number) => archivedImageUrl(APP, ITEM, n)
    const html = [
      `<p><img src="${own(1)}" alt="png"><img src="${own(2)}" alt="jpeg"><img src="${own(1)}" alt="png again"></p>`,
      `<figure><img src="${own(3)}" alt="gif"><figcaption>A GIF</figcaption></figure>`,
      `<p><img src="${own(4)}" alt="a webp"></p>`,
      `<p><img src="${own(5)}" alt="served as an image, is not one"><img src="${own(9)}" alt="not archived"></p>`,
      `<p><img src="${APP}/items/other-item/images/1" alt="another item's"><img src="https://cdn.example.com/x.png" alt="external"></p>`,
      `<p><img src="data:image/gif;base64,${btoa(String.fromCharCode(...IMAGES.gif))}" alt="inline"></p>`,
    ].join('')
    const read = readBook(await make(book(), [chapter({}, { html })], archive(calls)))
    // Never asked for another item's image, nor for an external one.
    assert.deepEqual(calls, [
      [ITEM, 1],
      [ITEM, 2],
      [ITEM, 3],
      [ITEM, 4],
      [ITEM, 5],
      [ITEM, 9],
    ])
    const images = read.manifest.filter((item) => item.mediaType.startsWith('image/'))
    assert.deepEqual(
      images.map((item) => [item.href, item.mediaType, item.fallback]),
      [
        ['images/image-001-1.png', 'image/png', null],
        ['images/image-001-2.jpg', 'image/jpeg', null],
        ['images/image-001-3.gif', 'image/gif', null],
        ['images/image-001-4.webp', 'image/webp', 'image-001-4-fallback'],
        ['images/image-001-4-fallback.svg', 'image/svg+xml', null],
        ['images/image-001-5.gif', 'image/gif', null],
      ],
    )
    assert.deepEqual(read.files['EPUB/images/image-001-1.png'], IMAGES.png)
    assert.deepEqual(read.files['EPUB/images/image-001-2.jpg'], IMAGES.jpeg)
    assert.deepEqual(read.files['EPUB/images/image-001-4.webp'], IMAGES.webp)
    assert.deepEqual(read.files['EPUB/images/image-001-5.gif'], IMAGES.gif)
    const page = read.text('EPUB/chapter-001.xhtml')
    assert.match(
      page,
      /<img src="images\/image-001-1.png" alt="png"\/><img src="images\/image-001-2.jpg" alt="jpeg"\/><img src="images\/image-001-1.png" alt="png again"\/>/,
    )
    assert.match(
      page,
      /<figure><img src="images\/image-001-3.gif" alt="gif"\/><figcaption>A GIF<\/figcaption><\/figure>/,
    )
    for (const alt of ['served as an image, is not one', 'not archived', "another item's", 'external'])
      assert.ok(page.includes(`<span class="image-alt">[${alt.replace("'", "'")}]</span>`), alt)
    assert.ok(!page.includes('cdn.example.com'))
    assert.ok(!page.includes(`${APP}/items`))
  })

  test('past the image budget an image is its alt text', async () => {
    const html = `<p><img src="${APP}/items/${ITEM}/images/1" alt="one"><img src="${APP}/items/${ITEM}/images/2" alt="two"></p>`
    const read = readBook(
      await make(book(), [chapter({}, { html })], archive(), { imageBudgetBytes: IMAGES.png.byteLength + 10 }),
    )
    assert.match(
      read.text('EPUB/chapter-001.xhtml'),
      /<img src="images\/image-001-1.png" alt="one"\/><span class="image-alt">\[two\]<\/span>/,
    )
    const counted = readBook(await make(book(), [chapter({}, { html })], archive(), { maxImages: 1 }))
    assert.equal(counted.manifest.filter((item) => item.mediaType.startsWith('image/')).length, 1)
  })

  test('streamed: an item is read only when the bytes before it have been taken', async () => {
    let read = 0
    async function* endless(): AsyncGenerator<EpubChapter> {
      for (let i = 0; ; i++) {
        read++
        yield chapter({ itemId: `item-${i}` }, { html: `<p>${'word '.repeat(2000)}</p>` })
      }
    }
    const chunks = epubChunks(book(), endless(), { appUrl: APP, readArchivedImage: archive() })
    for (let i = 0; i < 5; i++) await chunks.next()
    assert.ok(read <= 5, `read ${read} items for 5 chunks`)
    await chunks.return(undefined)
  })

  test('refuses a time that is not a date', async () => {
    await assert.rejects(make(book({ modifiedAt: 'now' }), []), RangeError)
  })
})

describe('names', () => {
  test('a chapter’s title is the article’s, else the item’s, else its URL, on one line', () => {
    assert.equal(chapterTitle(chapter({ title: 'Item' }, { title: ' Article\n title ' })), 'Article title')
    assert.equal(chapterTitle(chapter({ title: 'Item\u0007' }, { title: null })), 'Item')
    assert.equal(chapterTitle(chapter({ title: null }, null)), 'https://example.com/post')
  })
  test('the file name is safe everywhere, with an ASCII twin for the header', () => {
    assert.deepEqual(epubFileName('Rust: "memory safety" / ok?', 'https://x'), {
      name: 'Rust memory safety ok.epub',
      ascii: 'Rust memory safety ok.epub',
    })
    assert.deepEqual(epubFileName('Café ünïcode – 東京 😀', 'https://x'), {
      name: 'Café ünïcode – 東京 😀.epub',
      ascii: 'Cafe unicode.epub',
    })
    assert.deepEqual(epubFileName('東京', 'https://x'), { name: '東京.epub', ascii: 'readlater.epub' })
    assert.equal(epubFileName(null, 'https://example.com/a').name, 'example.com a.epub')
    const long = epubFileName('x'.repeat(500), 'https://x').name
    assert.equal(long.length, 100)
    assert.equal(epubFileName('50% off; now', 'https://x').ascii, '50 off now.epub')
  })
})
