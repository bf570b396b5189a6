import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { decodeHtml } from '../../../core/enrichment/decode-html.ts'
import { extractPage } from '../../../core/enrichment/extract-page.ts'
import type { PageMetadata } from '../../../core/enrichment/page-metadata.ts'
import { readPage, type PageName } from '../../fixtures/pages/read-page.ts'

const cases: readonly [page: PageName, finalUrl: string, expected: PageMetadata][] = [
  [
    'article',
    'https://blog.example.com/posts/streaming-html-parser',
    {
      title: 'Parsing HTML as it streams, in TypeScript',
      description: 'How we read a page’s title, icons & summary from its first kilobytes, without building a DOM.',
      siteName: 'Example Engineering',
      faviconUrl: 'https://blog.example.com/icons/favicon-light.png',
      faviconLightUrl: 'https://blog.example.com/icons/favicon-light.png',
      faviconDarkUrl: 'https://blog.example.com/icons/favicon-dark.png',
      imageUrl: 'https://blog.example.com/images/streaming-cover.png',
      canonicalUrl: 'https://blog.example.com/posts/streaming-html-parser?utm_source=rss&utm_medium=feed',
      previewSummary:
        'When someone saves a link, we want its title, icon and a short preview within a second. Waiting for the whole ' +
        'document is wasteful: most of what we need sits in the <head>, and the first paragraphs of the body. So the ' +
        'extractor reads the response as it arrives, feeds each chunk to a streaming…',
      type: 'article',
      tags: ['typescript', 'front-end'],
    },
  ],
  [
    'video',
    'https://media.example.net/talks/rust-for-typescript-developers',
    {
      title: 'Rust for TypeScript developers',
      description: 'A 40-minute conference talk about moving from TypeScript to Rust, with live-coded examples.',
      siteName: 'Example Media',
      faviconUrl: 'https://media.example.net/favicon.ico?v=3',
      faviconLightUrl: null,
      faviconDarkUrl: null,
      imageUrl: 'https://media.example.net/thumbs/8842/maxres.jpg',
      canonicalUrl: 'https://media.example.net/talks/rust-for-typescript-developers',
      previewSummary:
        'Ownership, borrowing and enums explained for people who already think in types. The talk ports a small CLI ' +
        'from TypeScript to Rust and compares the two step by step.',
      type: 'video',
      tags: ['typescript'],
    },
  ],
  [
    'repository',
    'https://git.example.org/tools/htmlkit',
    {
      title: 'tools/htmlkit',
      description: 'A tiny streaming HTML toolkit: tokenizer, metadata extractor and sanitizer.',
      siteName: 'Example Git',
      faviconUrl: 'https://git.example.org/assets/img/logo.svg',
      faviconLightUrl: null,
      faviconDarkUrl: null,
      imageUrl: 'https://git.example.org/tools/htmlkit/-/raw/main/.assets/social-card.png',
      canonicalUrl: 'https://git.example.org/tools/htmlkit',
      previewSummary:
        'A tiny streaming HTML toolkit for servers and edge runtimes. It tokenizes HTML as bytes arrive, extracts page ' +
        'metadata and sanitizes untrusted markup. Install npm install htmlkit',
      type: 'repository',
      tags: ['tools', 'front-end'],
    },
  ],
  [
    'title-only',
    'https://notes.example.com/http-caching',
    {
      title: 'Notes on HTTP caching',
      description: null,
      siteName: null,
      faviconUrl: 'https://notes.example.com/favicon.ico',
      faviconLightUrl: null,
      faviconDarkUrl: null,
      imageUrl: null,
      canonicalUrl: null,
      previewSummary:
        'Cache-Control decides who may store a response and for how long. Start with max-age, add ' +
        'stale-while-revalidate once you know your traffic.',
      type: 'website',
      tags: [],
    },
  ],
  [
    'relative-urls',
    'https://docs.example.com/guide/getting-started/index.html',
    {
      title: 'Getting started · Widget Docs',
      description: 'Install the widget, configure it, and render your first chart.',
      siteName: 'Widget Docs',
      faviconUrl: 'https://docs.example.com/static/v2/icons/favicon.svg',
      faviconLightUrl: null,
      faviconDarkUrl: 'https://docs.example.com/static/v2/icons/favicon-dark.svg',
      imageUrl: 'https://docs.example.com/static/v2/img/cover.png',
      canonicalUrl: 'https://docs.example.com/guide/getting-started/',
      previewSummary:
        'Install the package, import the widget and mount it on an element. The next pages cover themes and data sources.',
      type: 'website',
      tags: [],
    },
  ],
  [
    'latin1',
    'https://cafe.example.de/ueber-uns',
    {
      title: 'Über uns – Café „Zur Mühle“',
      description: 'Familienbetrieb seit 1952: Kaffee, Kuchen und Frühstück in der Altstadt.',
      siteName: 'Café Zur Mühle',
      faviconUrl: 'https://cafe.example.de/favicon.ico',
      faviconLightUrl: null,
      faviconDarkUrl: null,
      imageUrl: null,
      canonicalUrl: null,
      previewSummary:
        'Seit 1952 backen wir jeden Morgen frische Brötchen. Unsere Gäste schätzen die ruhige Lage an der Brücke und ' +
        'den großen Garten – im Sommer gibt’s dort „Kaffee & Kuchen“ für 4,50 €.',
      type: 'website',
      tags: [],
    },
  ],
]

describe('extractPage() on the sample pages', () => {
  for (const [page, finalUrl, expected] of cases) {
    test(`extractPage() reads every field of ${page}.html`, () => {
      // Served without a charset parameter, as the integration tests do, so latin1 relies on its <meta>.
      assert.deepEqual(extractPage(decodeHtml(readPage(page), 'text/html'), finalUrl), expected)
    })
  }

  test('extractPage() keeps the article summary within 300 characters and ends it on a whole word', () => {
    const summary =
      extractPage(decodeHtml(readPage('article'), 'text/html'), 'https://blog.example.com/p').previewSummary ?? ''
    assert.ok(summary.length <= 300, `${summary.length} characters`)
    // The next word in the article is "tokenizer,", which would not have fitted with the ellipsis.
    assert.ok(summary.endsWith(' streaming…'))
  })

  test('extractPage() resolves the sample pages against the URL they were served from', () => {
    const page = extractPage(
      decodeHtml(readPage('relative-urls'), 'text/html'),
      'http://127.0.0.1:8080/relative-urls.html',
    )
    assert.equal(page.imageUrl, 'http://127.0.0.1:8080/static/v2/img/cover.png')
    assert.equal(page.canonicalUrl, 'http://127.0.0.1:8080/guide/getting-started/')
  })
})
