import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readConfig } from '../../adapters/config.ts'
import { MAX_PAGE_BYTES } from '../../adapters/enrichment/guarded-fetch.ts'
import { startEnrichment } from '../../adapters/jobs/enrichment-start.ts'
import type { Log } from '../../adapters/app/deps.ts'
import { openDatabase } from '../../adapters/storage/open-database.ts'
import type { PageName } from '../fixtures/pages/read-page.ts'
import { BASE } from '../helpers/harness.ts'
import {
  capture,
  cleanUp,
  enrichmentLogs,
  fetcher,
  htmlPage,
  jobRow,
  mcpItems,
  onCleanUp,
  redirectTo,
  restItem,
  restItems,
  samplePage,
  setup,
  sleep,
  sorted,
  startWorkers,
  waitFor,
  waitForLogs,
  waitForRetry,
  waitForStatus,
} from './enrichment-helpers.ts'

// The enrichment pipeline end to end, in process (docs/enrichment.md): a capture through the API queues a job,
// the workers fetch the page from a local fixture server with the guarded fetch (private addresses
// allowed, as ENRICH_ALLOW_PRIVATE=1 does) and the REST and MCP lists show what the page said. The harness
// clock is moved by hand, so a retry becomes due without waiting for it.

afterEach(cleanUp)

const open = (extra: { timeoutMs?: number } = {}) => fetcher({ allowPrivate: true, ...extra })
const minutes = (n: number) => n * 60_000

