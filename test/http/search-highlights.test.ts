import { describe, expect, test } from 'bun:test'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { BODY_INDEX_CHARS, catchUpSearchIndex } from '../../adapters/storage/search-index.ts'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'

// docs/search.md, docs/highlights.md#search: the index holds each item's highlights (their quotes and notes), so a
// word only in a highlight or a note finds the item; `has:highlights`; the index kept fresh through the due list
// (migration 0015's triggers on highlights). On the three drivers (test:libsql and test:client run this folder).

interface World {
  h: Harness
  key: string
  /** Saves a URL with a title and an article text, as enrichment would store them. */
  item(title: string, text?: string): Promise<string>
  highlight(itemId: string, body: Record<string, unknown>): Promise<any>
  search(q: string): Promise<{ status: number; body: any }>
  ids(q: string): Promise<string[]>
}

async function world(h?: Harness): Promise<World> {
  const harness = h ?? (await createHarness({ env: { RATE_LIMIT_MAX: '100000' } }))
  const key = await (await harness.user()).key()
  const w: World = {
    h: harness,
    key,
    async item(title, text) {
      harness.clock.advance(1000)
      const reply = await harness.call('POST', '/v1/captures', {
        token: key,
        body: { url: `https://example.com/${crypto.randomUUID()}` },
      })
      const id = reply.body.savedItem.id as string
      await harness.db.$client.execute({ sql: 'UPDATE saved_items SET title = ? WHERE id = ?', args: [title, id] })
      if (text !== undefined)
        await harness.db.$client.execute({
          sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p></p>', ?, '2026-01-01T00:00:00.000Z')",
          args: [id, text],
        })
      return id
    },
    async highlight(itemId, body) {
      const reply = await harness.call('POST', `/v1/saved-items/${itemId}/highlights`, { token: key, body })
      expect(reply.status).toBe(201)
      return reply.body.highlight
    },
    async search(q) {
      const reply = await harness.call('GET', `/v1/search?q=${encodeURIComponent(q)}`, { token: key })
      return { status: reply.status, body: reply.body }
    },
    async ids(q) {
      const reply = await w.search(q)
      expect(reply.status).toBe(200)
      return reply.body.results.map((result: any) => result.savedItem.id)
    },
  }
  return w
}

const ARTICLE = 'Rust gives memory safety without a garbage collector. Go gives memory safety with one.'

describe('highlights and notes are searched', () => {
  test('a word only in a note finds the item, its snippet from the note', async () => {
    const w = await world()
    const item = await w.item('Languages', ARTICLE)
    await w.item('Other', ARTICLE)
    await w.highlight(item, { quote: { exact: 'garbage collector' }, note: 'Compare with the zebrafish runtime' })
    const found = await w.search('zebrafish')
    expect(found.body.results.map((r: any) => r.savedItem.id)).toEqual([item])
    expect(found.body.results[0].snippet).toBe('Compare with the «zebrafish» runtime')
    // A phrase of the note, and the note's words as a prefix.
    expect(await w.ids('"zebrafish runtime"')).toEqual([item])
    // The last word typed is a prefix, as everywhere.
    expect(await w.ids('zebraf')).toEqual([item])
  })

  test('a passage past the indexed part of a long article, once highlighted, is found; so is an orphan’s quote', async () => {
    const w = await world()
    const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(BODY_INDEX_CHARS / 27) + 10)
    const long = `${filler}The quokka appears only here, past what the index reads of an article.`
    const item = await w.item('A long read', long)
    expect(await w.ids('quokka')).toEqual([])
    await w.highlight(item, { quote: { exact: 'The quokka appears only here' } })
    const found = await w.search('quokka')
    expect(found.body.results.map((r: any) => r.savedItem.id)).toEqual([item])
    expect(found.body.results[0].snippet).toBe('The «quokka» appears only here')

    // The article extracted again without the passage: the highlight is kept (position null), and so is its
    // quote in the index, so the item is still found by what the person marked.
    const orphan = await w.item('Changing', ARTICLE.replace('garbage collector', 'tracing collector'))
    const marked = await w.highlight(orphan, { quote: { exact: 'tracing collector' } })
    await storeArticle(
      w.h.db,
      orphan,
      { title: null, byline: null, siteName: null, lang: null, wordCount: 1, html: '<p>x</p>', text: ARTICLE },
      w.h.clock.now().toISOString(),
      null,
    )
    const listed = (await w.h.call('GET', `/v1/saved-items/${orphan}/highlights`, { token: w.key })).body.highlights
    expect(listed).toEqual([{ ...marked, position: null, updatedAt: listed[0].updatedAt }])
    expect(await w.ids('tracing')).toEqual([orphan])
  })

  test('what the person highlighted or noted ranks above the same word deep in another article', async () => {
    const w = await world()
    const inArticle = await w.item('Notes on animals', `${'Some text about animals. '.repeat(20)}An okapi.`)
    const inNote = await w.item('Notes on forests', `${'Some text about forests. '.repeat(20)}`)
    await w.highlight(inNote, { quote: { exact: 'Some text about forests.' }, note: 'okapi habitat' })
    expect(await w.ids('okapi')).toEqual([inNote, inArticle])
  })
})

