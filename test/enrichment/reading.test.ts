import { afterEach, describe, expect, test } from 'bun:test'
import { gzipSync } from 'node:zlib'
import { ExtractionTimeoutError } from '../../adapters/reading/article-threads.ts'
import { claimEnrichmentJob } from '../../adapters/storage/enrichment-jobs.ts'
import { readPage } from '../fixtures/pages/read-page.ts'
import { countRows } from '../helpers/harness.ts'
import {
  capture,
  cleanUp,
  fetcher,
  htmlPage,
  jobRow,
  onCleanUp,
  samplePage,
  setup,
  startWorkers,
  waitFor,
  waitForStatus,
} from './enrichment-helpers.ts'
import { startEnrichmentWorkers } from '../../adapters/jobs/enrichment-worker.ts'

// The article side of enrichment (docs/reading.md): hostile pages end as an item without an article, in
// time, and leave the worker free; a thread that gives up leaves the metadata; live work goes before the
// backfill; a page sent while a fetch of the same item is in flight is not lost.

afterEach(cleanUp)

const ARTICLE = new TextDecoder().decode(readPage('article'))
const open = () => fetcher({ allowPrivate: true })

async function contentStatus(s: Awaited<ReturnType<typeof setup>>, id: string): Promise<number> {
  return (await s.h.call('GET', `/v1/saved-items/${id}/content`, { token: s.key })).status
}