describe('a page is read into the item', () => {
  test("an article: every field from the page, the person's tags first, updatedAt moved; REST and MCP show the same", async () => {
    const s = await setup()
    s.fixtures.route('/posts/streaming-html-parser', () => samplePage('article'))
    const captured = await capture(s.h, s.key, `${s.fixtures.origin}/posts/streaming-html-parser`, [
      'security',
      'typescript',
    ])
    expect(captured.enrichmentStatus).toBe('pending')
    expect(await jobRow(s.h.db, captured.id)).toEqual({
      attempts: 0,
      runAfterMs: 0,
      leaseUntilMs: null,
      lastError: null,
    })

    s.h.clock.advance(minutes(1))
    startWorkers(s, open())
    const item = await waitForStatus(s.h, s.key, captured.id, 'enriched')

    const origin = s.fixtures.origin
    expect(item).toEqual({
      ...captured,
      title: 'Parsing HTML as it streams, in TypeScript',
      description: 'How we read a page’s title, icons & summary from its first kilobytes, without building a DOM.',
      siteName: 'Example Engineering',
      faviconUrl: `${origin}/icons/favicon-light.png`,
      faviconLightUrl: `${origin}/icons/favicon-light.png`,
      faviconDarkUrl: `${origin}/icons/favicon-dark.png`,
      imageUrl: `${origin}/images/streaming-cover.png`,
      canonicalUrl: 'https://blog.example.com/posts/streaming-html-parser?utm_source=rss&utm_medium=feed',
      previewSummary:
        'When someone saves a link, we want its title, icon and a short preview within a second. Waiting for the whole ' +
        'document is wasteful: most of what we need sits in the <head>, and the first paragraphs of the body. So the ' +
        'extractor reads the response as it arrives, feeds each chunk to a streaming…',
      type: 'article',
      // The person's own tags stay first; the classifier's "typescript" is not repeated.
      tags: ['security', 'typescript', 'front-end'],
      enrichmentStatus: 'enriched',
      updatedAt: '2026-11-22T10:01:00.000Z',
    })
    expect(item.updatedAt > item.createdAt).toBe(true)
    expect(await mcpItems(s.h, s.key)).toEqual(await restItems(s.h, s.key))
    expect(await jobRow(s.h.db, captured.id)).toBeNull()
    expect(s.fixtures.requests).toEqual(['/posts/streaming-html-parser'])
    expect(await waitForLogs(s.h, captured.id, 1)).toEqual([
      expect.objectContaining({
        level: 'info',
        host: `127.0.0.1:${s.fixtures.port}`,
        outcome: 'enriched',
        attempts: 1,
        redirects: 0,
        truncated: false,
      }),
    ])
  })

  // Expected fields per sample page, as test/core/enrichment/extract-page.fixtures.test.ts has them, with
  // relative links resolved against the fixture server.
  const pages: readonly [name: PageName, path: string, expected: (origin: string) => Record<string, unknown>][] = [
    [
      'video',
      '/talks/rust-for-typescript-developers',
      (origin) => ({
        title: 'Rust for TypeScript developers',
        description: 'A 40-minute conference talk about moving from TypeScript to Rust, with live-coded examples.',
        siteName: 'Example Media',
        faviconUrl: `${origin}/favicon.ico?v=3`,
        faviconLightUrl: null,
        faviconDarkUrl: null,
        imageUrl: 'https://media.example.net/thumbs/8842/maxres.jpg',
        canonicalUrl: 'https://media.example.net/talks/rust-for-typescript-developers',
        previewSummary:
          'Ownership, borrowing and enums explained for people who already think in types. The talk ports a small CLI ' +
          'from TypeScript to Rust and compares the two step by step.',
        type: 'video',
        tags: ['typescript'],
      }),
    ],
    [
      'repository',
      '/tools/htmlkit',
      (origin) => ({
        title: 'tools/htmlkit',
        description: 'A tiny streaming HTML toolkit: tokenizer, metadata extractor and sanitizer.',
        siteName: 'Example Git',
        faviconUrl: `${origin}/assets/img/logo.svg`,
        faviconLightUrl: null,
        faviconDarkUrl: null,
        imageUrl: 'https://git.example.org/tools/htmlkit/-/raw/main/.assets/social-card.png',
        canonicalUrl: 'https://git.example.org/tools/htmlkit',
        previewSummary:
          'A tiny streaming HTML toolkit for servers and edge runtimes. It tokenizes HTML as bytes arrive, extracts page ' +
          'metadata and sanitizes untrusted markup. Install npm install htmlkit',
        type: 'repository',
        tags: ['tools', 'front-end'],
      }),
    ],
    [
      'title-only',
      '/http-caching',
      (origin) => ({
        title: 'Notes on HTTP caching',
        description: null,
        siteName: null,
        faviconUrl: `${origin}/favicon.ico`,
        faviconLightUrl: null,
        faviconDarkUrl: null,
        imageUrl: null,
        canonicalUrl: null,
        previewSummary:
          'Cache-Control decides who may store a response and for how long. Start with max-age, add ' +
          'stale-while-revalidate once you know your traffic.',
        type: 'website',
        tags: [],
      }),
    ],
    [
      'relative-urls',
      '/guide/getting-started/index.html',
      (origin) => ({
        title: 'Getting started · Widget Docs',
        description: 'Install the widget, configure it, and render your first chart.',
        siteName: 'Widget Docs',
        // Resolved against the page's <base href="/static/v2/">, and absolute in the item.
        faviconUrl: `${origin}/static/v2/icons/favicon.svg`,
        faviconLightUrl: null,
        faviconDarkUrl: `${origin}/static/v2/icons/favicon-dark.svg`,
        imageUrl: `${origin}/static/v2/img/cover.png`,
        canonicalUrl: `${origin}/guide/getting-started/`,
        previewSummary:
          'Install the package, import the widget and mount it on an element. The next pages cover themes and data sources.',
        type: 'website',
        tags: [],
      }),
    ],
    [
      'latin1',
      '/ueber-uns',
      (origin) => ({
        // windows-1252 bytes declared only by <meta charset="iso-8859-1">: the dashes and quotes come out right.
        title: 'Über uns – Café „Zur Mühle“',
        description: 'Familienbetrieb seit 1952: Kaffee, Kuchen und Frühstück in der Altstadt.',
        siteName: 'Café Zur Mühle',
        faviconUrl: `${origin}/favicon.ico`,
        faviconLightUrl: null,
        faviconDarkUrl: null,
        imageUrl: null,
        canonicalUrl: null,
        previewSummary:
          'Seit 1952 backen wir jeden Morgen frische Brötchen. Unsere Gäste schätzen die ruhige Lage an der Brücke und ' +
          'den großen Garten – im Sommer gibt’s dort „Kaffee & Kuchen“ für 4,50 €.',
        type: 'website',
        tags: [],
      }),
    ],
  ]

  test.each(pages)('the %s page: every field as the page says', async (name, path, expected) => {
    const s = await setup()
    s.fixtures.route(path, () => samplePage(name))
    const captured = await capture(s.h, s.key, `${s.fixtures.origin}${path}`)
    startWorkers(s, open())
    const item = await waitForStatus(s.h, s.key, captured.id, 'enriched')
    expect(item).toEqual({ ...captured, ...expected(s.fixtures.origin), enrichmentStatus: 'enriched' })
    expect(s.fixtures.requests).toEqual([path])
  })

  test('light and dark icons: both kept, absolute, and a plain icon is the default favicon', async () => {
    const s = await setup()
    s.fixtures.route('/app/settings', () =>
      htmlPage(`<!doctype html><html><head><title>Settings</title>
      <link rel="icon" media="(prefers-color-scheme: dark)" href="/themes/dark.svg">
      <link rel="icon" href="icons/plain.png">
      <link rel="icon" media="(prefers-color-scheme:light)" href="https://cdn.example.com/light.svg">
      </head><body><p>Settings page.</p></body></html>`),
    )
    const captured = await capture(s.h, s.key, `${s.fixtures.origin}/app/settings`)
    startWorkers(s, open())
    const item = await waitForStatus(s.h, s.key, captured.id, 'enriched')
    expect({
      faviconUrl: item.faviconUrl,
      faviconLightUrl: item.faviconLightUrl,
      faviconDarkUrl: item.faviconDarkUrl,
    }).toEqual({
      faviconUrl: `${s.fixtures.origin}/app/icons/plain.png`,
      faviconLightUrl: 'https://cdn.example.com/light.svg',
      faviconDarkUrl: `${s.fixtures.origin}/themes/dark.svg`,
    })
  })

  test('a 5 MiB page: enriched from its head, in one request, reading no more than 2 MiB', async () => {
    const s = await setup()
    const head = `<!doctype html><html><head><meta charset="utf-8"><title>A very long page</title>
      <meta property="og:title" content="The longest page on the web">
      <meta property="og:description" content="Five mebibytes of paragraphs.">
      <meta property="og:site_name" content="Long Reads">
      <meta property="og:image" content="/cover.jpg">
      </head><body>`
    const paragraphs: string[] = []
    let size = head.length
    for (let n = 1; size < 5 * 1024 * 1024; n++) {
      const paragraph = `<p>Paragraph number ${n} of the long page, which goes on and on about nothing in particular.</p>\n`
      paragraphs.push(paragraph)
      size += paragraph.length
    }
    const body = new TextEncoder().encode(`${head}${paragraphs.join('')}</body></html>`)
    expect(body.byteLength).toBeGreaterThanOrEqual(5 * 1024 * 1024)
    s.fixtures.route('/long', () => htmlPage(body))

    const captured = await capture(s.h, s.key, `${s.fixtures.origin}/long`)
    startWorkers(s, open())
    const item = await waitForStatus(s.h, s.key, captured.id, 'enriched')
    expect(item).toMatchObject({
      title: 'The longest page on the web',
      description: 'Five mebibytes of paragraphs.',
      siteName: 'Long Reads',
      imageUrl: `${s.fixtures.origin}/cover.jpg`,
      type: 'website',
    })
    expect(item.previewSummary).toStartWith('Paragraph number 1 of the long page')
    expect(item.previewSummary.length).toBeLessThanOrEqual(300)
    expect(s.fixtures.requests).toEqual(['/long'])
    expect(await waitForLogs(s.h, captured.id, 1)).toEqual([
      expect.objectContaining({ outcome: 'enriched', bytes: MAX_PAGE_BYTES, truncated: true }),
    ])
  })

  test('a PDF: enriched without parsing the body; title from the file name, type from the URL', async () => {
    const s = await setup()
    // Markup inside the PDF bytes: had the body been parsed, title and type would come from it.
    const pdf = new TextEncoder().encode(
      '%PDF-1.7\n<html><head><title>Parsed by mistake</title><meta property="og:type" content="video.other">' +
        '<meta name="description" content="Read from the body"></head></html>\n%%EOF\n',
    )
    const servePdf = () => new Response(pdf, { headers: { 'content-type': 'application/pdf' } })
    s.fixtures.route('/files/Quarterly%20Report.pdf', servePdf)
    s.fixtures.route('/acme/widgets/raw/main/Quarterly%20Report.pdf', servePdf)
    // github.com "resolves" to a public address that is routed to the fixture server.
    startWorkers(
      s,
      fetcher({
        allowPrivate: true,
        lookup: async () => ['93.184.216.34'],
        fetchAddress: (url, _address, init) => fetch(`${s.fixtures.origin}${url.pathname}${url.search}`, init),
      }),
    )
    const local = await capture(s.h, s.key, `${s.fixtures.origin}/files/Quarterly%20Report.pdf`, ['backend'])
    const forge = await capture(s.h, s.key, 'http://github.com/acme/widgets/raw/main/Quarterly%20Report.pdf')

    const pdfFields = {
      description: null,
      siteName: null,
      faviconLightUrl: null,
      faviconDarkUrl: null,
      imageUrl: null,
      canonicalUrl: null,
      previewSummary: null,
    }
    expect(await waitForStatus(s.h, s.key, local.id, 'enriched')).toEqual({
      ...local,
      ...pdfFields,
      enrichmentStatus: 'enriched',
      title: 'Quarterly Report.pdf',
      faviconUrl: `${s.fixtures.origin}/favicon.ico`,
      type: 'website',
      tags: ['backend'],
    })
    expect(await waitForStatus(s.h, s.key, forge.id, 'enriched')).toEqual({
      ...forge,
      ...pdfFields,
      enrichmentStatus: 'enriched',
      title: 'Quarterly Report.pdf',
      faviconUrl: 'http://github.com/favicon.ico',
      type: 'repository',
      tags: [],
    })
    expect(await waitForLogs(s.h, local.id, 1)).toEqual([expect.objectContaining({ outcome: 'enriched', bytes: 0 })])
    expect(sorted(s.fixtures.requests)).toEqual([
      '/acme/widgets/raw/main/Quarterly%20Report.pdf',
      '/files/Quarterly%20Report.pdf',
    ])
  })
})

