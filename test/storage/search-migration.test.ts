import { expect, test } from 'bun:test'
import { databaseBefore } from './database-before.ts'
import { createClient } from '@libsql/client'
import type { Database } from '../../adapters/storage/open-database.ts'
import { catchUpSearchIndex, DOC_BITS } from '../../adapters/storage/search-index.ts'

// docs/search.md#index: the migration that numbers each person's items in their own range rebuilds the
// index from the items: every item is due again, and the next catch-up indexes it in its owner's range.

test('the range migration rebuilds an index built with owner tokens: every item found again, in its range', async () => {
  const before = await databaseBefore('0008_search_ranges')
  const { client, db } = before
  try {
    for (const user of ['u1', 'u2'])
      await client.execute({
        sql: "INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, 'x', '2026-01-01T00:00:00.000Z')",
        args: [user, `${user}@example.com`],
      })
    for (const [id, user, title] of [
      ['a', 'u1', 'Rust memory safety'],
      ['b', 'u1', 'Go channels'],
      ['c', 'u2', 'Rust async'],
    ] as const)
      await client.execute({
        sql: `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags, enrichment_status, is_read, last_saved_at, created_at, updated_at)
              VALUES (?, ?, ?, ?, 'example.com', ?, 'website', '[]', 'enriched', 0, '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z')`,
        args: [id, user, `https://example.com/${id}`, `https://example.com/${id}`, title],
      })
    // Indexed as 0006 did it, with the owner column.
    await catchUpOld(client)
    expect(Number((await client.execute('SELECT count(*) AS n FROM search_index')).rows[0]!.n)).toBe(3)

    await before.migrateRest()
    const columns = (await client.execute('SELECT * FROM search_index LIMIT 0')).columns
    expect(columns).not.toContain('owner')
    expect(Number((await client.execute('SELECT count(*) AS n FROM search_index')).rows[0]!.n)).toBe(0)
    expect(
      (await client.execute('SELECT item_id FROM search_pending ORDER BY item_id')).rows.map((r) => r.item_id),
    ).toEqual(['a', 'b', 'c'])

    expect(await catchUpSearchIndex(db as unknown as Database)).toBe(3)
    const rows = await client.execute(
      `SELECT s.user_id AS user, o.slot AS slot, CAST(d.doc >> ${DOC_BITS} AS INTEGER) AS high FROM search_index i
       JOIN search_docs d ON d.doc = i.rowid JOIN saved_items s ON s.id = d.item_id JOIN search_owners o ON o.user_id = s.user_id
       WHERE search_index MATCH 'rust' ORDER BY s.id`,
    )
    expect(rows.rows.map((r) => r.user)).toEqual(['u1', 'u2'])
    for (const row of rows.rows) expect(Number(row.high)).toBe(Number(row.slot))
  } finally {
    before.cleanUp()
  }
})

/** The 0006 indexer's statement, enough to build an old index: every due item with its owner token. */
async function catchUpOld(client: ReturnType<typeof createClient>): Promise<void> {
  await client.execute('INSERT INTO search_docs (item_id) SELECT item_id FROM search_pending')
  await client.execute(
    `INSERT INTO search_index (rowid, title, description, site_name, host, url, summary, source_name, body, owner)
     SELECT d.doc, s.title, s.description, s.site_name, s.host, s.normalized_url, s.preview_summary, s.source_name, NULL,
       replace(s.user_id, '-', '') FROM search_docs d JOIN saved_items s ON s.id = d.item_id`,
  )
  await client.execute('DELETE FROM search_pending')
}
