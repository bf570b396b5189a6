import { afterEach, expect, test } from 'bun:test'
import {
  ExtractionFailedError,
  ExtractionTimeoutError,
  startArticleThreads,
  type ArticleThreads,
} from '../../adapters/reading/article-threads.ts'
import { readPage } from '../fixtures/pages/read-page.ts'

// docs/reading.md#extraction: extraction and Markdown off the serving thread, one piece of work at a time;
// a piece past its budget fails alone and the next one gets a fresh thread.

const started: ArticleThreads[] = []
afterEach(() => {
  for (const threads of started.splice(0)) threads.close()
})
const threads = (timeoutMs = 10_000, idleMs = 30_000) => {
  const made = startArticleThreads({ timeoutMs, idleMs })
  started.push(made)
  return made
}

const ARTICLE = readPage('article')
const text = new TextDecoder().decode(ARTICLE)
const paragraph = `<p>${'A sentence of a long article, with <a href="/more">a link</a> in it. '.repeat(12)}</p>\n`
const LONG = text.replace('</article>', `${paragraph.repeat(Math.ceil((1024 * 1024) / paragraph.length))}</article>`)

test('extract: the metadata and the article of a page, from its bytes and Content-Type', async () => {
  const { metadata, article } = await threads().extract(ARTICLE, 'text/html', 'https://example.com/post')
  expect(metadata.title).toBe('Parsing HTML as it streams, in TypeScript')
  expect(metadata.siteName).toBe('Example Engineering')
  expect(article?.byline).toBe('Ada Example')
  expect(article?.wordCount).toBe(148)
  expect(article?.html).toContain('href="https://example.com/authors/ada"')
})

test('markdown: the article as Markdown', async () => {
  const markdown = await threads().markdown('<h2>Title</h2><p>Some <em>text</em>.</p>')
  expect(markdown).toBe('## Title\n\nSome _text_.')
})

test('a piece past its budget fails with ExtractionTimeoutError; the next one runs on a fresh thread', async () => {
  const pool = threads(300)
  const slow = pool.extract(LONG, null, 'https://example.com/long')
  const next = pool.extract(ARTICLE, 'text/html', 'https://example.com/post')
  await expect(slow).rejects.toBeInstanceOf(ExtractionTimeoutError)
  expect((await next).article?.wordCount).toBe(148)
})

test('pieces are answered in order, each its own answer', async () => {
  const pool = threads()
  const answers = await Promise.all([
    pool.markdown('<p>one</p>'),
    pool.extract(ARTICLE, 'text/html', 'https://example.com/post'),
    pool.markdown('<p>three</p>'),
  ])
  expect(answers[0]).toBe('one')
  expect((answers[1] as { article: { byline: string } }).article.byline).toBe('Ada Example')
  expect(answers[2]).toBe('three')
})

test('close() refuses the work still queued and any later work', async () => {
  const pool = threads()
  const queued = pool.extract(LONG, null, 'https://example.com/long')
  pool.close()
  await expect(queued).rejects.toBeInstanceOf(ExtractionFailedError)
  await expect(pool.markdown('<p>x</p>')).rejects.toBeInstanceOf(ExtractionFailedError)
})

test('after an idle thread has ended, the next piece is still answered', async () => {
  const pool = threads(10_000, 50)
  expect(await pool.markdown('<p>first</p>')).toBe('first')
  await new Promise((resolve) => setTimeout(resolve, 150))
  expect(await pool.markdown('<p>second</p>')).toBe('second')
})
