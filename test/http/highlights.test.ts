import { afterEach, describe, expect, test } from 'bun:test'
import { deleteAccount } from '../../adapters/storage/delete-account.ts'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'
import { cleanUp, setup, startWorkers, waitFor, type Setup } from '../enrichment/enrichment-helpers.ts'
import { signedInWithKey } from '../web/fixtures.ts'

// docs/highlights.md: highlights over REST on the three drivers (package.json's test:libsql and test:client run
// this folder): anchoring, limits, errors, isolation, paging, no-op patches, re-anchoring after a new
// extraction, and what happens to highlights when their item or their person goes.

afterEach(cleanUp)

const TEXT =
  'Memory safety is a property of some languages.\n\nRust gives memory safety without a garbage collector. ' +
  "Go gives memory safety with one.\n\nIn C, memory safety is the programmer's problem."

interface Person {
  h: Harness
  key: string
  userId: string
  itemId: string
}

const limits = { env: { RATE_LIMIT_MAX: '100000', IP_RATE_LIMIT_MAX: '100000' } }

/** A saved item whose article text is `text`, as enrichment would store it. */
async function itemWithText(h: Harness, key: string, text: string, url = `https://example.com/${crypto.randomUUID()}`) {
  const capture = await h.call('POST', '/v1/captures', { token: key, body: { url } })
  expect(capture.status).toBe(201)
  const id = capture.body.savedItem.id as string
  await h.db.$client.execute({
    sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p>x</p>', ?, ?)",
    args: [id, text, capture.body.savedItem.createdAt],
  })
  return id
}

async function person(h?: Harness): Promise<Person> {
  const harness = h ?? (await createHarness(limits))
  const user = await harness.user()
  const key = await user.key()
  return { h: harness, key, userId: user.id, itemId: await itemWithText(harness, key, TEXT) }
}

const create = (p: Person, body: unknown, itemId = p.itemId) =>
  p.h.call('POST', `/v1/saved-items/${itemId}/highlights`, { token: p.key, body })
const listFor = async (p: Person, itemId = p.itemId) => {
  const reply = await p.h.call('GET', `/v1/saved-items/${itemId}/highlights`, { token: p.key })
  expect(reply.status).toBe(200)
  return reply.body.highlights as any[]
}
const highlightRows = (h: Harness) => countRows(h.db, 'highlights')
const nth = (text: string, needle: string, n: number) => {
  let at = -1
  for (let i = 0; i <= n; i++) at = text.indexOf(needle, at + 1)
  return at
}

