import { afterEach, describe, expect, test } from 'bun:test'
import { unzipSync } from 'fflate'
import { load as loadYaml } from 'js-yaml'
import { parse as parseYaml } from 'yaml'
import { startImportWorker } from '../../adapters/jobs/import-worker.ts'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { BASE, countRows, createHarness, random, type Harness } from '../helpers/harness.ts'
import { cleanUp, setup, startWorkers, waitFor } from '../enrichment/enrichment-helpers.ts'
import { omnivoreZip } from '../fixtures/import/read-fixture.ts'

// docs/import-export.md#highlights and #markdown-export: highlights go out with the JSON export and come
// back with its import (anchored in the item's text when it has one), Omnivore's highlights come in with
// their article, a second import adds no highlight, hostile highlights are entry errors, and the Markdown
// export is a zip of notes whose front matter real YAML parsers read back. On the three drivers (package.json's
// test:libsql and test:client run this folder).

afterEach(cleanUp)

const TEXT =
  'Memory safety is a property of some languages.\n\nRust gives memory safety without a garbage collector. ' +
  "Go gives memory safety with one.\n\nIn C, memory safety is the programmer's problem."
const limits = { env: { RATE_LIMIT_MAX: '100000', IP_RATE_LIMIT_MAX: '100000' } }

interface Person {
  h: Harness
  key: string
  userId: string
}

async function person(h: Harness): Promise<Person> {
  const user = await h.user()
  return { h, key: await user.key(), userId: user.id }
}

/** Stores `text` as the item's article, as enrichment would (highlights re-anchored in the same write). */
async function giveArticle(h: Harness, itemId: string, text: string) {
  const article = { title: null, byline: null, siteName: null, lang: null, html: '<p>x</p>', text, wordCount: 1 }
  expect(await storeArticle(h.db, itemId, article, h.clock.now().toISOString(), null)).toBe(true)
}

async function save(p: Person, url: string, body: Record<string, unknown> = {}) {
  const reply = await p.h.call('POST', '/v1/captures', { token: p.key, body: { url, ...body } })
  expect(reply.status).toBe(201)
  return reply.body.savedItem.id as string
}

const highlight = (p: Person, itemId: string, body: unknown) =>
  p.h.call('POST', `/v1/saved-items/${itemId}/highlights`, { token: p.key, body })
const highlightsOf = async (p: Person, itemId: string) =>
  (await p.h.call('GET', `/v1/saved-items/${itemId}/highlights`, { token: p.key })).body.highlights as any[]
const itemsOf = async (p: Person) =>
  (await p.h.call('GET', '/v1/saved-items?sort=oldest', { token: p.key })).body.savedItems as any[]

async function importFile(p: Person, body: string | Uint8Array, type: string) {
  const raw = typeof body === 'string' ? body : new Uint8Array(body)
  const reply = await p.h.call('POST', '/v1/imports', { token: p.key, raw, headers: { 'content-type': type } })
  expect(reply.status).toBe(202)
  await startImportWorker(
    { db: p.h.db, clock: p.h.clock, random, log: () => {} },
    { batchSize: 2, pollMs: 10, leaseMs: 10_000 },
    false,
  ).drain()
  return (await p.h.call('GET', `/v1/imports/${reply.body.import.id}`, { token: p.key })).body.import
}

async function exportJson(p: Person) {
  const reply = await p.h.call('GET', '/v1/export?format=json', { token: p.key, unchecked: true })
  expect(reply.status).toBe(200)
  return reply.text
}

