import { describe, expect, test } from 'bun:test'
import { catchUpSearchIndex, DOC_BITS, INDEX_BATCH } from '../../adapters/storage/search-index.ts'
import { startSearchIndexer } from '../../adapters/jobs/search-indexer.ts'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'

// docs/search.md#index: the triggers mark changed items due in the same statement as the change; the
// index catches up in batches, in the background and before every search. On every driver.

async function seeded(count: number): Promise<{ h: Harness; key: string; userId: string }> {
  const h = await createHarness()
  const user = await h.user()
  const key = await user.key()
  const now = h.clock.now().toISOString()
  const values = Array.from(
    { length: count },
    (_, i) =>
      `('item-${String(i).padStart(6, '0')}', '${user.id}', 'https://example.com/${i}', 'https://example.com/${i}', 'example.com', 'Batch item number${i}', 'website', '[]', 'pending', 0, '${now}', '${now}', '${now}')`,
  )
  for (let i = 0; i < values.length; i += 500)
    await h.db.$client.execute(
      `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags, enrichment_status, is_read, last_saved_at, created_at, updated_at) VALUES ${values.slice(i, i + 500).join(', ')}`,
    )
  return { h, key, userId: user.id }
}

const indexed = async (h: Harness) => countRows(h.db, 'search_index')

describe('catchUpSearchIndex()', () => {
  test('a capture marks its item due in the same statement; catching up indexes it and clears the mark', async () => {
    const { h, key } = await seeded(0)
    const reply = await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://example.com/fresh' } })
    const id = reply.body.savedItem.id
    const due = await h.db.$client.execute('SELECT item_id FROM search_pending')
    expect(due.rows.map((row) => row.item_id)).toEqual([id])
    expect(await indexed(h)).toBe(0)
    expect(await catchUpSearchIndex(h.db)).toBe(1)
    expect(await countRows(h.db, 'search_pending')).toBe(0)
    expect(await indexed(h)).toBe(1)
    expect(await catchUpSearchIndex(h.db)).toBe(0)
  })

  test(`more than one batch (${INDEX_BATCH} a transaction): every due item is indexed once`, async () => {
    const { h } = await seeded(INDEX_BATCH * 2 + 37)
    expect(await countRows(h.db, 'search_pending')).toBe(INDEX_BATCH * 2 + 37)
    expect(await catchUpSearchIndex(h.db)).toBe(INDEX_BATCH * 2 + 37)
    expect(await indexed(h)).toBe(INDEX_BATCH * 2 + 37)
    expect(await countRows(h.db, 'search_docs')).toBe(INDEX_BATCH * 2 + 37)
    // Indexing an item again replaces its row rather than adding one.
    await h.db.$client.execute("UPDATE saved_items SET title = 'Renamed' WHERE id = 'item-000007'")
    expect(await catchUpSearchIndex(h.db)).toBe(1)
    expect(await indexed(h)).toBe(INDEX_BATCH * 2 + 37)
    const hit = await h.db.$client.execute("SELECT rowid FROM search_index WHERE search_index MATCH 'renamed'")
    expect(hit.rows.length).toBe(1)
  })

  test('a deleted item leaves the index at once, due or not', async () => {
    const { h } = await seeded(3)
    await catchUpSearchIndex(h.db)
    await h.db.$client.execute("DELETE FROM saved_items WHERE id = 'item-000001'")
    expect(await indexed(h)).toBe(2)
    await h.db.$client.execute("UPDATE saved_items SET title = 'x' WHERE id = 'item-000002'")
    await h.db.$client.execute("DELETE FROM saved_items WHERE id = 'item-000002'")
    expect(await countRows(h.db, 'search_pending')).toBe(0)
    expect(await indexed(h)).toBe(1)
  })
})

