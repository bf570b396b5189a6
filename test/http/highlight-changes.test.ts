import { describe, expect, test } from 'bun:test'
import { readChanges } from '../../adapters/storage/changes.ts'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { deleteAccount } from '../../adapters/storage/delete-account.ts'
import { startImportWorker } from '../../adapters/jobs/import-worker.ts'
import { createHarness, random, type Harness, type TestUser } from '../helpers/harness.ts'
import { signedInWithKey } from '../web/fixtures.ts'

// docs/highlights.md#changes-feed-and-webhooks, docs/api.md#changes: highlights in GET /v1/changes, on the three
// drivers (package.json's test:libsql and test:client run this folder). Every entry comes from the triggers of
// migration 0015, in the transaction of the change: REST writes, re-anchoring in storeArticle, an item's
// deletion (whose foreign key deletes its highlights), the web queue's Undo, an import.

const TEXT =
  'Memory safety is a property of some languages.\n\nRust gives memory safety without a garbage collector. ' +
  "Go gives memory safety with one.\n\nIn C, memory safety is the programmer's problem."

interface Reader {
  h: Harness
  key: string
  userId: string
  user?: TestUser
}

const limits = { env: { RATE_LIMIT_MAX: '1000000', IP_RATE_LIMIT_MAX: '1000000' } }

async function reader(h?: Harness): Promise<Reader> {
  const harness = h ?? (await createHarness(limits))
  const user = await harness.user()
  return { h: harness, key: await user.key(), userId: user.id, user }
}

/** A saved item whose article text is `text`, as enrichment would store it. */
async function itemWithText(r: Reader, text = TEXT, url = `https://example.com/${crypto.randomUUID()}`) {
  const capture = await r.h.call('POST', '/v1/captures', { token: r.key, body: { url } })
  expect(capture.status).toBe(201)
  const id = capture.body.savedItem.id as string
  await r.h.db.$client.execute({
    sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p>x</p>', ?, ?)",
    args: [id, text, capture.body.savedItem.createdAt],
  })
  return id
}

async function highlight(r: Reader, itemId: string, body: Record<string, unknown>) {
  const reply = await r.h.call('POST', `/v1/saved-items/${itemId}/highlights`, { token: r.key, body })
  expect(reply.status).toBe(201)
  return reply.body.highlight
}

const feed = (r: Reader, since?: string, key = r.key) =>
  r.h.call('GET', `/v1/changes${since === undefined ? '' : `?since=${encodeURIComponent(since)}`}`, { token: key })

/** Reads the feed from `since` until a page says nothing more is waiting. */
async function drain(r: Reader, since?: string, key = r.key): Promise<{ changes: any[]; cursor: string }> {
  const changes: any[] = []
  let cursor = since
  for (;;) {
    const reply = await feed(r, cursor, key)
    expect(reply.status).toBe(200)
    changes.push(...reply.body.changes)
    cursor = reply.body.cursor
    if (!reply.body.hasMore) return { changes, cursor: cursor! }
  }
}

const brief = (changes: any[]) => changes.map((c) => `${c.kind}:${c.op}:${c.id}`)
const itemHighlights = async (r: Reader, itemId: string) =>
  (await r.h.call('GET', `/v1/saved-items/${itemId}/highlights`, { token: r.key })).body.highlights as any[]
const logRows = async (r: Reader, id: string) =>
  Number(
    (
      await r.h.db.$client.execute({
        sql: "SELECT count(*) AS n FROM changes WHERE kind = 'highlight' AND entity_id = ?",
        args: [id],
      })
    ).rows[0]!.n,
  )

