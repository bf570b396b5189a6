import { expect, test } from 'bun:test'
import { databaseBefore } from './database-before.ts'
import { readChanges } from '../../adapters/storage/changes.ts'
import type { Database } from '../../adapters/storage/open-database.ts'
import { catchUpSearchIndex } from '../../adapters/storage/search-index.ts'

// Migration 0015 on a database that already has highlights (made between 0014 and 0015): they start the changes
// feed's log as 0011 started it for folders and items, so a reader whose cursor predates the migration learns of
// them; every item is due for the rebuilt search index, which then holds their quotes and notes; and the triggers
// work on the rows that were there.

const AT = '2026-01-02T00:00:00.000Z'

test('highlights made before migration 0015 start its log, are searched, and are followed from then on', async () => {
  const before = await databaseBefore('0015_highlight_changes')
  const { client, db } = before
  try {
    await client.execute(
      "INSERT INTO users (id, email, password_hash, created_at) VALUES ('u1', 'u1@example.com', 'x', ?)",
      [AT],
    )
    for (const id of ['a', 'b'])
      await client.execute({
        sql: `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags, enrichment_status, is_read, last_saved_at, created_at, updated_at)
              VALUES (?, 'u1', ?, ?, 'example.com', 'A page', 'website', '[]', 'enriched', 0, ?, ?, ?)`,
        args: [id, `https://example.com/${id}`, `https://example.com/${id}`, AT, AT, AT],
      })
    await client.execute(
      "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES ('a', 3, '<p>x</p>', 'Rust gives safety', ?)",
      [AT],
    )
    // A reader who caught up before the highlights were made.
    const cursor = (await readChanges(db as unknown as Database, 'u1', null, true)).next
    expect(cursor).toMatchObject({ phase: 'log' })
    for (const [id, note] of [
      ['h1', 'the wombat'],
      ['h2', null],
    ] as const)
      await client.execute({
        sql: `INSERT INTO highlights (id, user_id, saved_item_id, exact, prefix, suffix, start, "end", color, note, created_at, updated_at)
              VALUES (?, 'u1', 'a', 'Rust', '', ' gives safety', 0, 4, 'yellow', ?, ?, ?)`,
        args: [id, note, AT, AT],
      })
    // Indexed as before 0015 (eight columns; today's indexer writes the ninth), nothing due.
    await client.execute("INSERT INTO search_owners (user_id) VALUES ('u1')")
    await client.execute("INSERT INTO search_docs (doc, item_id) VALUES (4294967297, 'a'), (4294967298, 'b')")
    await client.execute(
      `INSERT INTO search_index (rowid, title, description, site_name, host, url, summary, source_name, body)
       VALUES (4294967297, 'A page', NULL, NULL, 'example.com', 'https://example.com/a', NULL, NULL, 'Rust gives safety'),
              (4294967298, 'A page', NULL, NULL, 'example.com', 'https://example.com/b', NULL, NULL, NULL)`,
    )
    await client.execute('DELETE FROM search_pending')

    await before.migrateRest()
    const log = await readChanges(db as unknown as Database, 'u1', cursor, true)
    expect(log.changes.map((c) => [c.kind, c.id, c.op])).toEqual([
      ['highlight', 'h1', 'upsert'],
      ['highlight', 'h2', 'upsert'],
    ])
    // The index was made again with its highlights column: every item is due, then found by a note's word.
    const columns = (await client.execute('SELECT * FROM search_index LIMIT 0')).columns
    expect(columns.at(-1)).toBe('highlights')
    expect(
      Number(
        (await client.execute("SELECT count(*) AS n FROM search_index WHERE search_index MATCH 'rust'")).rows[0]!.n,
      ),
    ).toBe(0)
    expect(
      (await client.execute('SELECT item_id FROM search_pending ORDER BY item_id')).rows.map((r) => r.item_id),
    ).toEqual(['a', 'b'])
    expect(await catchUpSearchIndex(db as unknown as Database)).toBe(2)
    const found = await client.execute(
      "SELECT d.item_id AS id FROM search_index i JOIN search_docs d ON d.doc = i.rowid WHERE search_index MATCH 'highlights:wombat'",
    )
    expect(found.rows.map((r) => r.id)).toEqual(['a'])

    // From now on the triggers follow the rows that were there.
    await client.execute(
      "UPDATE highlights SET note = 'the quoll', updated_at = '2026-01-03T00:00:00.000Z' WHERE id = 'h2'",
    )
    await client.execute("DELETE FROM highlights WHERE id = 'h1'")
    const next = await readChanges(db as unknown as Database, 'u1', log.next, true)
    expect(next.changes.map((c) => [c.kind, c.id, c.op])).toEqual([
      ['highlight', 'h2', 'upsert'],
      ['highlight', 'h1', 'delete'],
    ])
    expect((await client.execute('SELECT item_id FROM search_pending')).rows.map((r) => r.item_id)).toEqual(['a'])
    // Running the migrations again changes nothing.
    await before.migrateRest()
    expect(
      Number((await client.execute("SELECT count(*) AS n FROM changes WHERE kind = 'highlight'")).rows[0]!.n),
    ).toBe(4)
  } finally {
    before.cleanUp()
  }
})