describe('failures: retried when it may help, failed when it cannot', () => {
  test('a page whose headers take 3 s, fetched with a 300 ms timeout: retried after 5 s and 10 s, then failed', async () => {
    const s = await setup()
    s.fixtures.route('/slow', async () => {
      await sleep(3000)
      return htmlPage('<title>Too late</title>')
    })
    const captured = await capture(s.h, s.key, `${s.fixtures.origin}/slow`)
    const start = s.h.clock.now().getTime()
    startWorkers(s, open({ timeoutMs: 300 }))

    const first = await waitForRetry(s.h.db, captured.id, 1)
    expect(first.runAfterMs).toBe(start + 5_000)
    expect(first.lastError).toBe('FetchFailedError: Timed out fetching 127.0.0.1')
    expect((await restItem(s.h, s.key, captured.id)).enrichmentStatus).toBe('pending')
    expect(await waitForLogs(s.h, captured.id, 1)).toEqual([
      expect.objectContaining({
        level: 'info',
        outcome: 'retry',
        attempts: 1,
        reason: 'FetchFailedError: Timed out fetching 127.0.0.1',
      }),
    ])

    s.h.clock.advance(5_000)
    const second = await waitForRetry(s.h.db, captured.id, 2)
    expect(second.runAfterMs).toBe(start + 5_000 + 10_000)

    s.h.clock.advance(10_000)
    const failed = await waitForStatus(s.h, s.key, captured.id, 'failed')
    expect(failed.updatedAt).toBe(new Date(start + 15_000).toISOString())
    expect(await jobRow(s.h.db, captured.id)).toBeNull()
    expect((await waitForLogs(s.h, captured.id, 3)).map((line) => [line.outcome, line.attempts])).toEqual([
      ['retry', 1],
      ['retry', 2],
      ['failed', 3],
    ])
    expect(s.fixtures.count('/slow')).toBe(3)
  })

  test('a page answering 500: three requests, 5 s and 10 s apart on the clock, then failed', async () => {
    const s = await setup()
    s.fixtures.route('/broken', () => htmlPage('<title>Oops</title>', 500))
    const captured = await capture(s.h, s.key, `${s.fixtures.origin}/broken`)
    startWorkers(s, open())

    expect((await waitForRetry(s.h.db, captured.id, 1)).lastError).toBe('FetchFailedError: 127.0.0.1 answered HTTP 500')
    expect(s.fixtures.count('/broken')).toBe(1)
    s.h.clock.advance(5_000)
    await waitForRetry(s.h.db, captured.id, 2)
    expect(s.fixtures.count('/broken')).toBe(2)
    s.h.clock.advance(10_000)
    await waitForStatus(s.h, s.key, captured.id, 'failed')
    expect(s.fixtures.requests).toEqual(['/broken', '/broken', '/broken'])
    expect(await jobRow(s.h.db, captured.id)).toBeNull()
    expect((await waitForLogs(s.h, captured.id, 3)).at(-1)).toMatchObject({
      level: 'warn',
      outcome: 'failed',
      attempts: 3,
      reason: 'FetchFailedError: 127.0.0.1 answered HTTP 500',
    })
  })

  test('a retry that is not due yet is not run early', async () => {
    const s = await setup()
    s.fixtures.route('/broken', () => htmlPage('<title>Oops</title>', 500))
    s.fixtures.route('/fine', () => samplePage('title-only'))
    const broken = await capture(s.h, s.key, `${s.fixtures.origin}/broken`)
    startWorkers(s, open())
    await waitForRetry(s.h.db, broken.id, 1)
    // 4.999 s later: not due. A later capture is enriched meanwhile, so the workers were polling.
    s.h.clock.advance(4_999)
    const fine = await capture(s.h, s.key, `${s.fixtures.origin}/fine`)
    await waitForStatus(s.h, s.key, fine.id, 'enriched')
    expect(s.fixtures.count('/broken')).toBe(1)
    expect((await jobRow(s.h.db, broken.id))?.attempts).toBe(1)
  })

  test('a chain of 6 redirects: failed after one attempt, the 7th URL never requested; 5 redirects are followed', async () => {
    const s = await setup()
    for (let n = 1; n <= 6; n++) s.fixtures.route(`/six/${n}`, () => redirectTo(`/six/${n + 1}`))
    s.fixtures.route('/six/7', () => samplePage('title-only'))
    for (let n = 1; n <= 5; n++)
      s.fixtures.route(`/five/${n}`, () => redirectTo(`${s.fixtures.origin}/five/${n + 1}`, 301))
    s.fixtures.route('/five/6', () => samplePage('title-only'))

    const six = await capture(s.h, s.key, `${s.fixtures.origin}/six/1`)
    const five = await capture(s.h, s.key, `${s.fixtures.origin}/five/1`)
    startWorkers(s, open())

    await waitForStatus(s.h, s.key, six.id, 'failed')
    expect(await jobRow(s.h.db, six.id)).toBeNull()
    expect(s.fixtures.requests.filter((path) => path.startsWith('/six/'))).toEqual([
      '/six/1',
      '/six/2',
      '/six/3',
      '/six/4',
      '/six/5',
      '/six/6',
    ])
    expect(await waitForLogs(s.h, six.id, 1)).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        attempts: 1,
        reason: 'FetchRefusedError: Refused 127.0.0.1: more than 5 redirects',
      }),
    ])

    const followed = await waitForStatus(s.h, s.key, five.id, 'enriched')
    expect(followed.title).toBe('Notes on HTTP caching')
    // Links resolve against the page the redirects ended on.
    expect(followed.faviconUrl).toBe(`${s.fixtures.origin}/favicon.ico`)
    expect(await waitForLogs(s.h, five.id, 1)).toEqual([expect.objectContaining({ outcome: 'enriched', redirects: 5 })])
  })

  test('a recapture of a failed item queues it again, and with the page fixed it ends enriched', async () => {
    const s = await setup()
    let fixed = false
    s.fixtures.route('/flaky', () => (fixed ? samplePage('title-only') : htmlPage('<title>Not found</title>', 404)))
    const url = `${s.fixtures.origin}/flaky`
    const captured = await capture(s.h, s.key, url, ['tools'])
    const workers = startWorkers(s, open())
    await waitForStatus(s.h, s.key, captured.id, 'failed')
    // A 404 is permanent: one attempt.
    expect(await waitForLogs(s.h, captured.id, 1)).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        attempts: 1,
        reason: 'FetchRefusedError: 127.0.0.1 answered HTTP 404',
      }),
    ])
    expect(await jobRow(s.h.db, captured.id)).toBeNull()
    // Stopped so the queue row can be seen before anyone claims it.
    await workers.stop()

    fixed = true
    s.h.clock.advance(minutes(1))
    const recaptured = await s.h.call('POST', '/v1/captures', { token: s.key, body: { url, tags: ['design'] } })
    expect(recaptured.status).toBe(200)
    expect(recaptured.body.savedItem).toMatchObject({
      id: captured.id,
      enrichmentStatus: 'pending',
      tags: ['tools', 'design'],
    })
    expect(await jobRow(s.h.db, captured.id)).toEqual({
      attempts: 0,
      runAfterMs: 0,
      leaseUntilMs: null,
      lastError: null,
    })

    startWorkers(s, open())
    const item = await waitForStatus(s.h, s.key, captured.id, 'enriched')
    expect(item).toMatchObject({ title: 'Notes on HTTP caching', tags: ['tools', 'design'] })
    expect(s.fixtures.count('/flaky')).toBe(2)
    expect(await jobRow(s.h.db, captured.id)).toBeNull()
  })

  test('a recapture of an enriched item queues nothing', async () => {
    const s = await setup()
    s.fixtures.route('/done', () => samplePage('title-only'))
    const url = `${s.fixtures.origin}/done`
    const captured = await capture(s.h, s.key, url)
    const workers = startWorkers(s, open())
    await waitForStatus(s.h, s.key, captured.id, 'enriched')
    await workers.stop()
    const again = await capture(s.h, s.key, url)
    expect(again).toMatchObject({ id: captured.id, enrichmentStatus: 'enriched', title: 'Notes on HTTP caching' })
    expect(await jobRow(s.h.db, captured.id)).toBeNull()
  })

  test('deleting an item while its job waits for a retry drops the job', async () => {
    const s = await setup()
    s.fixtures.route('/gone', () => htmlPage('<title>Oops</title>', 503))
    s.fixtures.route('/marker', () => samplePage('title-only'))
    const captured = await capture(s.h, s.key, `${s.fixtures.origin}/gone`)
    const workers = startWorkers(s, open())
    await waitForRetry(s.h.db, captured.id, 1)

    expect((await s.h.call('DELETE', `/v1/saved-items/${captured.id}`, { token: s.key })).status).toBe(204)
    expect(await jobRow(s.h.db, captured.id)).toBeNull()

    // The retry would be due now. A later capture gets enriched; by the time the workers have stopped,
    // any job claimed alongside it has run, and none asked for /gone again.
    s.h.clock.advance(minutes(1))
    const marker = await capture(s.h, s.key, `${s.fixtures.origin}/marker`)
    await waitForStatus(s.h, s.key, marker.id, 'enriched')
    await workers.stop()
    expect(s.fixtures.count('/gone')).toBe(1)
    expect(enrichmentLogs(s.h, captured.id)).toHaveLength(1)
  })
})

