import { expect, test } from 'bun:test'
import { databaseBefore } from './database-before.ts'
import type { Database } from '../../adapters/storage/open-database.ts'
import { highestImageNumberOf } from '../../adapters/storage/item-images.ts'

// Migration 0018 on a database whose items already have archived images (made between 0017 and 0018): each
// item's highest number so far becomes where its numbering goes on from (docs/reading.md#archived-images), so
// a later extraction that keeps none of them still never gives one of those numbers to another picture.

const AT = '2026-01-02T00:00:00.000Z'

test('items archived before migration 0018 go on numbering after their highest image', async () => {
  const before = await databaseBefore('0018_item_image_numbers')
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
    for (const n of [2, 7])
      await client.execute({
        sql: `INSERT INTO item_images (item_id, n, user_id, original_url, media_type, size, created_at, bytes)
              VALUES ('a', ?, 'u1', ?, 'image/png', 1, ?, x'00')`,
        args: [n, `https://example.com/${n}.png`, AT],
      })

    await before.migrateRest()
    const rows = await client.execute('SELECT item_id, last_n FROM item_image_numbers ORDER BY item_id')
    expect(rows.rows.map((row) => [row.item_id, Number(row.last_n)])).toEqual([['a', 7]])
    // Every image gone (an extraction that kept none): numbering still goes on after 7; b never had any.
    await client.execute("DELETE FROM item_images WHERE item_id = 'a'")
    expect(await highestImageNumberOf(db as unknown as Database, 'a')).toBe(7)
    expect(await highestImageNumberOf(db as unknown as Database, 'b')).toBe(0)
    // The number goes with its item.
    await client.execute("DELETE FROM saved_items WHERE id = 'a'")
    expect((await client.execute('SELECT count(*) AS n FROM item_image_numbers')).rows[0]!.n).toBe(0)
  } finally {
    before.cleanUp()
  }
})