/** Two items: one with an article and three highlights (a passage twice), one whose article went. */
async function library(p: Person) {
  const withText = await save(p, 'https://example.com/rust')
  await giveArticle(p.h, withText, TEXT)
  const second = TEXT.indexOf('memory safety', 20)
  const made = []
  for (const body of [
    { quote: { exact: 'memory safety', prefix: 'Rust gives ' }, color: 'green', note: 'Compare with Go' },
    { quote: { exact: 'memory safety' }, position: { start: second, end: second + 13 }, color: 'pink' },
    { quote: { exact: "the programmer's problem" }, note: 'C: "be careful"\nsecond line' },
  ]) {
    p.h.clock.advance(1234)
    const reply = await highlight(p, withText, body)
    expect(reply.status).toBe(201)
    made.push(reply.body.highlight)
  }
  const orphan = await save(p, 'https://example.org/gone')
  await giveArticle(p.h, orphan, 'An article about garbage collectors and pauses.')
  expect((await highlight(p, orphan, { quote: { exact: 'garbage collectors' }, note: 'orphan' })).status).toBe(201)
  // Extracted again without an article: its highlight stays, position null (docs/highlights.md#re-anchoring).
  await storeArticle(p.h.db, orphan, null, p.h.clock.now().toISOString(), null)
  return { withText, orphan, made }
}

const kept = (h: any) => ({
  exact: h.quote.exact,
  note: h.note,
  color: h.color,
  createdAt: h.createdAt,
  position: h.position,
})

describe('JSON export and import: highlights round trip', () => {
  test('each item carries its highlights in text order; another account gets the same ones back', async () => {
    const h = await createHarness(limits)
    const from = await person(h)
    const { withText, orphan } = await library(from)
    const exported = await exportJson(from)
    const parsed = JSON.parse(exported)
    expect(parsed.version).toBe(1)
    const byUrl = new Map(parsed.savedItems.map((item: any) => [item.normalizedUrl, item]))
    const rust = byUrl.get('https://example.com/rust') as any
    expect(rust.highlights).toEqual((await highlightsOf(from, withText)).map(({ savedItemId: _, ...rest }) => rest))
    expect(Object.keys(rust.highlights[0])).toEqual([
      'id',
      'quote',
      'position',
      'color',
      'note',
      'createdAt',
      'updatedAt',
    ])
    expect((byUrl.get('https://example.org/gone') as any).highlights.map(kept)).toEqual(
      (await highlightsOf(from, orphan)).map(kept),
    )

    // The other account has the article already: positions come back too.
    const to = await person(h)
    const toRust = await save(to, 'https://example.com/rust')
    await giveArticle(h, toRust, TEXT)
    const job = await importFile(to, exported, 'application/json')
    expect(job).toMatchObject({ status: 'done', created: 1, updated: 1, skipped: 0, errors: [] })
    expect((await highlightsOf(to, toRust)).map(kept)).toEqual((await highlightsOf(from, withText)).map(kept))
    const toOrphan = (await itemsOf(to)).find((item) => item.normalizedUrl === 'https://example.org/gone').id
    const waiting = await highlightsOf(to, toOrphan)
    expect(waiting.map(kept)).toEqual((await highlightsOf(from, orphan)).map(kept))
    expect(waiting[0].position).toBeNull()
    // New ids: an id is the highlight's in one account only.
    expect((await highlightsOf(to, toRust)).map((x) => x.id)).not.toContain((await highlightsOf(from, withText))[0].id)

    // The item without an article gets one: its highlight is anchored in the same write.
    await giveArticle(h, toOrphan, 'Now with text: garbage collectors pause.')
    expect((await highlightsOf(to, toOrphan))[0].position).toEqual({ start: 15, end: 33 })
  })

  test('imported twice, into the same account or another: no highlight twice', async () => {
    const h = await createHarness(limits)
    const from = await person(h)
    await library(from)
    const exported = await exportJson(from)
    // Into the same account: every highlight is recognised (by its id, its place or its context).
    const before = await countRows(h.db, 'highlights')
    expect(await importFile(from, exported, 'application/json')).toMatchObject({
      status: 'done',
      updated: 2,
      errors: [],
    })
    expect(await countRows(h.db, 'highlights')).toBe(before)

    const to = await person(h)
    await importFile(to, exported, 'application/json')
    const once = await countRows(h.db, 'highlights')
    expect(once).toBe(before * 2)
    h.clock.advance(60_000)
    await importFile(to, exported, 'application/json')
    expect(await countRows(h.db, 'highlights')).toBe(once)
    // …and after the article arrived (positions found since), a third time changes nothing either.
    const gone = (await itemsOf(to)).find((item) => item.normalizedUrl === 'https://example.org/gone').id
    await giveArticle(h, gone, 'garbage collectors')
    const rust = (await itemsOf(to)).find((item) => item.normalizedUrl === 'https://example.com/rust').id
    await giveArticle(h, rust, TEXT)
    await importFile(to, exported, 'application/json')
    expect(await countRows(h.db, 'highlights')).toBe(once)
  })

  test('hostile highlights are errors of their entry; the entry and its good highlights are imported', async () => {
    const h = await createHarness(limits)
    const p = await person(h)
    const item = (url: string, highlights: unknown) => ({
      originalUrl: url,
      createdAt: '2024-01-01T00:00:00Z',
      highlights,
    })
    const file = JSON.stringify({
      format: 'readlater',
      version: 1,
      savedItems: [
        item('https://example.com/a', [
          { quote: { exact: 'fine' }, note: 'kept', createdAt: '2024-02-01T00:00:00.000Z' },
          { quote: { exact: 'x'.repeat(10_001) } },
          { quote: { exact: 'long note' }, note: 'n'.repeat(10_001) },
          { quote: { exact: 42 } },
          { quote: { exact: 'bad colour' }, color: 'red' },
        ]),
        item(
          'https://example.com/many',
          Array.from({ length: 1_001 }, (_, i) => ({ quote: { exact: `passage ${i}` } })),
        ),
        item('https://example.com/c', 'not a list'),
        item('javascript:alert(1)', [{ quote: { exact: 'never read' } }]),
      ],
    })
    const job = await importFile(p, file, 'application/json')
    expect(job).toMatchObject({ status: 'done', created: 3, skipped: 1 })
    expect(job.errors).toEqual([
      {
        line: 1,
        message:
          '4 of its highlights were not imported: highlight 2: quote.exact: must be 1 to 10,000 characters; ' +
          'highlight 3: note: must be at most 10,000 characters; highlight 4: quote.exact is not a string; ' +
          'highlight 5: color must be one of yellow, green, blue, pink, purple',
      },
      { line: 2, message: '1 highlights past the 1,000 an item may have were not imported' },
      { line: 3, message: 'highlights is not an array' },
      { line: 4, message: expect.stringContaining('javascript:') },
    ])
    const items = await itemsOf(p)
    const a = items.find((i) => i.normalizedUrl === 'https://example.com/a')
    expect((await highlightsOf(p, a.id)).map((x) => [x.quote.exact, x.note, x.createdAt, x.position])).toEqual([
      ['fine', 'kept', '2024-02-01T00:00:00.000Z', null],
    ])
    const many = items.find((i) => i.normalizedUrl === 'https://example.com/many')
    expect((await highlightsOf(p, many.id)).length).toBe(1_000)
  })
})

