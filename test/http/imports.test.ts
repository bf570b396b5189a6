import { describe, expect, test } from 'bun:test'
import { startImportWorker } from '../../adapters/jobs/import-worker.ts'
import { claimEnrichmentJob } from '../../adapters/storage/enrichment-jobs.ts'
import { claimImport, writeImportBatch } from '../../adapters/storage/imports.ts'
import { createHarness, random, type Harness } from '../helpers/harness.ts'
import { craftZip } from '../fixtures/import/read-fixture.ts'
import { deflateSync } from 'fflate'
import { crc32 } from '../../core/import/zip.ts'

// docs/import-export.md: POST /v1/imports reads the file at once (a bad file is refused, nothing written),
// a job writes its entries in batches with their history, GET reads it back; GET /v1/export streams it out.

const POCKET = [
  'title,url,time_added,tags,status',
  'Rust memory safety,https://example.com/rust?utm_source=x,1700000000,ai|Frontend|cooking,unread',
  '"Quoted, title ""with"" quotes",https://example.org/quoted,1600000000,,archive',
  'No URL here,not a url,1600000000,,unread',
  'Second,https://example.net/second,1650000000,backend,unread',
].join('\n')

interface World {
  h: Harness
  key: string
  userId: string
  upload(body: BodyInit, type: string, query?: string, token?: string): ReturnType<Harness['call']>
  run(): Promise<void>
  job(id: string, token?: string): Promise<any>
  items(): Promise<any[]>
}

async function world(h?: Harness): Promise<World> {
  const harness = h ?? (await createHarness())
  const user = await harness.user()
  const key = await user.key()
  const deps = { db: harness.db, clock: harness.clock, random, log: () => {} }
  return {
    h: harness,
    key,
    userId: user.id,
    upload: (body, type, query = '', token = key) =>
      harness.call('POST', `/v1/imports${query}`, { token, raw: body, headers: { 'content-type': type } }),
    run: () => startImportWorker(deps, { batchSize: 2, pollMs: 10, leaseMs: 10_000 }, false).drain(),
    async job(id, token = key) {
      return (await harness.call('GET', `/v1/imports/${id}`, { token })).body.import
    },
    async items() {
      return (await harness.call('GET', '/v1/saved-items?sort=oldest', { token: key })).body.savedItems
    },
  }
}