describe('creating: anchoring the passage (docs/highlights.md#anchoring)', () => {
  test('by its position, among repeats; the answer is the whole highlight with the text’s own context', async () => {
    const p = await person()
    const start = nth(TEXT, 'memory safety', 1)
    const reply = await create(p, {
      quote: { exact: 'memory safety', prefix: 'whatever was sent', suffix: '' },
      position: { start, end: start + 13 },
      color: 'blue',
      note: 'Why it matters',
    })
    expect(reply.status).toBe(201)
    expect(reply.body).toEqual({
      highlight: {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        savedItemId: p.itemId,
        quote: {
          exact: 'memory safety',
          prefix: TEXT.slice(start - 32, start),
          suffix: TEXT.slice(start + 13, start + 45),
        },
        position: { start, end: start + 13 },
        color: 'blue',
        note: 'Why it matters',
        createdAt: p.h.clock.now().toISOString(),
        updatedAt: p.h.clock.now().toISOString(),
      },
    })
    expect(TEXT.slice(start, start + 13)).toBe('memory safety')
  })

  test('by its quote when no position is given or the text there differs: the first of repeats, yellow, no note', async () => {
    const p = await person()
    const none = await create(p, { quote: { exact: 'memory safety' } })
    expect(none.status).toBe(201)
    expect(none.body.highlight).toMatchObject({
      position: { start: nth(TEXT, 'memory safety', 0), end: nth(TEXT, 'memory safety', 0) + 13 },
      quote: {
        exact: 'memory safety',
        prefix: 'Memory safety is a property of some languages.\n\nRust gives '.slice(-32),
      },
      color: 'yellow',
      note: null,
    })
    const wrong = await create(p, { quote: { exact: 'garbage collector' }, position: { start: 0, end: 17 } })
    const at = TEXT.indexOf('garbage collector')
    expect(wrong.body.highlight.position).toEqual({ start: at, end: at + 17 })
    // Without context, a wrong position still picks the nearest repeat.
    const near = nth(TEXT, 'memory safety', 2)
    const nearest = await create(p, {
      quote: { exact: 'memory safety' },
      position: { start: near - 2, end: near + 11 },
    })
    expect(nearest.body.highlight.position).toEqual({ start: near, end: near + 13 })
    // At the very start of the text the prefix is empty; at its end the suffix.
    const first = await create(p, { quote: { exact: 'Memory' } })
    expect(first.body.highlight.quote).toEqual({ exact: 'Memory', prefix: '', suffix: TEXT.slice(6, 38) })
    const last = await create(p, { quote: { exact: "programmer's problem." } })
    expect(last.body.highlight.quote.suffix).toBe('')
  })

  test('among repeats by prefix and suffix', async () => {
    const p = await person()
    const go = await create(p, { quote: { exact: 'memory safety', prefix: 'Go gives ' } })
    expect(go.body.highlight.position.start).toBe(TEXT.indexOf('Go gives ') + 9)
    const c = await create(p, { quote: { exact: 'memory safety', suffix: " is the programmer's" } })
    expect(c.body.highlight.position.start).toBe(TEXT.indexOf('In C, ') + 6)
    // The context outweighs a position given elsewhere.
    const both = await create(p, {
      quote: { exact: 'memory safety', prefix: 'Rust gives ', suffix: ' without' },
      position: { start: 0, end: 13 },
    })
    expect(both.body.highlight.position.start).toBe(TEXT.indexOf('Rust gives ') + 11)
  })

  test('overlapping highlights are fine; the item lists them in text order', async () => {
    const p = await person()
    const sentence = { quote: { exact: 'Rust gives memory safety without a garbage collector.' } }
    const whole = (await create(p, sentence)).body.highlight
    p.h.clock.advance(1000)
    const inner = (await create(p, { quote: { exact: 'memory safety', prefix: 'Rust gives ' } })).body.highlight
    const early = (await create(p, { quote: { exact: 'Memory safety is' } })).body.highlight
    // The same passage twice: by creation.
    const same = (await create(p, sentence)).body.highlight
    expect((await listFor(p)).map((h) => h.id)).toEqual([early.id, whole.id, same.id, inner.id])
  })

  test('a quote the text does not contain: 422 HighlightAnchorError, nothing written', async () => {
    const p = await person()
    const before = await highlightRows(p.h)
    for (const quote of [{ exact: 'memory leaks' }, { exact: 'memory  safety' }, { exact: 'MEMORY SAFETY' }]) {
      const reply = await create(p, { quote, position: { start: 0, end: 12 } })
      expect(reply.status).toBe(422)
      expect(reply.body).toEqual({ _tag: 'HighlightAnchorError', message: expect.any(String), savedItemId: p.itemId })
    }
    expect(await highlightRows(p.h)).toBe(before)
  })
})