describe('several worker sets on one database', () => {
  test('two sets of workers on one file never fetch the same page twice (30 items)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readlater-enrichment-'))
    onCleanUp(() => rmSync(dir, { recursive: true, force: true }))
    const dbUrl = `file:${join(dir, 'db.sqlite')}`
    const s = await setup({ dbUrl })
    onCleanUp(() => s.h.db.$client.close())
    const other = await openDatabase(dbUrl)
    onCleanUp(() => other.$client.close())

    const ids: string[] = []
    for (let n = 0; n < 30; n++) {
      // A short wait per page keeps each set busy, so the other one claims jobs too.
      s.fixtures.route(`/story/${n}`, async () => {
        await sleep(20)
        return htmlPage(`<!doctype html><title>Story ${n}</title><p>Story number ${n}.</p>`)
      })
      ids.push((await capture(s.h, s.key, `${s.fixtures.origin}/story/${n}`)).id)
    }
    const linesA: Record<string, unknown>[] = []
    const linesB: Record<string, unknown>[] = []
    const logTo =
      (lines: Record<string, unknown>[]): Log =>
      (level, fields) =>
        void lines.push({ level, ...fields })
    startWorkers(s, open(), { log: logTo(linesA), concurrency: 2 })
    startWorkers(s, open(), { db: other, log: logTo(linesB), concurrency: 2 })

    await waitFor(
      'all 30 items enriched',
      async () => {
        const items = await restItems(s.h, s.key)
        return items.filter((item) => item.enrichmentStatus === 'enriched').length === 30 ? items : null
      },
      60_000,
    )
    const items = await restItems(s.h, s.key)
    for (const [n, id] of ids.entries()) expect(items.find((item) => item.id === id)?.title).toBe(`Story ${n}`)

    expect(sorted(s.fixtures.requests)).toEqual(sorted(Array.from({ length: 30 }, (_, n) => `/story/${n}`)))
    const enrichedBy = (lines: Record<string, unknown>[]) =>
      lines.filter((line) => line.outcome === 'enriched').map((line) => line.itemId as string)
    // Each line is written just after its result is stored.
    await waitFor('30 log lines', () => (enrichedBy(linesA).length + enrichedBy(linesB).length >= 30 ? true : null))
    const a = enrichedBy(linesA)
    const b = enrichedBy(linesB)
    expect(sorted([...a, ...b])).toEqual(sorted(ids))
    expect(a.length).toBeGreaterThan(0)
    expect(b.length).toBeGreaterThan(0)
    expect([...linesA, ...linesB].filter((line) => line.outcome !== 'enriched')).toEqual([])
  }, 90_000)
})