describe('highlights in the changes feed', () => {
  test('create, a real change, a no-op patch and delete: each change once, the highlight as REST shows it', async () => {
    const r = await reader()
    const itemId = await itemWithText(r)
    const { cursor } = await drain(r)

    const created = await highlight(r, itemId, { quote: { exact: 'garbage collector' }, note: 'GC' })
    const first = await feed(r, cursor)
    expect(first.body.changes).toEqual([{ kind: 'highlight', id: created.id, op: 'upsert', highlight: created }])
    // The entry's highlight is the DTO exactly: the same fields in the same order as REST's.
    expect(JSON.stringify(first.body.changes[0].highlight)).toBe(JSON.stringify((await itemHighlights(r, itemId))[0]))

    r.h.clock.advance(1000)
    const patched = (
      await r.h.call('PATCH', `/v1/highlights/${created.id}`, { token: r.key, body: { color: 'pink', note: 'GC!' } })
    ).body.highlight
    expect(patched.updatedAt).toBe(r.h.clock.now().toISOString())
    // The same colour and note again: no change, no entry (docs/api.md#no-op-writes).
    r.h.clock.advance(1000)
    await r.h.call('PATCH', `/v1/highlights/${created.id}`, { token: r.key, body: { color: 'pink', note: 'GC!' } })
    await r.h.call('PATCH', `/v1/highlights/${created.id}`, { token: r.key, body: { note: 'GC!' } })
    const second = await feed(r, first.body.cursor)
    expect(second.body.changes).toEqual([{ kind: 'highlight', id: created.id, op: 'upsert', highlight: patched }])
    expect((await feed(r, second.body.cursor)).body.changes).toEqual([])

    expect((await r.h.call('DELETE', `/v1/highlights/${created.id}`, { token: r.key })).status).toBe(204)
    const third = await feed(r, second.body.cursor)
    expect(third.body.changes).toEqual([{ kind: 'highlight', id: created.id, op: 'delete' }])
    // Created, changed once (not three times), deleted.
    expect(await logRows(r, created.id)).toBe(3)
    // Each highlight once per page, where it last changed, as it is at read time: here, gone.
    expect(brief((await feed(r, cursor)).body.changes)).toEqual([`highlight:delete:${created.id}`])
  })

  test('without since: every folder, then item, then highlight, each kind by id; a key without folders:read sees items and highlights', async () => {
    const r = await reader()
    const folder = (await r.h.call('POST', '/v1/folders', { token: r.key, body: { name: 'Later' } })).body
    const a = await itemWithText(r)
    const b = await itemWithText(r)
    const h1 = await highlight(r, b, { quote: { exact: 'Rust' } })
    const h2 = await highlight(r, a, { quote: { exact: 'Go gives' }, color: 'green' })
    const h3 = await highlight(r, a, { quote: { exact: 'programmer' }, note: 'who else?' })
    const snapshot = await drain(r)
    expect(brief(snapshot.changes)).toEqual([
      `folder:upsert:${folder.id}`,
      ...[a, b].sort().map((id) => `saved-item:upsert:${id}`),
      ...[h1.id, h2.id, h3.id].sort().map((id) => `highlight:upsert:${id}`),
    ])
    const byId = new Map(snapshot.changes.map((c) => [c.id, c]))
    expect(byId.get(h3.id).highlight).toEqual(h3)
    expect(byId.get(h2.id).highlight).toEqual(h2)

    const itemsOnly = await (await r.h.user()).key(['saved-items:read']) // another person: an empty library
    expect((await feed(r, undefined, itemsOnly)).body.changes).toEqual([])
    const mineItemsOnly = await r.user!.key(['saved-items:read'])
    const narrow = await drain(r, undefined, mineItemsOnly)
    expect(brief(narrow.changes)).toEqual(brief(snapshot.changes).slice(1))
    // The log too: highlight entries need saved-items:read only.
    await r.h.call('PATCH', `/v1/highlights/${h1.id}`, { token: r.key, body: { note: 'seen' } })
    await r.h.call('PATCH', `/v1/folders/${folder.id}`, { token: r.key, body: { name: 'Soon' } })
    expect(brief((await feed(r, narrow.cursor, mineItemsOnly)).body.changes)).toEqual([`highlight:upsert:${h1.id}`])
    expect(brief((await feed(r, narrow.cursor)).body.changes)).toEqual([
      `highlight:upsert:${h1.id}`,
      `folder:upsert:${folder.id}`,
    ])
    // The feed needs saved-items:read, as before.
    expect((await feed(r, undefined, await r.user!.key(['folders:read']))).status).toBe(403)
  })

  test('the snapshot pages across kinds: every entity once, in order, whatever the page size', async () => {
    const r = await reader()
    for (const name of ['F1', 'F2']) await r.h.call('POST', '/v1/folders', { token: r.key, body: { name } })
    const items = [await itemWithText(r), await itemWithText(r), await itemWithText(r)]
    for (const item of items) await highlight(r, item, { quote: { exact: 'memory safety' } })
    await highlight(r, items[0]!, { quote: { exact: 'Rust' } })
    const all = await readChanges(r.h.db, r.userId, null, true, 500)
    expect(all.changes.map((c) => c.kind)).toEqual([
      'folder',
      'folder',
      'saved-item',
      'saved-item',
      'saved-item',
      'highlight',
      'highlight',
      'highlight',
      'highlight',
    ])
    // A page that fills up exactly at the end of one kind goes on at the start of the next, not inside it.
    for (const size of [1, 2, 3, 4, 5, 8, 9]) {
      for (const withFolders of [true, false]) {
        const seen: string[] = []
        let position = null
        let pages = 0
        for (;;) {
          const page = await readChanges(r.h.db, r.userId, position, withFolders, size)
          seen.push(...page.changes.map((c) => `${c.kind}:${c.id}`))
          position = page.next
          pages++
          if (!page.hasMore) break
        }
        const expected = all.changes.filter((c) => withFolders || c.kind !== 'folder').map((c) => `${c.kind}:${c.id}`)
        expect({ size, withFolders, seen }).toEqual({ size, withFolders, seen: expected })
        expect(pages).toBe(Math.max(1, Math.ceil(expected.length / size)))
        expect(position).toMatchObject({ phase: 'log' })
      }
    }
  })

  test('re-anchoring that moves a highlight, or loses it, is a change; one that finds it where it was is none', async () => {
    const r = await reader()
    const itemId = await itemWithText(r)
    const kept = await highlight(r, itemId, { quote: { exact: 'garbage collector' } })
    const lost = await highlight(r, itemId, { quote: { exact: "programmer's problem" } })
    const { cursor } = await drain(r)
    const article = (text: string) => ({
      title: null,
      byline: null,
      siteName: null,
      lang: null,
      wordCount: 1,
      html: '<p>x</p>',
      text,
    })

    // The same text: every highlight found where it was, nothing written.
    r.h.clock.advance(1000)
    await storeArticle(r.h.db, itemId, article(TEXT), r.h.clock.now().toISOString(), null)
    expect((await feed(r, cursor)).body.changes).toEqual([])

    // A paragraph added above moves both; the second one's passage is gone from the new text.
    r.h.clock.advance(1000)
    const moved = `A new first paragraph.\n\n${TEXT.replace("In C, memory safety is the programmer's problem.", 'The end.')}`
    await storeArticle(r.h.db, itemId, article(moved), r.h.clock.now().toISOString(), null)
    const page = await feed(r, cursor)
    const now = r.h.clock.now().toISOString()
    const start = moved.indexOf('garbage collector')
    expect(page.body.changes).toEqual([
      {
        kind: 'highlight',
        id: kept.id,
        op: 'upsert',
        highlight: { ...kept, position: { start, end: start + 17 }, updatedAt: now },
      },
      { kind: 'highlight', id: lost.id, op: 'upsert', highlight: { ...lost, position: null, updatedAt: now } },
    ])

    // No article any more: the one still anchored is now orphaned too; the orphan stays as it is (no entry).
    r.h.clock.advance(1000)
    await storeArticle(r.h.db, itemId, null, r.h.clock.now().toISOString(), null)
    const orphaned = await feed(r, page.body.cursor)
    expect(brief(orphaned.body.changes)).toEqual([`highlight:upsert:${kept.id}`])
    expect(orphaned.body.changes[0].highlight.position).toBeNull()
  })

  test('deleting an item tells the feed its highlights are gone (the foreign key’s cascade fires their triggers)', async () => {
    const r = await reader()
    const itemId = await itemWithText(r)
    const other = await itemWithText(r)
    const a = await highlight(r, itemId, { quote: { exact: 'Rust' } })
    const b = await highlight(r, itemId, { quote: { exact: 'Go' }, note: 'n' })
    const untouched = await highlight(r, other, { quote: { exact: 'Rust' } })
    const { cursor } = await drain(r)
    expect((await r.h.call('DELETE', `/v1/saved-items/${itemId}`, { token: r.key })).status).toBe(204)
    const page = await feed(r, cursor)
    // The highlights go before the item (SQLite runs the cascade before the item's own AFTER DELETE trigger).
    expect(brief(page.body.changes).sort()).toEqual(
      [`highlight:delete:${a.id}`, `highlight:delete:${b.id}`, `saved-item:delete:${itemId}`].sort(),
    )
    expect(page.body.changes.at(-1)).toEqual({ kind: 'saved-item', id: itemId, op: 'delete' })
    expect(brief((await drain(r)).changes)).toContain(`highlight:upsert:${untouched.id}`)
  })

  test('the web queue’s Delete then Undo: deletions, then the item and its highlights again, as they were', async () => {
    const w = await signedInWithKey('highlight-changes-undo@example.com', await createHarness(limits))
    const r: Reader = { h: w.h, key: w.key, userId: w.userId }
    const itemId = await itemWithText(r)
    const a = await highlight(r, itemId, { quote: { exact: 'Rust' }, color: 'blue', note: 'kept' })
    const b = await highlight(r, itemId, { quote: { exact: 'memory safety', prefix: 'Go gives ' } })
    const { cursor } = await drain(r)
    expect((await w.web.post(`/queue/items/${itemId}/delete`, {})).status).toBe(303)
    const deleted = await feed(r, cursor)
    expect(brief(deleted.body.changes).sort()).toEqual(
      [`highlight:delete:${a.id}`, `highlight:delete:${b.id}`, `saved-item:delete:${itemId}`].sort(),
    )
    expect((await w.web.post(`/queue/items/${itemId}/restore`, {})).location).toBe('/?done=restored')
    const restored = await feed(r, deleted.body.cursor)
    expect(brief(restored.body.changes)).toEqual([
      `saved-item:upsert:${itemId}`,
      ...[a, b].map((h) => `highlight:upsert:${h.id}`).sort(),
    ])
    const byId = new Map(restored.body.changes.map((c: any) => [c.id, c.highlight]))
    expect(byId.get(a.id)).toEqual(a)
    expect(byId.get(b.id)).toEqual(b)
  })

  test('an import that brings highlights: upserts in the feed, highlight.created messages, their notes searched', async () => {
    const h = await createHarness(limits)
    const from = await reader(h)
    const itemId = await itemWithText(from, TEXT, 'https://example.com/imported')
    await highlight(from, itemId, { quote: { exact: 'garbage collector' }, note: 'the wallaby remark' })
    await highlight(from, itemId, { quote: { exact: 'Go gives' }, color: 'green' })
    const exported = (await h.call('GET', '/v1/export?format=json', { token: from.key, unchecked: true })).text

    const to = await reader(h)
    await h.call('POST', '/v1/webhooks', {
      token: to.key,
      body: { url: 'https://hooks.example.com/in', events: ['highlight.created'] },
    })
    const { cursor } = await drain(to)
    const imported = await h.call('POST', '/v1/imports', {
      token: to.key,
      raw: exported,
      headers: { 'content-type': 'application/json' },
    })
    expect(imported.status).toBe(202)
    await startImportWorker(
      { db: h.db, clock: h.clock, random, log: () => {} },
      { batchSize: 10, pollMs: 10, leaseMs: 10_000 },
      false,
    ).drain()
    const [item] = (await h.call('GET', '/v1/saved-items', { token: to.key })).body.savedItems
    const made = await itemHighlights(to, item.id)
    expect(made).toHaveLength(2)
    const page = await drain(to, cursor)
    expect(brief(page.changes)).toEqual([
      `saved-item:upsert:${item.id}`,
      ...made.map((x) => `highlight:upsert:${x.id}`).sort(),
    ])
    const outbox = await h.db.$client.execute('SELECT type, entity_id FROM webhook_deliveries ORDER BY seq')
    expect(outbox.rows.map((row) => `${row.type}:${row.entity_id}`).sort()).toEqual(
      made.map((x) => `highlight.created:${x.id}`).sort(),
    )
    const found = await h.call('GET', '/v1/search?q=wallaby', { token: to.key })
    expect(found.body.results.map((r: any) => [r.savedItem.id, r.snippet])).toEqual([[item.id, 'the «wallaby» remark']])
  })

  test('another person’s highlights are never in the feed; deleting an account deletes its log', async () => {
    const h = await createHarness(limits)
    const mine = await reader(h)
    const theirs = await reader(h)
    const { cursor } = await drain(theirs)
    const itemId = await itemWithText(mine)
    await highlight(mine, itemId, { quote: { exact: 'Rust' } })
    expect((await feed(theirs)).body.changes).toEqual([])
    expect((await feed(theirs, cursor)).body.changes).toEqual([])
    await deleteAccount(h.db, mine.userId)
    const left = await h.db.$client.execute({
      sql: 'SELECT count(*) AS n FROM changes WHERE user_id = ?',
      args: [mine.userId],
    })
    expect(Number(left.rows[0]!.n)).toBe(0)
  })
})