describe('has:highlights', () => {
  test('items with at least one highlight, alone or with words and other filters; unknown has: values are 400', async () => {
    const w = await world()
    const marked = await w.item('Rust memory', 'Rust has no garbage collector.')
    const plain = await w.item('Rust plain', 'Rust again, never highlighted.')
    const unread = await w.item('Go memory', 'Go gives memory safety.')
    await w.highlight(marked, { quote: { exact: 'Rust' } })
    await w.highlight(unread, { quote: { exact: 'Go gives' } })
    await w.h.call('POST', `/v1/saved-items/${marked}/read`, { token: w.key })
    const all = await w.search('has:highlights')
    expect(all.status).toBe(200)
    // Filters only: newest first, no snippet.
    expect(all.body.results.map((r: any) => [r.savedItem.id, r.snippet])).toEqual([
      [unread, null],
      [marked, null],
    ])
    expect((await w.ids('rust has:highlights')).sort()).toEqual([marked])
    expect(await w.ids('has:highlights is:unread')).toEqual([unread])
    expect(await w.ids('HAS:highlights -go')).toEqual([marked])
    expect(await w.ids('rust')).toContain(plain)
    for (const q of ['has:notes', 'has:', 'has:highlight']) {
      const refused = await w.search(q)
      expect(refused.status).toBe(400)
      expect(refused.body).toEqual({ _tag: 'ValidationError', message: expect.stringContaining('has:highlights') })
    }
    // Another person's highlights make none of their items, nor any of mine, match.
    const other = await world(w.h)
    const theirs = await other.item('Rust theirs', 'Rust, theirs.')
    await other.highlight(theirs, { quote: { exact: 'Rust' } })
    expect((await w.ids('has:highlights')).sort()).toEqual([marked, unread].sort())
    expect(await other.ids('has:highlights')).toEqual([theirs])
    // The item with its last highlight deleted no longer has highlights.
    const [only] = (await w.h.call('GET', `/v1/saved-items/${unread}/highlights`, { token: w.key })).body.highlights
    await w.h.call('DELETE', `/v1/highlights/${only.id}`, { token: w.key })
    expect(await w.ids('has:highlights')).toEqual([marked])
  })
})

describe('the index stays fresh', () => {
  test('a note edited, a highlight deleted: the next search sees it', async () => {
    const w = await world()
    const item = await w.item('Fresh', ARTICLE)
    const note = await w.highlight(item, { quote: { exact: 'Rust' }, note: 'about the axolotl' })
    expect(await w.ids('axolotl')).toEqual([item])
    await w.h.call('PATCH', `/v1/highlights/${note.id}`, { token: w.key, body: { note: 'about the narwhal' } })
    expect(await w.ids('axolotl')).toEqual([])
    expect(await w.ids('narwhal')).toEqual([item])
    // A colour change is not indexed text: the item is not made due for it.
    await catchUpSearchIndex(w.h.db)
    await w.h.call('PATCH', `/v1/highlights/${note.id}`, { token: w.key, body: { color: 'blue' } })
    expect(await countRows(w.h.db, 'search_pending')).toBe(0)
    await w.h.call('DELETE', `/v1/highlights/${note.id}`, { token: w.key })
    expect(await countRows(w.h.db, 'search_pending')).toBe(1)
    expect(await w.ids('narwhal')).toEqual([])
    // The item itself is still found by its own text.
    expect(await w.ids('rust')).toEqual([item])
  })

  test('deleting an item with highlights leaves nothing due: the item left the index in its own statement', async () => {
    const w = await world()
    const item = await w.item('Gone soon')
    await w.h.db.$client.execute({
      sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p></p>', ?, '2026-01-01T00:00:00.000Z')",
      args: [item, ARTICLE],
    })
    await w.highlight(item, { quote: { exact: 'Rust' }, note: 'a pangolin' })
    await w.highlight(item, { quote: { exact: 'Go' } })
    // The article goes (as an extraction that finds none); the highlights stay, orphaned.
    await storeArticle(w.h.db, item, null, w.h.clock.now().toISOString(), null)
    expect(await w.ids('pangolin')).toEqual([item])
    expect(await countRows(w.h.db, 'search_pending')).toBe(0)
    expect((await w.h.call('DELETE', `/v1/saved-items/${item}`, { token: w.key })).status).toBe(204)
    expect(await countRows(w.h.db, 'search_pending')).toBe(0)
    expect(await w.ids('pangolin')).toEqual([])
  })
})
