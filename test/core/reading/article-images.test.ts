import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { ARTICLE_IMAGE_LIMITS, articleImageSources, withArchivedImages } from '../../../core/reading/article-images.ts'
import { articleText } from '../../../core/reading/article-text.ts'
import { archivedImageOf, archivedImageUrl, rebaseArchivedImages } from '../../../core/reading/archived-image-url.ts'
import { ARTICLE_HTML_MAX_BYTES, extractArticle } from '../../../core/reading/extract-article.ts'

// docs/reading.md#archived-images: which images of an article are archived, how the article is pointed at the
// copies, and that the text (what highlights anchor in) never changes for it.

const PAGE_URL = 'https://blog.example.com/posts/pictures'
const APP = 'https://read.example.org'
const PROSE =
  'Readers keep the article itself, not only a link to it, so that it can still be read long after the original page ' +
  'moved behind a paywall, changed its address, or disappeared from the web altogether.'

function page(body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><title>Pictures</title></head><body><article>${body}</article></body></html>`
}

const ARTICLE = extractArticle(
  page(`<h1>Pictures</h1>
<p>${PROSE} <img src="/img/a.png" alt="A caption that is not text"></p>
<figure><img src="https://cdn.example.net/b.jpg?w=800&amp;h=600" alt="b"><figcaption>The second one</figcaption></figure>
<p>${PROSE}</p><p><img src="../img/a.png"> again, <img src="http://plain.example.com/c.gif"> and
<img src="data:image/png;base64,iVBORw0KGgo="> inline.</p>`),
  PAGE_URL,
)!

describe('articleImageSources()', () => {
  test('the distinct http(s) sources in the order they first appear, as the sanitizer wrote them; no data: image', () => {
    assert.deepEqual(articleImageSources(ARTICLE.html), [
      'https://blog.example.com/img/a.png',
      'https://cdn.example.net/b.jpg?w=800&h=600',
      'http://plain.example.com/c.gif',
    ])
  })

  test('the limits: 50 images, 5 MiB each, 20 MiB an item', () => {
    assert.deepEqual(ARTICLE_IMAGE_LIMITS, { count: 50, bytes: 5 * 1024 * 1024, itemBytes: 20 * 1024 * 1024 })
  })
})

describe('withArchivedImages()', () => {
  const copies = new Map([
    ['https://blog.example.com/img/a.png', archivedImageUrl(APP, 'item-1', 1)],
    ['https://cdn.example.net/b.jpg?w=800&h=600', archivedImageUrl(APP, 'item-1', 2)],
  ])
  const archived = withArchivedImages(ARTICLE, PAGE_URL, copies)

  test('every <img> of an archived source points at its copy; the others keep their URLs', () => {
    const sources = articleImageSources(archived.html)
    assert.deepEqual(sources, [
      `${APP}/items/item-1/images/1`,
      `${APP}/items/item-1/images/2`,
      'http://plain.example.com/c.gif',
    ])
    assert.equal(archived.html.split(`src="${APP}/items/item-1/images/1"`).length - 1, 2)
    assert.ok(archived.html.includes('src="data:image/png;base64,iVBORw0KGgo="'))
    assert.ok(archived.html.includes('alt="A caption that is not text"'))
  })

  test('images are no text: the text, word count and so every highlight stay exactly as they were', () => {
    assert.equal(archived.text, ARTICLE.text)
    assert.equal(archived.wordCount, ARTICLE.wordCount)
    assert.equal(articleText(archived.html), ARTICLE.text)
    assert.ok(!ARTICLE.text.includes('caption that is not text'))
  })

  test('the rewritten article is sanitizer output: a copy URL that is not http(s) drops the image, never lands in src', () => {
    const hostile = withArchivedImages(
      ARTICLE,
      PAGE_URL,
      new Map([['https://blog.example.com/img/a.png', 'javascript:alert(1)']]),
    )
    assert.ok(!hostile.html.includes('javascript:'))
    assert.deepEqual(articleImageSources(hostile.html), [
      'https://cdn.example.net/b.jpg?w=800&h=600',
      'http://plain.example.com/c.gif',
    ])
    assert.equal(hostile.text, ARTICLE.text)
  })

  test('nothing archived: the article as it was', () => {
    assert.equal(withArchivedImages(ARTICLE, PAGE_URL, new Map()), ARTICLE)
  })

  test('an article the longer URLs take past 1 MiB is cut again, and its text measured again', () => {
    const many = Array.from({ length: 9_000 }, (_, i) => `<p>${i} words here <img src="/i.png"></p>`).join('')
    const big = extractArticle(page(many), PAGE_URL)!
    const long = new Map([['https://blog.example.com/i.png', `${APP}/items/${'x'.repeat(40)}/images/1`]])
    const cut = withArchivedImages(big, PAGE_URL, long)
    assert.ok(new TextEncoder().encode(cut.html).byteLength <= ARTICLE_HTML_MAX_BYTES)
    assert.equal(cut.text, articleText(cut.html))
    assert.ok(cut.wordCount < big.wordCount)
  })
})

describe('archivedImageUrl() and archivedImageOf()', () => {
  test('{APP_URL}/items/{id}/images/{n}, read back to the id and number; any other URL is none', () => {
    assert.equal(archivedImageUrl(`${APP}/`, 'abc', 3), `${APP}/items/abc/images/3`)
    assert.equal(archivedImageUrl('https://h.example/read', 'a b', 1), 'https://h.example/read/items/a%20b/images/1')
    assert.deepEqual(archivedImageOf(`${APP}/items/abc/images/3`, APP), { itemId: 'abc', n: 3 })
    assert.deepEqual(archivedImageOf('https://h.example/read/items/a%20b/images/1', 'https://h.example/read/'), {
      itemId: 'a b',
      n: 1,
    })
    for (const other of [
      `${APP}/items/abc/images/0`,
      `${APP}/items/abc/images/01`,
      `${APP}/items/abc/images/3?x=1`,
      `${APP}/items/abc/images/3/more`,
      `${APP}/items/abc`,
      'https://elsewhere.example/items/abc/images/3',
      `${APP}/items/%zz/images/3`,
    ])
      assert.equal(archivedImageOf(other, APP), null)
  })
})

describe('rebaseArchivedImages()', () => {
  const ID = '019ac5f2-6a1b-7c3d-8e4f-0a1b2c3d4e5f'
  const OLD = 'http://localhost:3000'

  test('the item’s images archived under any earlier address are at the current one, quoted either way', () => {
    const html =
      `<p><img src="${OLD}/items/${ID}/images/1" alt="a"><img src='https://old.example/read/items/${ID}/images/12'>` +
      `<a href="${OLD}/items/${ID}/images/2">full size</a></p>`
    assert.equal(
      rebaseArchivedImages(html, ID, `${APP}/`),
      `<p><img src="${APP}/items/${ID}/images/1" alt="a"><img src='${APP}/items/${ID}/images/12'>` +
        `<a href="${APP}/items/${ID}/images/2">full size</a></p>`,
    )
  })

  test('already current, another item’s, not an attribute, not a number: left as they are', () => {
    const html =
      `<p><img src="${APP}/items/${ID}/images/1"><img src="${OLD}/items/other-item/images/1">` +
      `See ${OLD}/items/${ID}/images/1 in text. <img src="${OLD}/items/${ID}/images/0">` +
      `<img src="${OLD}/items/${ID}/images/1x"><img src="${OLD}/items/${ID}/images/1?w=2">` +
      `<img src="data:image/png;base64,AAAA"><img src="ftp://old.example/items/${ID}/images/3"></p>`
    assert.equal(rebaseArchivedImages(html, ID, APP), html)
  })

  test('an article without archived images is returned as it is', () => {
    const html = '<p>No pictures here.</p>'
    assert.equal(rebaseArchivedImages(html, ID, APP), html)
  })
})