describe('startEnrichment() follows the configuration', () => {
  const loud =
    'ENRICH_ALLOW_PRIVATE=1: enrichment may fetch loopback and private addresses. For tests only; never in production.'

  test('ENRICHMENT=off: no workers, and a line saying items stay pending', async () => {
    const s = await setup()
    const workers = startEnrichment({
      db: s.h.db,
      config: readConfig({ BASE_URL: BASE, ENRICHMENT: 'off', ENRICH_ALLOW_PRIVATE: '1' }),
      clock: s.h.clock,
      log: s.log,
    })
    expect(workers).toBeNull()
    expect(s.h.logs).toEqual([{ level: 'info', msg: 'enrichment off (ENRICHMENT=off): saved items stay pending' }])
  })

  test('ENRICH_ALLOW_PRIVATE=1: a warning, and a loopback page is fetched', async () => {
    const s = await setup()
    s.fixtures.route('/local', () => samplePage('title-only'))
    const workers = startEnrichment({
      db: s.h.db,
      config: readConfig({ BASE_URL: BASE, ENRICH_ALLOW_PRIVATE: '1' }),
      clock: s.h.clock,
      log: s.log,
    })
    expect(workers).not.toBeNull()
    onCleanUp(() => workers?.stop())
    expect(s.h.logs).toContainEqual({ level: 'warn', msg: loud })
    const captured = await capture(s.h, s.key, `${s.fixtures.origin}/local`)
    expect(await waitForStatus(s.h, s.key, captured.id, 'enriched')).toMatchObject({ title: 'Notes on HTTP caching' })
    expect(s.fixtures.requests).toEqual(['/local'])
  })

  test('by default: no warning, and a loopback page is refused without a request', async () => {
    const s = await setup()
    s.fixtures.route('/local', () => samplePage('title-only'))
    const workers = startEnrichment({
      db: s.h.db,
      config: readConfig({ BASE_URL: BASE }),
      clock: s.h.clock,
      log: s.log,
    })
    expect(workers).not.toBeNull()
    onCleanUp(() => workers?.stop())
    expect(s.h.logs.filter((line) => line.msg === loud)).toEqual([])
    const captured = await capture(s.h, s.key, `${s.fixtures.origin}/local`)
    await waitForStatus(s.h, s.key, captured.id, 'failed')
    expect(s.fixtures.requests).toEqual([])
  })
})
