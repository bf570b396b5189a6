import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type EpubBook, type EpubChapter, epubChunks } from '../../core/export/epub/epub.ts'
import { extractArticle } from '../../core/reading/extract-article.ts'
import { archivedImageUrl } from '../../core/reading/archived-image-url.ts'
import { sanitizeArticle } from '../../core/reading/sanitize-article.ts'
import { readPage } from '../fixtures/pages/read-page.ts'
import { XSS_VECTORS } from '../fixtures/xss/vectors.ts'
import { bytesOf, IMAGES, readBook } from '../core/export/epub-fixtures.ts'
import { BASE, createHarness } from '../helpers/harness.ts'

// docs/import-export.md#epub: every book passes epubcheck (Debian's `epubcheck` package, which checks EPUB
// 3.2) with no error and no warning: one item with an image of each type, a set with an item without an
// article and hostile titles, the XSS corpus as articles (raw and sanitized), an empty set, and the books the
// API makes. `.ci/run` installs epubcheck; without it these tests are skipped, saying so.

/** How to run epubcheck here: Debian's /usr/bin/epubcheck is the jar itself, run with `java -jar`. */
function epubcheckCommand(): string[] | null {
  const found = Bun.which('epubcheck')
  if (!found) return null
  const path = realpathSync(found)
  const head = readFileSync(path).subarray(0, 2).toString('latin1')
  if (head !== 'PK') return [path]
  const java = Bun.which('java')
  return java ? [java, '-jar', path] : null
}

const EPUBCHECK = epubcheckCommand()
if (!EPUBCHECK)
  console.warn(
    'test/epub/epubcheck.test.ts: SKIPPED, epubcheck is not installed (apt-get install epubcheck; .ci/run does)',
  )

const dir = mkdtempSync(join(tmpdir(), 'readlater-epubcheck-'))
let books = 0

/** epubcheck's verdict on a book: its exit status and every message line. */
async function epubcheck(bytes: Uint8Array): Promise<{ code: number; messages: string[]; output: string }> {
  const path = join(dir, `book-${++books}.epub`)
  writeFileSync(path, bytes)
  const run = Bun.spawn([...EPUBCHECK!, path], { stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ])
  const output = stdout + stderr
  rmSync(path)
  return { code, output, messages: output.split('\n').filter((line) => /^(FATAL|ERROR|WARNING)\(/.test(line)) }
}

async function expectValid(bytes: Uint8Array) {
  const verdict = await epubcheck(bytes)
  expect(verdict.messages).toEqual([])
  expect(verdict.output).toContain('No errors or warnings detected.')
  expect(verdict.code).toBe(0)
}

const APP = 'https://read.example.com'
const ITEM = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'

const book = (over: Partial<EpubBook> = {}): EpubBook => ({
  uuid: '017f22e2-79b0-7cc3-98c4-0000000000aa',
  title: 'Readlater: Unread, 2026-11-25',
  modifiedAt: '2026-11-25T10:00:00.000Z',
  kind: 'collection',
  notes: [],
  emptyMessage: 'There are no unread items here.',
  ...over,
})

const article = (html: string, over: Partial<NonNullable<EpubChapter['article']>> = {}) => ({
  title: null,
  byline: null,
  siteName: null,
  lang: 'en',
  wordCount: 2000,
  html,
  ...over,
})

async function* listOf<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items
}

const archived: Record<number, Uint8Array> = { 1: IMAGES.png, 2: IMAGES.jpeg, 3: IMAGES.gif, 4: IMAGES.webp }
const make = (b: EpubBook, chapters: EpubChapter[]) =>
  bytesOf(
    epubChunks(b, listOf(chapters), {
      appUrl: APP,
      readArchivedImage: async (itemId, n) =>
        itemId === ITEM && archived[n] ? { mediaType: 'image/png', bytes: archived[n] } : null,
    }),
  )

const HOSTILE_TITLES = [
  'CDATA end ]]> & ampersand <tag> "quotes" \'apos\'',
  'Controls \u0000\u0001\u0007\u000b\u001f\u007f\u0085\u009f and noncharacters \ufffe\uffff\ufdd0 and a lone \ud800 half',
  'x'.repeat(5000),
  'مرحبا بالعالم: עברית ו‮RLO‬ and ‏marks‎',
  'Emoji 😀👩🏽‍💻🏳️‍🌈 and 東京 and \u2028 line separator',
  '   ',
]