describe('limits (docs/highlights.md#limits): 400 ValidationError, nothing written', () => {
  test('exact 1–10,000, prefix and suffix 32, note 10,000, colours, positions, well-formed text', async () => {
    const long = 'x'.repeat(10_000)
    const p = await person()
    const itemId = await itemWithText(p.h, p.key, `${long} and more`)
    const bad: unknown[] = [
      { quote: { exact: '' } },
      { quote: { exact: `${long}x` } },
      { quote: { exact: 'x', prefix: 'p'.repeat(33) } },
      { quote: { exact: 'x', suffix: 's'.repeat(33) } },
      { quote: { exact: 'x' }, note: 'n'.repeat(10_001) },
      { quote: { exact: 'x' }, color: 'red' },
      { quote: { exact: 'x' }, position: { start: 5, end: 5 } },
      { quote: { exact: 'x' }, position: { start: 6, end: 5 } },
      { quote: { exact: 'x' }, position: { start: -1, end: 5 } },
      { quote: { exact: 'x' }, position: { start: 1.5, end: 5 } },
      { quote: { exact: 'x' }, position: { start: '1', end: 5 } },
      { quote: { exact: 'x\ud800' } },
      { quote: { exact: 'x' }, note: '\udc00' },
      { quote: {} },
      { quote: { exact: 'x' }, extra: true },
      { quote: { exact: 'x', other: 'y' } },
    ]
    for (const body of bad) {
      const reply = await create(p, body, itemId)
      expect({ body, status: reply.status, tag: reply.body._tag }).toEqual({
        body,
        status: 400,
        tag: 'ValidationError',
      })
    }
    expect(await highlightRows(p.h)).toBe(0)
    // At the limits, each is fine.
    expect((await create(p, { quote: { exact: long }, note: 'n'.repeat(10_000) }, itemId)).status).toBe(201)
    expect(
      (await create(p, { quote: { exact: 'x', prefix: 'x'.repeat(32), suffix: 'x'.repeat(32) } }, itemId)).status,
    ).toBe(201)
  })

  test('at most 1,000 highlights per item', async () => {
    const p = await person()
    // 999 written directly (as fast as a test can), the 1,000th through the API.
    await p.h.db.$client.execute({
      sql: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
        INSERT INTO highlights (id, user_id, saved_item_id, exact, prefix, suffix, start, "end", color, note, created_at, updated_at)
        SELECT printf('0000%04d-0000-7000-8000-000000000000', i), ?, ?, 'Memory', '', ' safety', 0, 6, 'yellow', NULL, ?, ? FROM n`,
      args: [p.userId, p.itemId, p.h.clock.now().toISOString(), p.h.clock.now().toISOString()],
    })
    expect((await create(p, { quote: { exact: 'Rust' } })).status).toBe(201)
    const over = await create(p, { quote: { exact: 'Go' } })
    expect(over.status).toBe(400)
    expect(over.body).toEqual({ _tag: 'ValidationError', message: expect.stringContaining('1,000') })
    expect(await highlightRows(p.h)).toBe(1_000)
    // Another item of the same person has its own thousand.
    const other = await itemWithText(p.h, p.key, TEXT)
    expect((await create(p, { quote: { exact: 'Go' } }, other)).status).toBe(201)
  })
})

describe('not found (docs/highlights.md#errors)', () => {
  test('no such item, another person’s item, an item without article; no such highlight, another person’s', async () => {
    const a = await person()
    const b = await person(a.h)
    const mine = (await create(a, { quote: { exact: 'Rust' }, note: 'a’s' })).body.highlight
    const missing = '01a20000-0000-7000-8000-000000000000'
    for (const itemId of [missing, b.itemId]) {
      const created = await create(a, { quote: { exact: 'Rust' } }, itemId)
      expect(created.status).toBe(404)
      expect(created.body).toEqual({ _tag: 'SavedItemNotFoundError', message: expect.any(String), savedItemId: itemId })
      const listed = await a.h.call('GET', `/v1/saved-items/${itemId}/highlights`, { token: a.key })
      expect(listed.body).toEqual({ _tag: 'SavedItemNotFoundError', message: expect.any(String), savedItemId: itemId })
    }
    const pending = (
      await a.h.call('POST', '/v1/captures', { token: a.key, body: { url: 'https://example.com/pending' } })
    ).body.savedItem.id
    const noArticle = await create(a, { quote: { exact: 'Rust' } }, pending)
    expect(noArticle.status).toBe(404)
    expect(noArticle.body).toEqual({ _tag: 'ContentNotFoundError', message: expect.any(String), savedItemId: pending })
    expect(await listFor(a, pending)).toEqual([])
    for (const id of [missing, mine.id]) {
      const token = id === mine.id ? b.key : a.key
      const patched = await a.h.call('PATCH', `/v1/highlights/${id}`, { token, body: { note: 'taken over' } })
      expect(patched.status).toBe(404)
      expect(patched.body).toEqual({ _tag: 'HighlightNotFoundError', message: expect.any(String), highlightId: id })
      const deleted = await a.h.call('DELETE', `/v1/highlights/${id}`, { token })
      expect(deleted.body).toEqual({ _tag: 'HighlightNotFoundError', message: expect.any(String), highlightId: id })
    }
    expect((await listFor(a)).map((h) => [h.id, h.note])).toEqual([[mine.id, 'a’s']])
  })

  test('every person’s highlights are invisible to everyone else', async () => {
    const a = await person()
    const b = await person(a.h)
    await create(a, { quote: { exact: 'Rust' } })
    const theirs = (await create(b, { quote: { exact: 'Go' } })).body.highlight
    const all = await b.h.call('GET', '/v1/highlights', { token: b.key })
    expect(all.body.highlights.map((h: any) => h.id)).toEqual([theirs.id])
    expect((await listFor(b)).map((h) => h.id)).toEqual([theirs.id])
  })
})

describe('GET /v1/highlights: newest first, paged as GET /v1/saved-items is', () => {
  test('limit and cursor with Link rel="next"; without limit, all; each with its item', async () => {
    const p = await person()
    const other = await itemWithText(p.h, p.key, 'Another article about memory.', 'https://example.com/other')
    await p.h.db.$client.execute({ sql: "UPDATE saved_items SET title = 'Other' WHERE id = ?", args: [other] })
    const created: { id: string; createdAt: string }[] = []
    for (const [i, exact] of ['Rust', 'Go', 'memory', 'C', 'collector'].entries()) {
      created.push((await create(p, { quote: { exact } }, i === 2 ? other : p.itemId)).body.highlight)
      p.h.clock.advance(i === 1 ? 0 : 1000) // two created at the same instant: ordered by id
    }
    const newestFirst = created
      .sort((x, y) => y.createdAt.localeCompare(x.createdAt) || y.id.localeCompare(x.id))
      .map((h) => h.id)
    expect(created.filter((h) => h.createdAt === created[2]!.createdAt).length).toBe(2)
    const everything = await p.h.call('GET', '/v1/highlights', { token: p.key })
    expect(everything.headers.get('link')).toBeNull()
    const all = everything.body.highlights
    expect(all.map((h: any) => h.id)).toEqual(newestFirst)
    expect(all.find((h: any) => h.quote.exact === 'memory').savedItem).toEqual({
      id: other,
      title: 'Other',
      normalizedUrl: 'https://example.com/other',
    })
    expect(all.find((h: any) => h.quote.exact === 'Rust').savedItem).toEqual({
      id: p.itemId,
      title: null,
      normalizedUrl: expect.stringMatching(/^https:\/\/example\.com\//),
    })
    const paged: string[] = []
    let path: string | null = '/v1/highlights?limit=2'
    let pages = 0
    while (path) {
      const reply = await p.h.call('GET', path, { token: p.key })
      expect(reply.status).toBe(200)
      expect(reply.body.highlights.length).toBeLessThanOrEqual(2)
      paged.push(...reply.body.highlights.map((h: any) => h.id))
      const link = reply.headers.get('link')
      if (link) {
        expect(link).toMatch(/^<http:\/\/localhost:3000\/v1\/highlights\?limit=2&cursor=[A-Za-z0-9_-]+>; rel="next"$/)
        path = new URL(/<([^>]+)>/.exec(link)![1]!).pathname + new URL(/<([^>]+)>/.exec(link)![1]!).search
      } else path = null
      pages++
    }
    expect(pages).toBe(3)
    expect(paged).toEqual(all.map((h: any) => h.id))
    // A highlight added while paging never shifts a page (keyset cursor).
    const first = await p.h.call('GET', '/v1/highlights?limit=2', { token: p.key })
    await create(p, { quote: { exact: 'Memory' } })
    const next = /<([^>]+)>/.exec(first.headers.get('link')!)![1]!
    const second = await p.h.call('GET', next.slice('http://localhost:3000'.length), { token: p.key })
    expect(second.body.highlights.map((h: any) => h.id)).toEqual(paged.slice(2, 4))
  })

  test('a bad limit or cursor is 400 ValidationError', async () => {
    const p = await person()
    for (const query of ['limit=0', 'limit=501', 'limit=x', 'cursor=nope', `cursor=${btoa('["newest","a","b"]')}`]) {
      const reply = await p.h.call('GET', `/v1/highlights?${query}`, { token: p.key })
      expect({ query, status: reply.status, tag: reply.body._tag }).toEqual({
        query,
        status: 400,
        tag: 'ValidationError',
      })
    }
  })
})

describe('PATCH and DELETE', () => {
  test('colour and note; a blank note is null; null clears; a patch that changes nothing writes nothing', async () => {
    const p = await person()
    const created = (await create(p, { quote: { exact: 'Rust' }, note: '   ' })).body.highlight
    expect(created.note).toBeNull()
    const patch = (body: unknown) => p.h.call('PATCH', `/v1/highlights/${created.id}`, { token: p.key, body })
    p.h.clock.advance(60_000)
    const later = p.h.clock.now().toISOString()
    for (const body of [{ color: 'yellow' }, { note: null }, { note: '' }, { color: 'yellow', note: ' \n' }]) {
      const same = await patch(body)
      expect(same.status).toBe(200)
      expect(same.body.highlight).toEqual(created)
    }
    const noted = await patch({ note: ' A thought ' })
    expect(noted.body.highlight).toEqual({ ...created, note: ' A thought ', updatedAt: later })
    p.h.clock.advance(1000)
    expect((await patch({ note: ' A thought ', color: 'yellow' })).body.highlight.updatedAt).toBe(later)
    const green = await patch({ color: 'green' })
    expect(green.body.highlight).toMatchObject({
      color: 'green',
      note: ' A thought ',
      updatedAt: p.h.clock.now().toISOString(),
    })
    expect((await patch({ note: null })).body.highlight.note).toBeNull()
    for (const body of [{}, { color: 'red' }, { note: 5 }, { quote: { exact: 'Go' } }, { color: null }]) {
      const refused = await patch(body)
      expect({ body, status: refused.status, tag: refused.body._tag }).toEqual({
        body,
        status: 400,
        tag: 'ValidationError',
      })
    }
    // The passage itself is never patched.
    expect((await listFor(p))[0]).toMatchObject({ quote: created.quote, position: created.position })
  })

  test('delete answers 204, then the highlight is gone (404 again)', async () => {
    const p = await person()
    const kept = (await create(p, { quote: { exact: 'Go' } })).body.highlight
    const gone = (await create(p, { quote: { exact: 'Rust' } })).body.highlight
    const deleted = await p.h.call('DELETE', `/v1/highlights/${gone.id}`, { token: p.key })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expect((await listFor(p)).map((h) => h.id)).toEqual([kept.id])
    expect((await p.h.call('DELETE', `/v1/highlights/${gone.id}`, { token: p.key })).status).toBe(404)
  })
})

// docs/highlights.md#re-anchoring: a recapture with different `html` is extracted again, and every highlight
// of the item is found again in the new text, in the same transaction as the article.
const page = (paragraphs: string[]) =>
  `<!doctype html><html lang="en"><head><title>Borrowing</title></head><body><article><h1>Borrowing</h1>${paragraphs
    .map((text) => `<p>${text}</p>`)
    .join('')}</article></body></html>`
const KEPT =
  'The borrow checker enforces that every reference is valid for as long as it is used, and that no two parts of a program change the same data at once.'
const REMOVED =
  'Lifetimes are the names the compiler gives to the regions of code where a reference must stay valid, and most of them are never written out.'
const EDITED =
  'Unsafe blocks let a programmer promise what the compiler cannot check, which keeps the rest of the program honest about where the risks live.'
const FILLER =
  'Every article here is long enough for the extractor to take it as an article rather than as a fragment of navigation or a footer line.'

describe('re-anchoring after the article is extracted again', () => {
  test('a recapture with different html: a moved passage keeps its highlight at its new place, an edited one is found approximately, a removed one has position null and keeps its note', async () => {
    const s: Setup = await setup()
    startWorkers(s, async (url) => {
      throw new Error(`unexpected fetch of ${url}`)
    })
    const url = 'https://example.com/borrowing'
    const content = async (differentFrom?: string) =>
      waitFor('the article', async () => {
        const reply = await s.h.call('GET', `/v1/saved-items/${itemId}/content`, { token: s.key })
        return reply.status === 200 && reply.body.extractedAt !== differentFrom ? reply.body : null
      })
    const first = await s.h.call('POST', '/v1/captures', {
      token: s.key,
      body: { url, html: page([FILLER, KEPT, REMOVED, EDITED, FILLER]) },
    })
    const itemId = first.body.savedItem.id as string
    const before = await content()
    const p: Person = { h: s.h, key: s.key, userId: '', itemId }
    const kept = (await create(p, { quote: { exact: 'every reference is valid' }, color: 'green', note: 'keep' })).body
      .highlight
    const removed = (
      await create(p, { quote: { exact: 'regions of code where a reference must stay valid' }, note: 'gone?' })
    ).body.highlight
    const edited = (await create(p, { quote: { exact: EDITED } })).body.highlight
    expect(before.text.slice(kept.position.start, kept.position.end)).toBe('every reference is valid')

    s.h.clock.advance(5000)
    const newEdited = EDITED.replace('let a programmer promise', 'let a programmer make a promise about')
    const again = await s.h.call('POST', '/v1/captures', {
      token: s.key,
      body: {
        url,
        html: page([
          'A new opening paragraph, added since the first save, moves everything after it.',
          FILLER,
          KEPT,
          newEdited,
          FILLER,
        ]),
      },
    })
    expect(again.status).toBe(200)
    const after = await content(before.extractedAt)
    const listed = await listFor(p)
    const byId = new Map(listed.map((h) => [h.id, h]))
    const moved = byId.get(kept.id)
    expect(moved.position.start).toBeGreaterThan(kept.position.start)
    expect(after.text.slice(moved.position.start, moved.position.end)).toBe('every reference is valid')
    expect(moved).toMatchObject({
      quote: kept.quote,
      color: 'green',
      note: 'keep',
      updatedAt: s.h.clock.now().toISOString(),
    })
    const fuzzy = byId.get(edited.id)
    expect(fuzzy.position).not.toBeNull()
    expect(after.text.slice(fuzzy.position.start, fuzzy.position.end)).toBe(newEdited)
    expect(fuzzy.quote).toEqual(edited.quote)
    const orphan = byId.get(removed.id)
    expect(orphan).toEqual({ ...removed, position: null, updatedAt: s.h.clock.now().toISOString() })
    // Orphans come last in text order.
    expect(listed.map((h) => h.id)).toEqual([kept.id, edited.id, removed.id])

    // A later extraction that has the passage again finds the orphan again.
    s.h.clock.advance(5000)
    await s.h.call('POST', '/v1/captures', { token: s.key, body: { url, html: page([FILLER, KEPT, REMOVED, FILLER]) } })
    const third = await content(after.extractedAt)
    const back = (await listFor(p)).find((h) => h.id === removed.id)
    expect(third.text.slice(back.position.start, back.position.end)).toBe(removed.quote.exact)
  })
})

describe('when the item or the person goes', () => {
  test('deleting the item deletes its highlights', async () => {
    const p = await person()
    await create(p, { quote: { exact: 'Rust' } })
    expect(await highlightRows(p.h)).toBe(1)
    expect((await p.h.call('DELETE', `/v1/saved-items/${p.itemId}`, { token: p.key })).status).toBe(204)
    expect(await highlightRows(p.h)).toBe(0)
  })

  test('the web queue’s Delete and Undo bring the highlights back exactly (ids, notes, colours, positions, times)', async () => {
    const w = await signedInWithKey('highlights-undo@example.com')
    const p: Person = { h: w.h, key: w.key, userId: w.userId, itemId: await itemWithText(w.h, w.key, TEXT) }
    await create(p, { quote: { exact: 'Rust' }, color: 'pink', note: 'first' })
    p.h.clock.advance(1000)
    const second = (await create(p, { quote: { exact: 'memory safety', prefix: 'Go gives ' } })).body.highlight
    p.h.clock.advance(1000)
    await p.h.call('PATCH', `/v1/highlights/${second.id}`, { token: p.key, body: { note: 'edited later' } })
    const before = await listFor(p)
    const all = (await p.h.call('GET', '/v1/highlights', { token: p.key })).body
    expect((await w.web.post(`/queue/items/${p.itemId}/delete`, {})).status).toBe(303)
    expect(await highlightRows(p.h)).toBe(0)
    expect((await w.web.post(`/queue/items/${p.itemId}/restore`, {})).location).toBe('/?done=restored')
    expect(await listFor(p)).toEqual(before)
    expect((await p.h.call('GET', '/v1/highlights', { token: p.key })).body).toEqual(all)
  })

  test('deleting the account leaves none of its highlights, and every other person’s', async () => {
    const a = await person()
    const b = await person(a.h)
    await create(a, { quote: { exact: 'Rust' } })
    await create(b, { quote: { exact: 'Go' } })
    expect(await deleteAccount(a.h.db, a.userId)).toBe(true)
    const left = await a.h.db.$client.execute('SELECT user_id FROM highlights')
    expect(left.rows.map((row) => row.user_id)).toEqual([b.userId])
  })
})