describe('hostile pages end without an article, in time, and the worker goes on', () => {
  const deep = `<html><head><title>Deep</title></head><body>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}</body></html>`
  const oneElement = `<html><head><title>One element</title></head><body><p>${'x'.repeat(5 * 1024 * 1024)}</p></body></html>`
  // Lone continuation bytes, an overlong encoding, a truncated sequence and a surrogate encoded in UTF-8.
  const invalidUtf8 = new Uint8Array([
    ...new TextEncoder().encode('<html><head><title>Broken \u00e9</title></head><body><article><p>'),
    0x80,
    0xbf,
    0xc0,
    0xaf,
    0xe2,
    0x82,
    0xed,
    0xa0,
    0x80,
    0xff,
    0xfe,
    ...new TextEncoder().encode(` ${'Readable words after the broken bytes. '.repeat(40)}</p></article></body></html>`),
  ])
  // 64 MiB of zeros, sent as about 64 KiB of gzip: the reader stops at 2 MiB of decoded body.
  const bomb = gzipSync(new Uint8Array(64 * 1024 * 1024))

  test.each([
    ['100,000 levels of nesting', () => htmlPage(deep), 'Deep', false],
    ['5 MiB of one element', () => htmlPage(oneElement), 'One element', true],
    ['invalid UTF-8', () => htmlPage(invalidUtf8), 'Broken \u00e9', true],
    [
      'a gzip bomb',
      () => new Response(bomb, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' } }),
      null,
      false,
    ],
  ] as const)(
    '%s',
    async (_, respond, title, hasArticle) => {
      const s = await setup()
      s.fixtures.route('/hostile', respond)
      s.fixtures.route('/after', () => samplePage('article'))
      startWorkers(s, open(), { concurrency: 1 })
      const hostile = await capture(s.h, s.key, `${s.fixtures.origin}/hostile`)
      const done = await waitFor(
        'the hostile page to be settled',
        async () => {
          const status = (await s.h.call('GET', '/v1/saved-items', { token: s.key })).body.savedItems[0]
          return status.enrichmentStatus === 'pending' ? null : status
        },
        30_000,
      )
      expect(['enriched', 'failed']).toContain(done.enrichmentStatus)
      if (title !== null) expect(done.title).toBe(title)
      expect(await contentStatus(s, hostile.id)).toBe(hasArticle ? 200 : 404)
      if (hasArticle) {
        const content = (await s.h.call('GET', `/v1/saved-items/${hostile.id}/content`, { token: s.key })).body
        expect(new TextEncoder().encode(content.html).byteLength).toBeLessThanOrEqual(1024 * 1024)
        expect(content.html).not.toContain('\u0000')
      }
      // The same worker takes the next job: it is not stuck.
      const after = await capture(s.h, s.key, `${s.fixtures.origin}/after`)
      await waitForStatus(s.h, s.key, after.id, 'enriched')
      expect(await contentStatus(s, after.id)).toBe(200)
    },
    60_000,
  )
})

test('an extraction thread that gives up: the item keeps the metadata, has no article, and the log says why', async () => {
  const s = await setup()
  s.fixtures.route('/slow', () => samplePage('article'))
  const workers = startEnrichmentWorkers(
    {
      db: s.h.db,
      clock: s.h.clock,
      log: s.log,
      fetchPage: open(),
      extract: async () => {
        throw new ExtractionTimeoutError('extraction ran past its time budget')
      },
    },
    { concurrency: 1, pollMs: 10 },
  )
  onCleanUp(() => workers.stop())
  const item = await capture(s.h, s.key, `${s.fixtures.origin}/slow`)
  const enriched = await waitForStatus(s.h, s.key, item.id, 'enriched')
  expect(enriched.title).toBe('Parsing HTML as it streams, in TypeScript')
  expect(enriched.siteName).toBe('Example Engineering')
  expect(await contentStatus(s, item.id)).toBe(404)
  // The log line follows the stored result (the worker yields between its writes).
  const log = await waitFor('the enrichment log line', () =>
    s.h.logs.find((entry) => entry.msg === 'enrichment' && entry.itemId === item.id),
  )
  expect(log).toMatchObject({
    outcome: 'enriched',
    source: 'fetch',
    articleWords: null,
    extraction: 'ExtractionTimeoutError',
  })
})

test('a page sent while a fetch of the same item is in flight is read after it: the new job is not dropped', async () => {
  const s = await setup()
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let fetching!: () => void
  const started = new Promise<void>((resolve) => (fetching = resolve))
  s.fixtures.route('/post', async () => {
    fetching()
    await released
    return htmlPage('<html><head><title>Fetched version</title></head><body><p>short</p></body></html>')
  })
  startWorkers(s, open(), { concurrency: 1 })
  const url = `${s.fixtures.origin}/post`
  const item = await capture(s.h, s.key, url)
  await started
  // The fetch is in flight (its job leased); the person's browser now sends the page.
  s.h.clock.advance(1000)
  const again = await s.h.call('POST', '/v1/captures', { token: s.key, body: { url, html: ARTICLE } })
  expect(again.status).toBe(200)
  expect(await jobRow(s.h.db, item.id)).toMatchObject({ attempts: 0, leaseUntilMs: null })
  release()
  const content = await waitFor('the sent page to be read', async () => {
    const reply = await s.h.call('GET', `/v1/saved-items/${item.id}/content`, { token: s.key })
    // The fetch that was in flight may store its own (shorter) article first; the page replaces it.
    return reply.status === 200 && reply.body.byline === 'Ada Example' ? reply.body : null
  })
  expect(content.title).toBe('Parsing HTML as it streams, in TypeScript')
  expect(s.fixtures.count('/post')).toBe(1)
  await waitFor('the job to be done', async () => ((await countRows(s.h.db, 'enrichment_jobs')) === 0 ? true : null))
  expect(await countRows(s.h.db, 'captured_pages')).toBe(0)
})

describe('backfill', () => {
  test('a worker takes every due live job before a backfill job, whatever their age', async () => {
    const s = await setup()
    const old = await capture(s.h, s.key, 'https://example.com/old')
    // As the migration queues it: an enriched item, priority 1.
    await s.h.db.$client.execute({
      sql: "UPDATE saved_items SET enrichment_status = 'enriched' WHERE id = ?",
      args: [old.id],
    })
    await s.h.db.$client.execute({ sql: 'UPDATE enrichment_jobs SET priority = 1 WHERE item_id = ?', args: [old.id] })
    s.h.clock.advance(60_000)
    const live = await capture(s.h, s.key, 'https://example.com/live')
    const now = s.h.clock.now().getTime()
    expect((await claimEnrichmentJob(s.h.db, now, now + 1000))?.itemId).toBe(live.id)
    expect((await claimEnrichmentJob(s.h.db, now, now + 1000))?.itemId).toBe(old.id)
    expect(await claimEnrichmentJob(s.h.db, now, now + 1000)).toBeNull()
  })

  test('a failed backfill leaves the item enriched, with its metadata', async () => {
    const s = await setup()
    s.fixtures.route('/gone', () => new Response('gone', { status: 404 }))
    const item = await capture(s.h, s.key, `${s.fixtures.origin}/gone`)
    await s.h.db.$client.execute({
      sql: "UPDATE saved_items SET enrichment_status = 'enriched', title = 'Kept title' WHERE id = ?",
      args: [item.id],
    })
    await s.h.db.$client.execute({ sql: 'UPDATE enrichment_jobs SET priority = 1 WHERE item_id = ?', args: [item.id] })
    startWorkers(s, open(), { concurrency: 1 })
    await waitFor('the backfill to give up', async () =>
      (await countRows(s.h.db, 'enrichment_jobs')) === 0 ? true : null,
    )
    const after = (await s.h.call('GET', '/v1/saved-items', { token: s.key })).body.savedItems[0]
    expect(after.enrichmentStatus).toBe('enriched')
    expect(after.title).toBe('Kept title')
  })
})

test('an item whose attempts ran out is failed, and the page sent with it is dropped too', async () => {
  const s = await setup()
  const reply = await s.h.call('POST', '/v1/captures', {
    token: s.key,
    body: { url: 'https://example.com/crashed', html: ARTICLE },
  })
  const id = reply.body.savedItem.id
  // As if three runs had each died mid-job (attempts are counted when claimed).
  await s.h.db.$client.execute({ sql: 'UPDATE enrichment_jobs SET attempts = 3 WHERE item_id = ?', args: [id] })
  expect(await countRows(s.h.db, 'captured_pages')).toBe(1)
  startWorkers(s, open(), { concurrency: 1 })
  await waitForStatus(s.h, s.key, id, 'failed')
  expect(await countRows(s.h.db, 'captured_pages')).toBe(0)
  expect(await countRows(s.h.db, 'enrichment_jobs')).toBe(0)
})