/** epubcheck starts a Java VM for each book: seconds each on a busy machine. */
const EPUBCHECK_TIMEOUT_MS = 120_000

describe.skipIf(!EPUBCHECK)('epubcheck: no error, no warning', () => {
  test(
    'one item with an archived PNG, JPEG, GIF and WebP, a data: image and an external one',
    async () => {
      const own = (n: number) => archivedImageUrl(APP, ITEM, n)
      const html = [
        '<h2>Images</h2>',
        `<p><img src="${own(1)}" alt="A PNG"> and <img src="${own(2)}" alt="A JPEG"></p>`,
        `<figure><img src="${own(3)}" alt="A GIF"><figcaption>A GIF, captioned</figcaption></figure>`,
        `<figure><img src="${own(4)}" alt="A WebP"><figcaption>A WebP with its fallback</figcaption></figure>`,
        `<p><img src="data:image/gif;base64,${Buffer.from(IMAGES.gif).toString('base64')}" alt="inline"></p>`,
        '<p><img src="https://cdn.example.com/remote.png" alt="Not fetched"></p>',
      ].join('\n')
      const bytes = await make(book({ kind: 'item', uuid: ITEM, title: 'Images' }), [
        {
          itemId: ITEM,
          url: 'https://example.com/images',
          title: 'Images',
          siteName: 'Example',
          description: null,
          article: article(html),
        },
      ])
      const read = readBook(bytes)
      expect(read.manifest.map((item) => item.mediaType).filter((type) => type.startsWith('image/'))).toEqual([
        'image/png',
        'image/jpeg',
        'image/gif',
        'image/webp',
        'image/svg+xml',
        'image/gif',
      ])
      await expectValid(bytes)
    },
    EPUBCHECK_TIMEOUT_MS,
  )

  test(
    'a set: hostile titles, an item without an article, right-to-left and emoji, a real article, broken markup',
    async () => {
      const page = new TextDecoder().decode(readPage('article'))
      const extracted = extractArticle(page, 'https://example.com/blog/streaming-html')!
      const chapters: EpubChapter[] = HOSTILE_TITLES.map((title, i) => ({
        itemId: `hostile-${i}`,
        url: `https://example.com/hostile/${i}?a=1&b=]]>`,
        title,
        siteName: title,
        description: i === 1 ? title : null,
        article:
          i === 0
            ? null
            : article(`<p>${title}</p>`, { title, byline: title, siteName: title, lang: i === 3 ? 'ar' : null }),
      }))
      chapters.push(
        {
          itemId: 'none',
          url: 'https://example.org/pdf',
          title: 'A PDF',
          siteName: null,
          description: null,
          article: null,
        },
        {
          itemId: 'real',
          url: 'https://example.com/blog/streaming-html',
          title: extracted.title,
          siteName: extracted.siteName,
          description: null,
          article: article(sanitizeArticle(extracted.html, 'https://example.com/blog/streaming-html'), {
            lang: extracted.lang,
          }),
        },
        {
          itemId: 'broken',
          url: 'https://example.com/broken',
          title: 'Broken markup',
          siteName: null,
          description: null,
          article: article(
            [
              '<p>Para <h1>heading in p</h1> <ul><li>list in p</li></ul> <table><tr><td>table in p</td></tr></table>',
              '<ul>text in list<p>p in list</p><li><h3>heading in item</h3><table><td>cell</td></table></li></ul>',
              '<ol start="-3"><li>negative start</li></ol><li>orphan item</li><figcaption>orphan caption</figcaption>',
              '<table><td colspan="0" rowspan="99999">spans</td><caption>late caption</caption><tr><th scope="x"><h2>h in th</h2></th></tr>text<tfoot><tr><td>foot</td></tr></tfoot><thead><tr><th>head</th></tr></thead></table>',
              '<figure><figcaption>first</figcaption><p>body</p><figcaption>last</figcaption></figure>',
              '<a href="https://a.example/x y|z^[]{}`\\"><p>link around a block</p><a href="https://b.example">inner</a></a>',
              '<a href="http://[::1]:8080/ipv6">v6</a> <a href="https://example.com/%zz%">bad percent</a> <a href="https://example.com/é?q=ü#ß">unicode</a>',
              '<pre>\n  code <b>bold</b>\n</pre><blockquote><h4>q</h4><blockquote>nested</blockquote></blockquote>',
              '<caption>stray</caption><tr><td>stray row</td></tr><thead>stray head</thead>',
              '&nbsp;&copy;&mdash;&#0;&#x1;&#xD800;&#1114111;&notanentity;',
              `${'<em>'.repeat(400)}deep${'</em>'.repeat(400)}`,
              `${'<blockquote>'.repeat(300)}deeper${'</blockquote>'.repeat(300)}`,
            ].join('\n'),
            { lang: 'zz-Xxxx-bogus-tag-toolong' },
          ),
        },
      )
      const bytes = await make(book({ notes: ['A note & <more>'] }), chapters)
      expect(readBook(bytes).toc.length).toBe(chapters.length)
      await expectValid(bytes)
    },
    EPUBCHECK_TIMEOUT_MS,
  )

  test(
    'the XSS corpus as articles: raw (past the sanitizer) and sanitized',
    async () => {
      const chapters: EpubChapter[] = []
      const perChapter = 100
      for (let i = 0; i < XSS_VECTORS.length; i += perChapter) {
        const vectors = XSS_VECTORS.slice(i, i + perChapter)
        const raw = vectors
          .map((vector) => `<section><h3>${vector.name.replace(/</g, '&lt;')}</h3>${vector.html}</section>`)
          .join('\n')
        chapters.push({
          itemId: `raw-${i}`,
          url: 'https://example.com/xss',
          title: `Raw ${i}`,
          siteName: null,
          description: null,
          article: article(raw),
        })
        chapters.push({
          itemId: `clean-${i}`,
          url: 'https://example.com/xss',
          title: `Sanitized ${i}`,
          siteName: null,
          description: null,
          article: article(sanitizeArticle(raw, 'https://example.com/xss')),
        })
      }
      await expectValid(await make(book(), chapters))
    },
    EPUBCHECK_TIMEOUT_MS,
  )

  test(
    'an empty set',
    async () => {
      await expectValid(await make(book({ title: 'Readlater: Deep reads (unread), 2026-11-25' }), []))
    },
    EPUBCHECK_TIMEOUT_MS,
  )

  test(
    'the books the API makes: one item, and the export',
    async () => {
      const h = await createHarness()
      const person = await h.user()
      const key = await person.key()
      const saved = await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://example.com/a?x=1&y=2' } })
      const id = saved.body.savedItem.id
      await h.db.$client.execute({
        sql: "INSERT INTO item_contents (item_id, title, lang, word_count, html, text, extracted_at) VALUES (?, ?, 'en', 3, ?, 'x', ?)",
        args: [
          id,
          HOSTILE_TITLES[0]!,
          `<p>An <em>article</em> &amp; more<br></p><img src="https://cdn.example/x.png" alt="remote">${[1, 2, 3, 4]
            .map((n) => `<img src="${archivedImageUrl(h.config.appUrl, id, n)}" alt="archived ${n}">`)
            .join('')}`,
          saved.body.savedItem.createdAt,
        ],
      })
      // Its archived images, as enrichment stores them (docs/reading.md#archived-images).
      for (const [n, bytes] of [IMAGES.png, IMAGES.jpeg, IMAGES.gif, IMAGES.webp].entries())
        await h.db.$client.execute({
          sql: `INSERT INTO item_images (item_id, n, user_id, original_url, media_type, size, created_at, bytes)
            SELECT id, ?, user_id, 'https://example.com/image', 'image/png', ?, created_at, ? FROM saved_items WHERE id = ?`,
          args: [n + 1, bytes.byteLength, bytes, id],
        })
      await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://example.com/no-article' } })
      const made: Uint8Array[] = []
      for (const path of [`/v1/saved-items/${id}/epub`, '/v1/export?format=epub', '/v1/export?format=epub&state=all']) {
        const response = await h.server.fetch(
          new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${key}` } }),
          { clientIp: '127.0.0.1' },
        )
        expect(response.status).toBe(200)
        made.push(new Uint8Array(await response.arrayBuffer()))
      }
      expect(readBook(made[0]!).manifest.filter((item) => item.mediaType.startsWith('image/')).length).toBe(5)
      await Promise.all(made.map(expectValid))
    },
    EPUBCHECK_TIMEOUT_MS,
  )
})
