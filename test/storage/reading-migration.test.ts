import { expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { drizzle } from 'drizzle-orm/libsql'
import { migrate } from 'drizzle-orm/libsql/migrator'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// docs/reading.md#backfill: the migration that adds articles queues a low-priority re-enrichment for every
// item enriched before it, and leaves pending and failed items as they were.

const MIGRATIONS = fileURLToPath(new URL('../../adapters/storage/migrations', import.meta.url).href)

test('the reading migration queues every enriched item at priority 1, and nothing else', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'readlater-migration-'))
  try {
    // The migrations as they were before this one: the same files, the journal cut before 0005.
    const before = join(dir, 'before')
    cpSync(MIGRATIONS, before, { recursive: true })
    const journal = JSON.parse(readFileSync(join(before, 'meta/_journal.json'), 'utf8'))
    const reading = journal.entries.findIndex((entry: { tag: string }) => entry.tag === '0005_reading')
    expect(reading).toBeGreaterThan(0)
    journal.entries = journal.entries.slice(0, reading)
    writeFileSync(join(before, 'meta/_journal.json'), JSON.stringify(journal))

    const client = createClient({ url: `file:${join(dir, 'db.sqlite')}` })
    const db = drizzle(client)
    await migrate(db, { migrationsFolder: before })
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

    await migrate(db, { migrationsFolder: MIGRATIONS })
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
    client.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
