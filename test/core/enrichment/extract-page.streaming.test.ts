import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { decodeHtml } from '../../../core/enrichment/decode-html.ts'
import { createPageExtractor, extractPage, SETTLE_WINDOW } from '../../../core/enrichment/extract-page.ts'
import type { PageMetadata } from '../../../core/enrichment/page-metadata.ts'
import { PAGE_NAMES, readPage } from '../../fixtures/pages/read-page.ts'

const URL_ = 'https://example.com/posts/long'
const PARAGRAPH = `<p>${'Streaming parsers read a document as it arrives, one chunk at a time. '.repeat(12)}</p>\n`
const MIB = 1024 * 1024

function extractInChunks(html: string, sizes: (index: number) => number): PageMetadata {
  const extractor = createPageExtractor(URL_)
  for (let start = 0, index = 0; start < html.length; index++) {
    const end = start + sizes(index)
    extractor.write(html.slice(start, end))
    start = end
  }
  return extractor.finish()
}

/** Feeds `html` in 64 KiB chunks until the extractor is done; returns how much it was given. */
function feedUntilDone(html: string): { consumed: number; metadata: PageMetadata } {
  const extractor = createPageExtractor(URL_)
  let consumed = 0
  while (consumed < html.length && !extractor.done) {
    extractor.write(html.slice(consumed, consumed + 64 * 1024))
    consumed += 64 * 1024
  }
  return { consumed, metadata: extractor.finish() }
}

const bigPage = (head: string, open: string, close: string): string =>
  `<!doctype html><html><head>${head}</head><body>${open}${PARAGRAPH.repeat(Math.ceil((5 * MIB) / PARAGRAPH.length))}${close}</body></html>`

describe('createPageExtractor() chunked input', () => {
  for (const name of PAGE_NAMES) {
    test(`createPageExtractor() gives the same result for ${name}.html split at every position`, () => {
      const html = decodeHtml(readPage(name), 'text/html')
      const whole = extractPage(html, URL_)
      for (let split = 1; split < html.length; split++) {
        assert.deepEqual(
          extractInChunks(html, (index) => (index === 0 ? split : html.length)),
          whole,
          `split at ${split}`,
        )
      }
    })

    test(`createPageExtractor() gives the same result for ${name}.html fed in 1- to 7-character chunks`, () => {
      const html = decodeHtml(readPage(name), 'text/html')
      assert.deepEqual(
        extractInChunks(html, (index) => (index % 7) + 1),
        extractPage(html, URL_),
      )
    })
  }

  test('createPageExtractor() decodes an entity split across writes', () => {
    const extractor = createPageExtractor(URL_)
    for (const chunk of ['<title>Tom &am', 'p; Jerry&#82', '17;s</ti', 'tle><p>x &e', 'acute;</p>'])
      extractor.write(chunk)
    const metadata = extractor.finish()
    assert.equal(metadata.title, 'Tom & Jerry’s')
    assert.equal(metadata.previewSummary, 'x é')
  })

  test('createPageExtractor() keeps characters outside the BMP whole at any split', () => {
    const html = '<title>Launch 🚀 day</title><p>Ship it 😀 today</p>'
    for (let split = 1; split < html.length; split++) {
      const metadata = extractInChunks(html, (index) => (index === 0 ? split : html.length))
      assert.deepEqual(
        [metadata.title, metadata.previewSummary],
        ['Launch 🚀 day', 'Ship it 😀 today'],
        `split at ${split}`,
      )
    }
  })

  test('createPageExtractor() is not done before the input says so, and done after finish()', () => {
    const extractor = createPageExtractor(URL_)
    extractor.write('<html><head><title>Short</title></head><body><p>A short page.')
    assert.equal(extractor.done, false)
    assert.equal(extractor.finish().previewSummary, 'A short page.')
    assert.equal(extractor.done, true)
  })

  test('createPageExtractor() returns the same result from a second finish()', () => {
    const extractor = createPageExtractor(URL_)
    extractor.write('<title>Once</title>')
    assert.equal(extractor.finish(), extractor.finish())
  })
})

describe('createPageExtractor() stopping early', () => {
  test('createPageExtractor() is done at </body>', () => {
    const extractor = createPageExtractor(URL_)
    extractor.write('<html><head><title>T</title></head><body><p>Text</p></body>')
    assert.equal(extractor.done, true)
    extractor.write('<script type="application/ld+json">{"@type":"SoftwareSourceCode"}</script><title>Late</title>')
    assert.deepEqual([extractor.finish().title, extractor.finish().type], ['T', 'website'])
  })

  test('createPageExtractor() stops within the first chunk of a 5 MiB article once the summary is full', () => {
    const { consumed, metadata } = feedUntilDone(
      bigPage('<meta property="og:type" content="article"><title>Long</title>', '<article>', '</article>'),
    )
    assert.equal(consumed, 64 * 1024)
    assert.equal(metadata.type, 'article')
    assert.ok((metadata.previewSummary ?? '').startsWith('Streaming parsers read a document'))
  })

  test('createPageExtractor() stops a 5 MiB page without an article one settle window after the summary', () => {
    const { consumed, metadata } = feedUntilDone(bigPage('<title>Plain</title>', '', ''))
    assert.ok(consumed > SETTLE_WINDOW, `stopped after ${consumed} characters`)
    assert.ok(consumed <= SETTLE_WINDOW + 2 * 64 * 1024, `stopped after ${consumed} characters`)
    assert.equal(metadata.type, 'website')
    assert.equal(metadata.title, 'Plain')
  })

  test('createPageExtractor() keeps reading for an <article> that starts after the body text filled the summary', () => {
    const html = `<html><head><title>T</title></head><body>${PARAGRAPH.repeat(20)}<article><p>The real story.</p></article>${PARAGRAPH.repeat(20)}</body></html>`
    const metadata = feedUntilDone(html).metadata
    assert.equal(metadata.previewSummary, 'The real story.')
  })

  test('createPageExtractor() sees body JSON-LD within the settle window', () => {
    const ld = '<script type="application/ld+json">{"@type":"Article"}</script>'
    const html = `<html><head><title>T</title></head><body><article>${PARAGRAPH.repeat(30)}</article>${ld}${PARAGRAPH.repeat(2000)}</body></html>`
    assert.equal(feedUntilDone(html).metadata.type, 'article')
  })

  test('extractPage() of a whole page equals what a caller that stopped early gets', () => {
    const html = bigPage(
      '<title>Plain</title>',
      '',
      '<script type="application/ld+json">{"@type":"SoftwareSourceCode"}</script>',
    )
    const whole = extractPage(html, URL_)
    assert.deepEqual(whole, feedUntilDone(html).metadata)
    // The JSON-LD at the end is past the settle window, so it cannot make this a repository.
    assert.equal(whole.type, 'website')
  })

  test('createPageExtractor() reads a 5 MiB head to the end without stopping', () => {
    const html = `<html><head><title>T</title><style>${'a{b:c}'.repeat(MIB)}</style></head><body><p>After the head.</p></body></html>`
    const { consumed, metadata } = feedUntilDone(html)
    assert.ok(consumed >= html.length)
    assert.equal(metadata.previewSummary, 'After the head.')
  })
})