describe('Omnivore highlights (docs/import-export.md#omnivore-highlights)', () => {
  test('with content/: the article is read from the zip, not fetched, and the highlights anchor in our own text', async () => {
    const s = await setup()
    const p: Person = { h: s.h, key: s.key, userId: '' }
    const job = await importFile(p, omnivoreZip(), 'application/zip')
    expect(job).toMatchObject({ status: 'done', created: 2, skipped: 1 })
    const items = await itemsOf(p)
    const tyranny = items.find((i) => i.title === 'The Tyranny of Obviousness')
    const llm = items.find((i) => i.normalizedUrl.includes('understandingai.org'))
    const before = await highlightsOf(p, tyranny.id)
    expect(before.map((x) => [x.quote.exact, x.note, x.position, x.createdAt])).toEqual([
      ['Everything feels obvious in hindsight.', null, null, tyranny.createdAt],
      [
        'Historians call this hindsight bias, and it shapes how we judge the people who came before us.',
        '#history #psychology\n\nCompare with Kahneman, chapter 19.',
        null,
        tyranny.createdAt,
      ],
      ['Rule #1: never trust a story that explains everything.', null, null, tyranny.createdAt],
      [
        'The cure is not more knowledge but more humility.\n\nA decision made in fog should be judged in fog.',
        'Two paragraphs at once.\nAnd a second line of the note.',
        null,
        tyranny.createdAt,
      ],
    ])
    expect(await countRows(s.h.db, 'captured_pages')).toBe(1)

    const fetched: string[] = []
    startWorkers(s, async (url) => {
      fetched.push(url)
      throw new Error('offline')
    })
    const article = await waitFor('the article', async () => {
      const reply = await s.h.call('GET', `/v1/saved-items/${tyranny.id}/content`, { token: s.key })
      return reply.status === 200 ? reply.body : null
    })
    const after = await highlightsOf(p, tyranny.id)
    expect(after).toHaveLength(4)
    for (const found of after) {
      expect(found.position).not.toBeNull()
      expect(article.text.slice(found.position.start, found.position.end)).toBe(found.quote.exact)
    }
    expect(fetched).not.toContain('https://example.substack.com/p/the-tyranny-of-obviousness')
    // The title stays the file's (the page kept for it carries it).
    expect((await itemsOf(p)).find((i) => i.id === tyranny.id).title).toBe('The Tyranny of Obviousness')
    // The item without content/ keeps its highlight unanchored until its own article comes.
    expect((await highlightsOf(p, llm.id)).map((x) => [x.quote.exact, x.position])).toEqual([
      ['Word vectors are a useful building block for language models.', null],
    ])
  })

  test('without content/: highlights with position null, nothing kept to read; the zip again adds none', async () => {
    const h = await createHarness(limits)
    const p = await person(h)
    const zip = omnivoreZip({ content: false })
    expect(await importFile(p, zip, 'application/zip')).toMatchObject({ status: 'done', created: 2, skipped: 1 })
    expect(await countRows(h.db, 'captured_pages')).toBe(0)
    expect(await countRows(h.db, 'highlights')).toBe(5)
    const rows = await h.db.$client.execute('SELECT count(*) AS n FROM highlights WHERE start IS NOT NULL')
    expect(Number(rows.rows[0]!.n)).toBe(0)
    h.clock.advance(60_000)
    expect(await importFile(p, zip, 'application/zip')).toMatchObject({ status: 'done', updated: 2 })
    expect(await countRows(h.db, 'highlights')).toBe(5)
    // With content/ this time: the items have no article yet, so the page is kept for them now.
    await importFile(p, omnivoreZip(), 'application/zip')
    expect(await countRows(h.db, 'highlights')).toBe(5)
    expect(await countRows(h.db, 'captured_pages')).toBe(1)
  })

  test('an item that already has its article anchors them in that text, and keeps it', async () => {
    const h = await createHarness(limits)
    const p = await person(h)
    const id = await save(p, 'https://example.substack.com/p/the-tyranny-of-obviousness')
    const text = 'Intro.\n\nEverything feels obvious in hindsight. That is the trap.'
    await giveArticle(h, id, text)
    await importFile(p, omnivoreZip(), 'application/zip')
    expect(await countRows(h.db, 'captured_pages')).toBe(0)
    const [first, ...rest] = await highlightsOf(p, id)
    expect(first.position).toEqual({ start: 8, end: 46 })
    expect(rest.every((x) => x.position === null)).toBe(true)
  })
})