describe('document ranges', () => {
  const docsOf = async (h: Harness, userId: string) =>
    (
      await h.db.$client.execute({
        sql: `SELECT o.slot AS slot, CAST(d.doc >> ${DOC_BITS} AS INTEGER) AS high, d.doc - (o.slot << ${DOC_BITS}) AS n
              FROM search_docs d JOIN saved_items s ON s.id = d.item_id JOIN search_owners o ON o.user_id = s.user_id
              WHERE s.user_id = ? ORDER BY s.id`,
        args: [userId],
      })
    ).rows.map((row) => ({ slot: Number(row.slot), high: Number(row.high), n: Number(row.n) }))

  test("each person's items are numbered in their own range, one after another, new ones after the highest", async () => {
    const { h, userId } = await seeded(3)
    const other = await h.user()
    const otherKey = await other.key()
    for (const n of [1, 2])
      await h.call('POST', '/v1/captures', { token: otherKey, body: { url: `https://example.org/${n}` } })
    await catchUpSearchIndex(h.db)
    const mine = await docsOf(h, userId)
    const theirs = await docsOf(h, other.id)
    expect(mine.map((d) => d.n)).toEqual([1, 2, 3])
    expect(theirs.map((d) => d.n)).toEqual([1, 2])
    expect(new Set(mine.map((d) => d.high))).toEqual(new Set([mine[0]!.slot]))
    expect(new Set(theirs.map((d) => d.high))).toEqual(new Set([theirs[0]!.slot]))
    expect(mine[0]!.slot).not.toBe(theirs[0]!.slot)
    // A deletion below the highest leaves a gap; the next item goes after the highest.
    await h.db.$client.execute("DELETE FROM saved_items WHERE id = 'item-000001'")
    await h.db.$client.execute({
      sql: `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags, enrichment_status, is_read, last_saved_at, created_at, updated_at)
            SELECT 'item-999999', user_id, 'https://example.com/new', 'https://example.com/new', host, 'New', type, tags, enrichment_status, 0, last_saved_at, created_at, updated_at FROM saved_items WHERE id = 'item-000000'`,
      args: [],
    })
    await catchUpSearchIndex(h.db)
    expect((await docsOf(h, userId)).map((d) => d.n)).toEqual([1, 3, 4])
  })

  test("a full range leaves a new item unindexed rather than spill into the next person's range", async () => {
    const { h, userId } = await seeded(1)
    const other = await h.user()
    await h.call('POST', '/v1/captures', { token: await other.key(), body: { url: 'https://example.org/theirs' } })
    await catchUpSearchIndex(h.db)
    const [mine] = await docsOf(h, userId)
    // The one item moved to the last number of the range, as if 2^32 items had been indexed before it.
    await h.db.$client.execute(
      "DELETE FROM search_index WHERE rowid = (SELECT doc FROM search_docs WHERE item_id = 'item-000000')",
    )
    await h.db.$client.execute(
      `UPDATE search_docs SET doc = (${mine!.slot} << ${DOC_BITS}) + ${2 ** DOC_BITS - 1} WHERE item_id = 'item-000000'`,
    )
    await h.db.$client.execute(
      `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags, enrichment_status, is_read, last_saved_at, created_at, updated_at)
       SELECT 'item-overflow', user_id, 'https://example.com/overflow', 'https://example.com/overflow', host, 'Overflow', type, tags, enrichment_status, 0, last_saved_at, created_at, updated_at FROM saved_items WHERE id = 'item-000000'`,
    )
    expect(await catchUpSearchIndex(h.db)).toBe(1)
    expect(await countRows(h.db, 'search_pending')).toBe(0)
    const docs = await h.db.$client.execute("SELECT item_id FROM search_docs WHERE item_id = 'item-overflow'")
    expect(docs.rows.length).toBe(0)
    expect((await docsOf(h, other.id)).map((d) => d.n)).toEqual([1])
  })
})

test('startSearchIndexer() catches up in the background, without a search', async () => {
  const { h } = await seeded(40)
  const errors: unknown[] = []
  const indexer = startSearchIndexer(h.db, (error) => errors.push(error), 10)
  try {
    const deadline = Date.now() + 10_000
    while ((await countRows(h.db, 'search_pending')) > 0 && Date.now() < deadline) await Bun.sleep(10)
    expect(await countRows(h.db, 'search_pending')).toBe(0)
    expect(await indexed(h)).toBe(40)
    expect(errors).toEqual([])
  } finally {
    indexer.stop()
  }
})