describe('POST /v1/imports', () => {
  test('a Pocket CSV: 202 with the queued job and its Location; the job keeps saved times, read state and tags', async () => {
    const w = await world()
    const reply = await w.upload(POCKET, 'text/csv')
    expect(reply.status).toBe(202)
    const queued = reply.body.import
    expect(reply.headers.get('location')).toBe(`/v1/imports/${queued.id}`)
    expect(queued).toMatchObject({ format: 'pocket', status: 'queued', total: 4, processed: 0, finishedAt: null })
    await w.run()
    const done = await w.job(queued.id)
    expect(done).toMatchObject({ status: 'done', total: 4, processed: 4, created: 3, updated: 0, skipped: 1 })
    expect(done.errors).toEqual([{ line: 4, message: expect.stringContaining('not a url') }])
    expect(done.droppedTags).toEqual(['cooking'])
    expect(done.finishedAt).not.toBeNull()
    const items = await w.items()
    expect(items.map((i: any) => [i.normalizedUrl, i.isRead, i.tags, i.createdAt, i.lastSavedAt])).toEqual([
      ['https://example.org/quoted', true, [], '2020-09-13T12:26:40.000Z', '2020-09-13T12:26:40.000Z'],
      ['https://example.net/second', false, ['backend'], '2022-04-15T05:20:00.000Z', '2022-04-15T05:20:00.000Z'],
      ['https://example.com/rust', false, ['ai', 'front-end'], '2023-11-14T22:13:20.000Z', '2023-11-14T22:13:20.000Z'],
    ])
    expect(items.find((i: any) => i.host === 'example.org').title).toBe('Quoted, title "with" quotes')
  })

  test('an Idempotency-Key retry replays the first 202 (the file, handed to its thread, is not read again)', async () => {
    const w = await world()
    const send = () =>
      w.h.call('POST', '/v1/imports', {
        token: w.key,
        raw: POCKET,
        headers: { 'content-type': 'text/csv', 'idempotency-key': 'import-once' },
      })
    const first = await send()
    const again = await send()
    expect(first.status).toBe(202)
    expect(again.status).toBe(202)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect((await w.h.call('GET', '/v1/imports', { token: w.key })).body.imports).toHaveLength(1)
    await w.run()
    expect(await w.job(first.body.import.id)).toMatchObject({ status: 'done', created: 3, skipped: 1 })
  })

  test('the same file twice creates nothing new and changes nothing', async () => {
    const w = await world()
    await w.upload(POCKET, 'text/csv')
    await w.run()
    const before = await w.items()
    w.h.clock.advance(60_000)
    const again = (await w.upload(POCKET, 'text/csv')).body.import
    await w.run()
    expect(await w.job(again.id)).toMatchObject({ status: 'done', created: 0, updated: 3, skipped: 1 })
    expect(await w.items()).toEqual(before)
  })

  test('a URL already saved is merged: the earlier createdAt kept, a read item never made unread, tags added', async () => {
    const w = await world()
    const saved = await w.h.call('POST', '/v1/captures', {
      token: w.key,
      body: { url: 'https://example.net/second', tags: ['tools'] },
    })
    await w.h.call('POST', `/v1/saved-items/${saved.body.savedItem.id}/read`, { token: w.key })
    const job = (await w.upload(POCKET, 'text/csv')).body.import
    await w.run()
    expect(await w.job(job.id)).toMatchObject({ created: 2, updated: 1 })
    const item = (await w.items()).find((i: any) => i.id === saved.body.savedItem.id)
    // The file's time is earlier than the capture's: it becomes createdAt; lastSavedAt stays the later one.
    expect(item).toMatchObject({ isRead: true, tags: ['tools', 'backend'], createdAt: '2022-04-15T05:20:00.000Z' })
    expect(item.lastSavedAt).toBe(saved.body.savedItem.lastSavedAt)
  })

  test('a Content-Type charset decides the text, in the job too (it reads the stored file without the header)', async () => {
    const w = await world()
    // C3 A9 is "é" in UTF-8 and "Ã©" in ISO-8859-1; without the charset the bytes would read as UTF-8.
    const csv = new TextEncoder().encode(
      'title,url,time_added,tags,status\nCafé,https://example.com/cafe,1700000000,,unread\n',
    )
    const job = (await w.upload(csv, 'text/csv; charset=ISO-8859-1')).body.import
    await w.run()
    expect(await w.job(job.id)).toMatchObject({ status: 'done', created: 1 })
    expect((await w.items()).map((item: any) => item.title)).toEqual(['CafÃ©'])
  })

  test('a UTF-16LE Pocket CSV without a byte-order mark, sent with charset=utf-16le: 202, and the job imports it', async () => {
    const w = await world()
    const text = `${POCKET}\nCafé,https://example.com/cafe,1700000001,,unread\n`
    const csv = new Uint8Array(text.length * 2)
    for (let i = 0; i < text.length; i++) {
      csv[i * 2] = text.charCodeAt(i) & 0xff
      csv[i * 2 + 1] = text.charCodeAt(i) >> 8
    }
    const reply = await w.upload(csv, 'text/csv; charset=utf-16le')
    expect(reply.status).toBe(202)
    expect(reply.body.import).toMatchObject({ format: 'pocket', status: 'queued', total: 5 })
    await w.run()
    expect(await w.job(reply.body.import.id)).toMatchObject({ status: 'done', created: 4, skipped: 1 })
    expect((await w.items()).find((item: any) => item.host === 'example.com' && item.title === 'Café')).toBeDefined()
  })

  test('folders are created by name or reused, whatever the case', async () => {
    const w = await world()
    await w.h.call('POST', '/v1/folders', { token: w.key, body: { name: 'Reading' } })
    const bookmarks = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p>
<DT><H3>reading</H3>
<DL><p>
<DT><A HREF="https://example.com/a" ADD_DATE="1700000000">A</A>
</DL><p>
<DT><H3>Tech</H3>
<DL><p>
<DT><A HREF="https://example.com/b" ADD_DATE="1700000000">B</A>
</DL><p>
</DL><p>`
    const job = (await w.upload(bookmarks, 'text/html')).body.import
    await w.run()
    const done = await w.job(job.id)
    expect(done.folderNames.sort()).toEqual(['Reading', 'Tech'])
    const folders = (await w.h.call('GET', '/v1/folders', { token: w.key })).body.folders
    expect(folders.map((f: any) => f.name).sort()).toEqual(['Reading', 'Tech'])
    const items = await w.items()
    expect(items.map((i: any) => i.folder?.name).sort()).toEqual(['Reading', 'Tech'])
  })
})

describe('bad input: refused whole, nothing written', () => {
  const refusals: [name: string, body: BodyInit, type: string, status: number, tag: string][] = [
    ['not a supported format', 'just some words\nand more words', 'text/plain', 400, 'ImportFormatError'],
    ['an empty file', '', 'text/csv', 400, 'ImportFormatError'],
    ['a truncated zip', new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]), 'application/zip', 400, 'ImportFormatError'],
    [
      'a CSV whose quote never closes',
      'title,url,time_added,tags,status\n"open,https://a.example/,1,,unread\n',
      'text/csv',
      400,
      'ImportFormatError',
    ],
    ['a content type no file has', POCKET, 'image/png', 415, 'UnsupportedMediaTypeError'],
  ]
  for (const [name, body, type, status, tag] of refusals)
    test(`${name}: ${status} ${tag}`, async () => {
      const w = await world()
      const reply = await w.upload(body, type)
      expect(reply.status).toBe(status)
      expect(reply.body._tag).toBe(tag)
      expect(typeof reply.body.message).toBe('string')
      expect((await w.h.call('GET', '/v1/imports', { token: w.key })).body.imports).toEqual([])
      expect(await w.items()).toEqual([])
    })

  test('zips past 200 MiB expanded: refused whether they say so or lie about it, nothing written', async () => {
    const w = await world()
    const csv = new TextEncoder().encode(`${POCKET}\n`)
    // The directory claims 201 MiB: refused before anything is inflated.
    const declared = craftZip([
      { name: 'part_000000.csv', data: csv, method: 0, declaredSize: 201 * 1024 * 1024, crc32: crc32(csv) },
    ])
    // A bomb: it claims 1 KiB, and its data inflates to 201 MiB of zeros; inflating stops as soon as the
    // entry passes what it claims (docs/import-export.md#detection), long before the cap.
    const zeros = deflateSync(new Uint8Array(201 * 1024 * 1024))
    const bomb = craftZip([{ name: 'part_000000.csv', data: zeros, method: 8, declaredSize: 1024, crc32: 0 }])
    for (const [zip, message] of [
      [declared, 'the zip expands past 200 MiB'],
      [bomb, 'the zip is damaged: part_000000.csv inflates past the 1024 bytes it declares'],
    ] as const) {
      const reply = await w.upload(new Blob([zip as BlobPart]), 'application/zip')
      expect(reply.status).toBe(400)
      expect(reply.body).toEqual({ _tag: 'ImportFormatError', message })
    }
    expect((await w.h.call('GET', '/v1/imports', { token: w.key })).body.imports).toEqual([])
    expect(await w.items()).toEqual([])
  })

  test('50 MiB + 1 byte: 400 ImportFormatError naming the limit', async () => {
    const w = await world()
    const reply = await w.upload(new Uint8Array(50 * 1024 * 1024 + 1).fill(0x61), 'text/plain')
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ _tag: 'ImportFormatError', message: expect.stringContaining('50 MiB') })
    expect((await w.h.call('GET', '/v1/imports', { token: w.key })).body.imports).toEqual([])
  })

  test('an unknown format= is refused before the file is read', async () => {
    const w = await world()
    const reply = await w.upload(POCKET, 'text/csv', '?format=delicious')
    expect(reply.status).toBe(400)
    expect(reply.body._tag).toBe('ImportFormatError')
    expect(reply.body.message).toContain('delicious')
  })

  test('format= naming another format than the file: 400', async () => {
    const w = await world()
    const reply = await w.upload(POCKET, 'text/csv', '?format=wallabag')
    expect(reply.status).toBe(400)
    expect(reply.body._tag).toBe('ImportFormatError')
  })

  test('an import needs both saved-items:capture and folders:write', async () => {
    const h = await createHarness()
    const user = await h.user()
    const key = await user.key(['saved-items:capture', 'saved-items:read'])
    const reply = await h.call('POST', '/v1/imports', {
      token: key,
      raw: POCKET,
      headers: { 'content-type': 'text/csv' },
    })
    expect(reply.status).toBe(403)
    expect(reply.body).toMatchObject({ _tag: 'InsufficientScopeError', requiredScope: 'folders:write' })
  })
})

describe('isolation', () => {
  test("a person never sees another's imports, by id or in the list", async () => {
    const h = await createHarness()
    const mine = await world(h)
    const theirs = await world(h)
    const job = (await mine.upload(POCKET, 'text/csv')).body.import
    const reply = await h.call('GET', `/v1/imports/${job.id}`, { token: theirs.key })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'ImportNotFoundError', message: expect.any(String), importId: job.id })
    expect((await h.call('GET', '/v1/imports', { token: theirs.key })).body.imports).toEqual([])
    expect((await h.call('GET', '/v1/imports', { token: mine.key })).body.imports.map((i: any) => i.id)).toEqual([
      job.id,
    ])
  })
})

describe('durable job', () => {
  test('a process that dies after a batch: the next one resumes after that batch, every entry once; the dead one writes nothing more', async () => {
    const w = await world()
    const job = (await w.upload(POCKET, 'text/csv')).body.import
    const deps = { db: w.h.db, clock: w.h.clock, random, log: () => {} }
    // The first process writes one batch (2 entries), then dies before the next: its lease is never renewed.
    const dying = startImportWorker(deps, { batchSize: 2, pollMs: 10, leaseMs: 1000 }, false)
    await expect(
      dying.drain(job.id, () => {
        throw new Error('killed')
      }),
    ).rejects.toThrow('killed')
    const halfway = await w.job(job.id)
    expect(halfway).toMatchObject({ status: 'running', processed: 2, created: 2 })
    const held = await w.h.db.$client.execute({
      sql: 'SELECT lease_until_ms AS lease FROM imports WHERE id = ?',
      args: [job.id],
    })
    const deadLease = Number(held.rows[0]!.lease)
    // Before the lease runs out nobody else takes it.
    expect(await claimImport(w.h.db, w.h.clock.now().getTime(), w.h.clock.now().getTime() + 1000)).toBeNull()
    w.h.clock.advance(1001)
    await w.run()
    expect(await w.job(job.id)).toMatchObject({ status: 'done', processed: 4, created: 3, updated: 0, skipped: 1 })
    expect((await w.items()).length).toBe(3)
    // A batch written under the old claim (the dead process waking up) is refused whole.
    const stale = {
      record: { ...halfway, userId: w.userId },
      leaseUntilMs: deadLease,
    }
    await expect(
      writeImportBatch(
        w.h.db,
        stale as never,
        { rows: [], folders: [], now: w.h.clock.now().toISOString(), nextLeaseUntilMs: 0 },
        () => ({
          processed: 4,
          created: 9,
          updated: 0,
          skipped: 0,
          folderNames: [],
          droppedTags: [],
          errors: [],
          done: true,
        }),
      ),
    ).rejects.toThrow('no longer holds')
    expect((await w.job(job.id)).created).toBe(3)
  })

  test('a batch the database keeps refusing ends the import as failed, with the reason listed; nothing loops', async () => {
    const w = await world()
    const job = (await w.upload(POCKET, 'text/csv')).body.import
    await w.h.db.$client.execute(
      "CREATE TRIGGER refuse_items BEFORE INSERT ON saved_items BEGIN SELECT RAISE(ABORT, 'refused'); END",
    )
    try {
      await w.run()
    } finally {
      await w.h.db.$client.execute('DROP TRIGGER refuse_items')
    }
    const failed = await w.job(job.id)
    expect(failed).toMatchObject({ status: 'failed', processed: 0, created: 0 })
    expect(failed.finishedAt).not.toBeNull()
    expect(failed.errors.at(-1)).toEqual({
      line: 0,
      message: expect.stringContaining('entries from 1 on could not be saved'),
    })
    expect(await w.items()).toEqual([])
    const files = await w.h.db.$client.execute('SELECT count(*) AS n FROM import_files')
    expect(Number(files.rows[0]!.n)).toBe(0)
  })

  test('imported items are enriched after live work, and carry their host', async () => {
    const w = await world()
    const job = (await w.upload(POCKET, 'text/csv')).body.import
    await w.run()
    expect((await w.job(job.id)).status).toBe('done')
    const jobs = await w.h.db.$client.execute('SELECT priority, host FROM enrichment_jobs ORDER BY host')
    expect(jobs.rows.map((r) => [Number(r.priority), r.host])).toEqual([
      [2, 'example.com'],
      [2, 'example.net'],
      [2, 'example.org'],
    ])
  })
})

describe('enrichment of imported items', () => {
  test('live captures first; then never more than 2 imported items of one host held at once', async () => {
    const w = await world()
    const file = [
      ...Array.from({ length: 4 }, (_, i) => `https://busy.example.com/${i}`),
      'https://quiet.example.org/1',
    ].join('\n')
    await w.upload(file, 'text/plain')
    await w.run()
    w.h.clock.advance(1000)
    await w.h.call('POST', '/v1/captures', { token: w.key, body: { url: 'https://live.example.net/now' } })
    const now = w.h.clock.now().getTime()
    const claimed: string[] = []
    for (let i = 0; i < 5; i++) {
      const job = await claimEnrichmentJob(w.h.db, now, now + 45_000)
      claimed.push(job ? new URL(job.originalUrl).host : 'none')
    }
    expect(claimed[0]).toBe('live.example.net')
    expect(claimed.slice(1, 4).sort()).toEqual(['busy.example.com', 'busy.example.com', 'quiet.example.org'])
    expect(claimed[4]).toBe('none')
  })
})