describe('GET /v1/export?format=markdown (docs/import-export.md#markdown-export)', () => {
  async function markdownZip(p: Person) {
    const response = await p.h.server.fetch(
      new Request(`${BASE}/v1/export?format=markdown`, { headers: { authorization: `Bearer ${p.key}` } }),
      { clientIp: '127.0.0.1' },
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/zip')
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="readlater-highlights-\d{4}-\d{2}-\d{2}\.zip"$/,
    )
    return unzipSync(new Uint8Array(await response.arrayBuffer()))
  }

  /** Front matter and body of a note, the front matter read by two YAML parsers (YAML 1.2, and js-yaml). */
  function read(file: Uint8Array) {
    const text = new TextDecoder().decode(file)
    const match = /^---\n([^]*?)\n---\n\n([^]*)$/.exec(text)
    expect(match).not.toBeNull()
    const front = parseYaml(match![1]!, { strict: true, uniqueKeys: true })
    expect(loadYaml(match![1]!)).toEqual(front)
    return { front, body: match![2]! }
  }

  test('one file per highlighted item; front matter read back exactly by real YAML parsers; quotes and notes in text order', async () => {
    const h = await createHarness(limits)
    const p = await person(h)
    const folder = (await h.call('POST', '/v1/folders', { token: p.key, body: { name: 'Deep: reads "2024"' } })).body.id
    const hostileTitle = 'Rust: "memory safety"\n--- # not a comment\u2028 – 東京 😀 \\ end'
    const id = await save(p, 'https://example.com/rust?a=1&b=%22', { tags: ['ai', 'security'] })
    expect(
      (await h.call('PUT', `/v1/saved-items/${id}/folder`, { token: p.key, body: { folderId: folder } })).status,
    ).toBe(200)
    await h.db.$client.execute({ sql: 'UPDATE saved_items SET title = ? WHERE id = ?', args: [hostileTitle, id] })
    await giveArticle(h, id, TEXT)
    for (const body of [
      { quote: { exact: "the programmer's problem" }, note: 'Note with "quotes", a: colon\n\nand – Unicode 😀' },
      { quote: { exact: 'Rust gives memory safety without a garbage collector.' } },
      {
        quote: { exact: 'Memory safety is a property of some languages.\n\nRust gives' },
        note: '> not a quote of ours',
      },
    ])
      expect((await highlight(p, id, body)).status).toBe(201)
    await save(p, 'https://example.com/no-highlights')
    h.clock.advance(1000)
    const other = await save(p, 'https://example.com/other', {})
    await giveArticle(h, other, 'Short text to highlight.')
    await highlight(p, other, { quote: { exact: 'Short text' } })
    await h.db.$client.execute({ sql: 'UPDATE saved_items SET title = ? WHERE id = ?', args: [hostileTitle, other] })

    const files = await markdownZip(p)
    // Newest saved first: the other item takes the name, this one (saved before it) gets (2).
    const name = 'Rust memory safety --- not a comment – 東京 😀 end'
    expect(Object.keys(files)).toEqual([`${name}.md`, `${name} (2).md`])
    const item = (await itemsOf(p)).find((i) => i.id === id)
    const note = read(files[`${name} (2).md`]!)
    expect(note.front).toEqual({
      title: hostileTitle,
      url: 'https://example.com/rust?a=1&b=%22',
      savedAt: item.createdAt,
      tags: ['ai', 'security'],
      folder: 'Deep: reads "2024"',
    })
    expect(note.body).toBe(
      [
        '> Memory safety is a property of some languages.',
        '>',
        '> Rust gives',
        '',
        '> not a quote of ours',
        '',
        '> Rust gives memory safety without a garbage collector.',
        '',
        "> the programmer's problem",
        '',
        'Note with "quotes", a: colon',
        '',
        'and – Unicode 😀',
        '',
      ].join('\n'),
    )
    expect(read(files[`${name}.md`]!)).toEqual({
      front: {
        title: hostileTitle,
        url: 'https://example.com/other',
        savedAt: expect.any(String),
        tags: [],
        folder: null,
      },
      body: '> Short text\n',
    })
  })

  test('nobody’s highlights but the caller’s; an empty zip without any; the scopes of every export', async () => {
    const h = await createHarness(limits)
    const a = await person(h)
    await library(a)
    const b = await person(h)
    expect(await markdownZip(b)).toEqual({})
    expect(Object.keys(await markdownZip(a)).sort()).toEqual(['example.com rust.md', 'example.org gone.md'])
    const narrow = await (await h.user()).key(['saved-items:read'])
    const reply = await h.call('GET', '/v1/export?format=markdown', { token: narrow })
    expect(reply.status).toBe(403)
    expect(reply.body.requiredScope).toBe('folders:read')
  })

  test('OpenAPI names the format and the media types of the download', async () => {
    const h = await createHarness()
    const doc = await (await h.server.fetch(new Request(`${BASE}/openapi.json`))).json()
    const operation = doc.paths['/v1/export'].get
    expect(operation.parameters.find((p: any) => p.name === 'format').schema.enum).toEqual([
      'json',
      'netscape',
      'csv',
      'markdown',
      'epub',
    ])
    expect(Object.keys(operation.responses['200'].content)).toEqual([
      'application/json',
      'text/html',
      'text/csv',
      'application/zip',
      'application/epub+zip',
    ])
  })
})
