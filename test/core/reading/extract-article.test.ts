import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Parser } from 'htmlparser2'
import {
  ARTICLE_HTML_MAX_BYTES,
  ARTICLE_MAX_DEPTH,
  ARTICLE_MAX_ELEMENTS,
  extractArticle,
} from '../../../core/reading/extract-article.ts'
import { articleText } from '../../../core/reading/article-text.ts'
import { countWords } from '../../../core/reading/reading-time.ts'
import { readPage } from '../../fixtures/pages/read-page.ts'

const PAGE_URL = 'https://blog.example.com/posts/streaming-html-parser'
const encoder = new TextEncoder()
const bytes = (text: string) => encoder.encode(text).byteLength
const fixture = (name: 'article' | 'title-only') => new TextDecoder().decode(readPage(name))

/** A page whose body is `body`, inside an `<article>` so Readability has an obvious candidate. */
function page(body: string, lang = 'en'): string {
  return `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8"><title>A page</title></head><body><article>${body}</article></body></html>`
}
const PROSE =
  'Readers keep the article itself, not only a link to it, so that it can still be read long after the original page ' +
  'moved behind a paywall, changed its address, or disappeared from the web altogether.'
const paragraph = (i: number) => `<p>${i}. ${PROSE}</p>\n`

/** Whether `html` is well formed: every element opened is closed, in order (void elements aside). */
function balanced(html: string): boolean {
  const open: string[] = []
  let ok = true
  const parser = new Parser(
    {
      onopentag(name) {
        open.push(name)
      },
      onclosetag(name, implied) {
        if (implied && !['br', 'hr', 'img'].includes(name)) ok = false
        if (open.pop() !== name) ok = false
      },
    },
    { decodeEntities: true },
  )
  parser.write(html)
  parser.end()
  return ok && open.length === 0
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

describe('extractArticle() on the sample article', () => {
  const article = extractArticle(fixture('article'), PAGE_URL)

  test('reads the title, byline, site name, language and word count', () => {
    assert.ok(article)
    assert.equal(article.title, 'Parsing HTML as it streams, in TypeScript')
    assert.equal(article.byline, 'Ada Example')
    assert.equal(article.siteName, 'Example Engineering')
    assert.equal(article.lang, 'en')
    assert.equal(article.wordCount, 148)
    assert.equal(article.wordCount, countWords(article.text))
  })

  test('the text is the article body, one paragraph per block, entities decoded', () => {
    assert.ok(article)
    const paragraphs = article.text.split('\n\n')
    assert.equal(paragraphs[0], 'By Ada Example · March 14, 2025')
    assert.ok(paragraphs[1]?.startsWith('When someone saves a link, we want its title, icon and a short preview'))
    assert.ok(paragraphs[1]?.endsWith('most of what we need sits in the <head>, and the first paragraphs of the body.'))
    assert.ok(article.text.includes('Here’s how that works & what it costs.'))
    assert.ok(article.text.includes('The pipeline, from socket to saved item.\n\nChunk boundaries\n\n'))
    assert.ok(article.text.includes('an entity such as &amp; is decoded once, whole.'))
    assert.ok(article.text.endsWith('at worst it reads less than a browser would.'))
    assert.equal(article.text, articleText(article.html))
    // The page around the article is not part of it.
    for (const outside of [
      'Skip to content',
      'All posts',
      'Related posts',
      'Subscribe',
      'All rights reserved',
      'dataLayer',
    ]) {
      assert.ok(!article.text.includes(outside), outside)
      assert.ok(!article.html.includes(outside), outside)
    }
  })

  test('the html is sanitized, with absolute links and images', () => {
    assert.ok(article)
    assert.ok(
      article.html.includes(
        '<a href="https://blog.example.com/authors/ada" rel="noopener noreferrer nofollow">Ada Example</a>',
      ),
    )
    assert.ok(article.html.includes('src="https://blog.example.com/images/pipeline.png"'))
    assert.ok(article.html.includes('<figcaption>The pipeline, from socket to saved item.</figcaption>'))
    assert.ok(article.html.includes('<h2>Chunk boundaries</h2>'))
    assert.ok(article.html.includes('<code>&amp;amp;</code>'))
    assert.ok(!/<(?:script|time|article|div|span)\b|class=|datetime=/.test(article.html), article.html)
    assert.equal(article.html, article.html.trim())
    assert.ok(balanced(article.html))
  })
})

describe('extractArticle() when there is no article', () => {
  const cases: readonly [name: string, html: string][] = [
    ['an empty document', ''],
    ['an empty body', '<!DOCTYPE html><html><head><title>Empty</title></head><body></body></html>'],
    ['only whitespace and comments', page('  <!-- nothing -->\n\t ')],
    [
      'only script, style and noscript',
      page('<script>var a = 1</script><style>p{}</style><noscript>Enable JavaScript</noscript>'),
    ],
    ['only an image', page('<figure><img src="/a.png" alt=""></figure>')],
    ['only an iframe and a form', page('<iframe src="/x"></iframe><form><input name=q><button>Go</button></form>')],
    ['only empty elements', page('<div><p> </p><ul><li></li></ul><table><tr><td>&nbsp;</td></tr></table></div>')],
  ]
  for (const [name, html] of cases) {
    test(`${name} gives null`, () => {
      assert.equal(extractArticle(html, PAGE_URL), null)
    })
  }

  test('a tiny page with one paragraph gives that paragraph: extraction applies no "is it an article" heuristic', () => {
    // title-only.html is a <title> and a single <p>. Readability's parse() keeps the best candidate it finds
    // whatever its size (isProbablyReaderable() is the heuristic, and extraction does not call it), so a short
    // note is still the page's readable content: the reader shows those two sentences rather than nothing.
    const article = extractArticle(fixture('title-only'), 'https://example.com/notes/caching')
    assert.ok(article)
    assert.equal(article.title, 'Notes on HTTP caching')
    assert.equal(article.byline, null)
    assert.equal(article.siteName, null)
    assert.equal(article.lang, null)
    assert.equal(
      article.html,
      '<p>Cache-Control decides who may store a response and for how long. Start with max-age, add stale-while-revalidate once you know your traffic.</p>',
    )
    assert.equal(
      article.text,
      'Cache-Control decides who may store a response and for how long. Start with max-age, add stale-while-revalidate once you know your traffic.',
    )
    assert.equal(article.wordCount, 21)
  })
})

describe('extractArticle() resolves URLs', () => {
  const body = `${paragraph(1)}<p>See <a href="guide/setup">the guide</a> and <a href="/about">us</a>.</p><figure><img src="img/a.png" alt="A"></figure>${paragraph(2)}`
  const withBase = (href: string) =>
    `<!DOCTYPE html><html lang="en"><head><base href="${href}"><title>T</title></head><body><article>${body}</article></body></html>`

  const cases: readonly [name: string, base: string, guide: string, about: string, image: string][] = [
    [
      'an absolute <base href> on another host',
      'https://cdn.example.org/docs/v2/',
      'https://cdn.example.org/docs/v2/guide/setup',
      'https://cdn.example.org/about',
      'https://cdn.example.org/docs/v2/img/a.png',
    ],
    [
      'a relative <base href>, resolved against the page',
      '/static/v2/',
      'https://blog.example.com/static/v2/guide/setup',
      'https://blog.example.com/about',
      'https://blog.example.com/static/v2/img/a.png',
    ],
    [
      'a javascript: <base href> is ignored',
      'javascript:alert(1)//',
      'https://blog.example.com/posts/guide/setup',
      'https://blog.example.com/about',
      'https://blog.example.com/posts/img/a.png',
    ],
    [
      'a data: <base href> is ignored',
      'data:text/html,x',
      'https://blog.example.com/posts/guide/setup',
      'https://blog.example.com/about',
      'https://blog.example.com/posts/img/a.png',
    ],
  ]
  for (const [name, base, guide, about, image] of cases) {
    test(name, () => {
      const article = extractArticle(withBase(base), PAGE_URL)
      assert.ok(article)
      assert.ok(
        article.html.includes(`<a href="${guide}" rel="noopener noreferrer nofollow">the guide</a>`),
        article.html,
      )
      assert.ok(article.html.includes(`<a href="${about}" rel="noopener noreferrer nofollow">us</a>`), article.html)
      assert.ok(article.html.includes(`src="${image}"`), article.html)
    })
  }

  test('without <base>, against the page URL', () => {
    const article = extractArticle(page(body), PAGE_URL)
    assert.ok(article)
    assert.ok(article.html.includes('<a href="https://blog.example.com/posts/guide/setup"'))
    assert.ok(article.html.includes('src="https://blog.example.com/posts/img/a.png"'))
  })

  test('against the page URL even where a global location exists (a Deno worker has its file URL there)', () => {
    const global = globalThis as { location?: unknown }
    const had = Object.getOwnPropertyDescriptor(global, 'location')
    Object.defineProperty(global, 'location', {
      value: { href: 'file:///srv/readlater/adapters/reading/article-thread.ts' },
      configurable: true,
      writable: true,
    })
    try {
      const article = extractArticle(page(body), PAGE_URL)
      assert.ok(article)
      assert.ok(article.html.includes('<a href="https://blog.example.com/posts/guide/setup"'), article.html)
      assert.ok(article.html.includes('<a href="https://blog.example.com/about"'), article.html)
    } finally {
      if (had) Object.defineProperty(global, 'location', had)
      else delete global.location
    }
  })
})

describe('extractArticle() reads the language tag', () => {
  const cases: readonly [lang: string, expected: string | null][] = [
    ['en', 'en'],
    ['pt-BR', 'pt-BR'],
    ['zh-Hant-TW', 'zh-Hant-TW'],
    [' de ', 'de'],
    ['x'.repeat(40), null],
    ['en_US&lt;script&gt;', null],
    ['en_US', null],
    ['e', null],
    ['en-', null],
    ['', null],
  ]
  for (const [lang, expected] of cases) {
    test(`lang=${JSON.stringify(lang)} gives ${JSON.stringify(expected)}`, () => {
      const article = extractArticle(page(paragraph(1) + paragraph(2), lang), PAGE_URL)
      assert.ok(article)
      assert.equal(article.lang, expected)
    })
  }

  test('a tag of 35 characters is the longest kept', () => {
    const long = `en-${'a'.repeat(8)}-${'b'.repeat(8)}-${'c'.repeat(8)}-${'d'.repeat(5)}`
    assert.equal(long.length, 35)
    assert.equal(extractArticle(page(paragraph(1), long), PAGE_URL)?.lang, long)
    assert.equal(extractArticle(page(paragraph(1), `${long}e`), PAGE_URL)?.lang, null)
  })
})

describe('extractArticle() bounds', () => {
  const nested = (levels: number) =>
    page('<div>'.repeat(levels) + paragraph(1) + paragraph(2) + '</div>'.repeat(levels))

  test('a page nested a little is read', () => {
    const article = extractArticle(nested(60), PAGE_URL)
    assert.ok(article)
    assert.ok(article.text.startsWith(`1. ${PROSE}`))
  })

  for (const levels of [ARTICLE_MAX_DEPTH + 1, 300, 100_000]) {
    test(`a page nested ${levels} levels deep gives null, quickly`, () => {
      const html = nested(levels)
      const started = performance.now()
      assert.equal(extractArticle(html, PAGE_URL), null)
      assert.ok(performance.now() - started < 1000, `${Math.round(performance.now() - started)} ms`)
    })
  }

  test('depth counts elements left unclosed too', () => {
    const unclosed = (levels: number) => page(`<span>`.repeat(levels) + PROSE)
    assert.ok(extractArticle(unclosed(40), PAGE_URL)?.text.startsWith('Readers keep the article itself'))
    assert.equal(extractArticle(unclosed(ARTICLE_MAX_DEPTH + 1), PAGE_URL), null)
  })

  test(`a page of more than ${ARTICLE_MAX_ELEMENTS} elements gives null, quickly`, () => {
    const html = page(paragraph(1) + '<br>'.repeat(ARTICLE_MAX_ELEMENTS) + paragraph(2))
    const started = performance.now()
    assert.equal(extractArticle(html, PAGE_URL), null)
    assert.ok(performance.now() - started < 2000, `${Math.round(performance.now() - started)} ms`)
  })

  test('sanitized HTML over 1 MiB is cut after the last whole block below the cap', () => {
    const count = Math.ceil((1.1 * ARTICLE_HTML_MAX_BYTES) / paragraph(0).length)
    const html = page(Array.from({ length: count }, (_, i) => paragraph(i)).join(''))
    const article = extractArticle(html, PAGE_URL)
    assert.ok(article)
    const size = bytes(article.html)
    assert.ok(size <= ARTICLE_HTML_MAX_BYTES, `${size} bytes`)
    assert.ok(size > 0.9 * ARTICLE_HTML_MAX_BYTES, `${size} bytes: the cut keeps most of what fits`)
    assert.ok(article.html.endsWith(`. ${PROSE}</p>`), article.html.slice(-80))
    assert.ok(balanced(article.html))
    // Whole paragraphs, in order, from the first: the text is a prefix of the full article's.
    const paragraphs = article.text.split('\n\n')
    assert.ok(paragraphs.length > 1000 && paragraphs.length < count)
    paragraphs.forEach((text, i) => assert.equal(text, `${i}. ${PROSE}`))
    assert.equal(article.wordCount, countWords(article.text))
  })

  test('a single 2 MiB paragraph is cut inside its text', () => {
    const words = 'streaming parsers read pages as they arrive, '
    const html = page(`<p>${words.repeat(Math.ceil((2 * 1024 * 1024) / words.length))}</p>`)
    const article = extractArticle(html, PAGE_URL)
    assert.ok(article)
    const size = bytes(article.html)
    assert.ok(size <= ARTICLE_HTML_MAX_BYTES, `${size} bytes`)
    assert.ok(size > 0.9 * ARTICLE_HTML_MAX_BYTES, `${size} bytes`)
    assert.ok(article.html.startsWith('<p>streaming parsers read pages'))
    assert.ok(article.html.endsWith('</p>'))
    assert.ok(balanced(article.html))
    assert.ok(article.text.length > 900_000)
    assert.ok(article.text.startsWith(words.trim()))
    assert.ok(article.wordCount > 100_000)
  })

  test('a 2 MiB paragraph after a short one is cut inside its text, not dropped', () => {
    const words = 'streaming parsers read pages as they arrive, '
    const html = page(
      `<h2>Introduction</h2>${paragraph(1)}<p>${words.repeat(Math.ceil((2 * 1024 * 1024) / words.length))}</p>`,
    )
    const article = extractArticle(html, PAGE_URL)
    assert.ok(article)
    const size = bytes(article.html)
    assert.ok(size <= ARTICLE_HTML_MAX_BYTES, `${size} bytes`)
    assert.ok(size > 0.9 * ARTICLE_HTML_MAX_BYTES, `${size} bytes: the long paragraph is kept up to the cap`)
    assert.ok(article.text.startsWith(`Introduction\n\n1. ${PROSE}\n\nstreaming parsers read pages`))
    assert.ok(balanced(article.html))
  })

  // Three offsets, so the cut meets each position within the repeated three-unit '😀文'.
  for (const lead of ['', 'x', 'xy']) {
    test(`a 2 MiB paragraph of 4-byte characters is cut between characters (offset ${lead.length})`, () => {
      const html = page(`<p>${lead}${'😀文'.repeat((2 * 1024 * 1024) / 7)}</p>`)
      const article = extractArticle(html, PAGE_URL)
      assert.ok(article)
      assert.ok(bytes(article.html) <= ARTICLE_HTML_MAX_BYTES)
      assert.ok(!LONE_SURROGATE.test(article.html), 'the html ends inside a surrogate pair')
      assert.ok(!LONE_SURROGATE.test(article.text), 'the text ends inside a surrogate pair')
      assert.ok(article.html.endsWith('</p>'))
      assert.ok(balanced(article.html))
      assert.ok(article.wordCount > 100_000)
    })
  }
})