describe('GET /v1/export', () => {
  test('JSON, bookmarks and CSV each import back into another account with the same items', async () => {
    const h = await createHarness()
    const from = await world(h)
    await from.h.call('POST', '/v1/folders', { token: from.key, body: { name: 'Deep reads' } })
    const bookmarks = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p><DT><H3>Deep reads</H3><DL><p>
<DT><A HREF="https://example.com/a" ADD_DATE="1700000000" TAGS="ai,security" TOREAD="0">Alpha &amp; beta</A>
</DL><p>
<DT><A HREF="https://example.com/b" ADD_DATE="1600000000" TOREAD="1">Beta</A>
</DL><p>`
    await from.upload(bookmarks, 'text/html')
    await from.run()
    // A capture with no title yet, saved at a time with milliseconds: both come back as they were
    // (docs/import-export.md#export), bookmarks included, whose ADD_DATE alone is in whole seconds.
    h.clock.advance(1_234)
    const untitled = await from.h.call('POST', '/v1/captures', {
      token: from.key,
      body: { url: 'https://example.com/c' },
    })
    expect(untitled.body.savedItem).toMatchObject({ title: null, createdAt: expect.not.stringMatching(/\.000Z$/) })
    const original = await from.items()
    expect(original.length).toBe(3)
    const shape = (items: any[]) =>
      items
        .map((i) => ({
          normalizedUrl: i.normalizedUrl,
          title: i.title,
          isRead: i.isRead,
          folder: i.folder?.name ?? null,
          tags: i.tags,
          createdAt: i.createdAt,
        }))
        .sort((a, b) => a.normalizedUrl.localeCompare(b.normalizedUrl))
    for (const format of ['json', 'netscape', 'csv']) {
      const exported = await h.call('GET', `/v1/export?format=${format}`, { token: from.key, unchecked: true })
      expect(exported.status).toBe(200)
      expect(exported.headers.get('content-disposition')).toMatch(
        /^attachment; filename="readlater-export-\d{4}-\d{2}-\d{2}\.(json|html|csv)"$/,
      )
      const to = await world(h)
      const type = format === 'json' ? 'application/json' : format === 'csv' ? 'text/csv' : 'text/html'
      const job = await to.upload(exported.text, type)
      expect(job.status).toBe(202)
      await to.run()
      expect((await to.job(job.body.import.id)).skipped).toBe(0)
      expect(shape(await to.items())).toEqual(shape(original))
    }
  })

  test('an unknown format is 400; the export needs folders:read too', async () => {
    const h = await createHarness()
    const user = await h.user()
    const key = await user.key()
    expect((await h.call('GET', '/v1/export?format=xml', { token: key })).status).toBe(400)
    const narrow = await user.key(['saved-items:read'])
    const reply = await h.call('GET', '/v1/export', { token: narrow })
    expect(reply.status).toBe(403)
    expect(reply.body.requiredScope).toBe('folders:read')
  })
})
