import { expect, test } from 'bun:test'
import { databaseBefore } from './database-before.ts'

// docs/reading.md#backfill: the migration that adds articles queues a low-priority re-enrichment for every
// item enriched before it, and leaves pending and failed items as they were.

test('the reading migration queues every enriched item at priority 1, and nothing else', async () => {
  const before = await databaseBefore('0005_reading')
  const { client } = before
  try {
    await client.execute(
      "INSERT INTO users (id, email, password_hash, created_at) VALUES ('u1', 'a@example.com', 'x', '2026-01-01T00:00:00.000Z')",
    )
    for (const [id, status] of [
      ['enriched-1', 'enriched'],
      ['enriched-2', 'enriched'],
      ['pending-1', 'pending'],
      ['failed-1', 'failed'],
    ] as const) {
      await client.execute({
        sql: `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, type, tags, enrichment_status, is_read, last_saved_at, created_at, updated_at)
              VALUES (?, 'u1', ?, ?, 'example.com', 'website', '[]', ?, 0, '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z')`,
        args: [id, `https://example.com/${id}`, `https://example.com/${id}`, status],
      })
    }
    // Enriched and failed items have no job (the worker dropped it); the pending one has its capture's.
    await client.execute("DELETE FROM enrichment_jobs WHERE item_id <> 'pending-1'")

    await before.migrateRest()
    const jobs = await client.execute(
      'SELECT item_id, priority, attempts, run_after_ms, lease_until_ms, created_at FROM enrichment_jobs ORDER BY item_id',
    )
    expect(jobs.rows.map((row) => ({ ...row }) as Record<string, unknown>)).toEqual([
      {
        item_id: 'enriched-1',
        priority: 1,
        attempts: 0,
        run_after_ms: 0,
        lease_until_ms: null,
        created_at: '2026-01-03T00:00:00.000Z',
      },
      {
        item_id: 'enriched-2',
        priority: 1,
        attempts: 0,
        run_after_ms: 0,
        lease_until_ms: null,
        created_at: '2026-01-03T00:00:00.000Z',
      },
      {
        item_id: 'pending-1',
        priority: 0,
        attempts: 0,
        run_after_ms: 0,
        lease_until_ms: null,
        created_at: '2026-01-02T00:00:00.000Z',
      },
    ])
  } finally {
    before.cleanUp()
  }
})
