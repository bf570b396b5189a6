import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHarness, TestClock, type Harness } from '../helpers/harness.ts'

// The page cache of GET /v1/highlights (docs/highlights.md#endpoints): a page is served from the process's
// memory while the person's highlights and items are unchanged, and every change to either, by any process,
// moves the version the page was kept at (migration 0016 and 0004's triggers).

const dir = mkdtempSync(join(tmpdir(), 'readlater-highlight-cache-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

const TEXT = 'Memory safety is a property of some languages.\n\nRust gives memory safety without a collector.'

/** Two processes on one database file, a person with a key and an item with an article. */
async function twoProcesses(env: Record<string, string> = {}) {
  const dbUrl = `file:${join(dir, `cache-${files++}.db`)}`
  const clock = new TestClock()
  const a = await createHarness({ dbUrl, clock, env })
  const b = await createHarness({ dbUrl, clock, env })
  const key = await (await a.user()).key()
  const capture = await a.call('POST', '/v1/captures', { token: key, body: { url: 'https://example.com/cached' } })
  const itemId = capture.body.savedItem.id as string
  await a.db.$client.execute({
    sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p>x</p>', ?, ?)",
    args: [itemId, TEXT, capture.body.savedItem.createdAt],
  })
  const created = await a.call('POST', `/v1/saved-items/${itemId}/highlights`, {
    token: key,
    body: { quote: { exact: 'Memory safety' } },
  })
  expect(created.status).toBe(201)
  return { a, b, key, itemId, highlightId: created.body.highlight.id as string }
}

const list = async (h: Harness, key: string) => {
  const reply = await h.call('GET', '/v1/highlights?limit=10', { token: key })
  expect(reply.status).toBe(200)
  return reply.body.highlights as any[]
}

describe('GET /v1/highlights page cache', () => {
  test('a repeated page comes from the cache: a change the triggers do not see stays hidden until the version moves', async () => {
    const { a, key } = await twoProcesses()
    expect((await list(a, key))[0].note).toBe(null)
    // Bypass the version on purpose: without its trigger, this update is invisible to the cache.
    await a.db.$client.execute('DROP TRIGGER highlights_list_version_update')
    await a.db.$client.execute("UPDATE highlights SET note = 'Changed behind the cache'")
    expect((await list(a, key))[0].note).toBe(null)
    await a.db.$client.execute('UPDATE users SET highlights_version = highlights_version + 1')
    expect((await list(a, key))[0].note).toBe('Changed behind the cache')
  })

  test("another process's changes show at once: a note, a new highlight, the item's title, a delete", async () => {
    const { a, b, key, itemId, highlightId } = await twoProcesses()
    expect((await list(a, key)).map((h) => h.id)).toEqual([highlightId])
    const patched = await b.call('PATCH', `/v1/highlights/${highlightId}`, { token: key, body: { note: 'From b' } })
    expect(patched.status).toBe(200)
    expect((await list(a, key))[0].note).toBe('From b')

    a.clock.advance(1000)
    const second = await b.call('POST', `/v1/saved-items/${itemId}/highlights`, {
      token: key,
      body: { quote: { exact: 'without a collector' } },
    })
    expect((await list(a, key)).map((h) => h.id)).toEqual([second.body.highlight.id, highlightId])

    // The item each highlight shows: its title comes from the items, whose own version moves.
    await b.db.$client.execute({ sql: "UPDATE saved_items SET title = 'A new title' WHERE id = ?", args: [itemId] })
    expect((await list(a, key)).map((h) => h.savedItem.title)).toEqual(['A new title', 'A new title'])

    expect((await b.call('DELETE', `/v1/highlights/${highlightId}`, { token: key })).status).toBe(204)
    expect((await list(a, key)).map((h) => h.id)).toEqual([second.body.highlight.id])
    // Deleting the item takes its highlights with it (the cascade fires the version's trigger).
    expect((await b.call('DELETE', `/v1/saved-items/${itemId}`, { token: key })).status).toBe(204)
    expect(await list(a, key)).toEqual([])
  })

  test('LIST_CACHE_MB=0 turns it off: every read goes to the database', async () => {
    const { a, key } = await twoProcesses({ LIST_CACHE_MB: '0' })
    expect((await list(a, key))[0].note).toBe(null)
    await a.db.$client.execute('DROP TRIGGER highlights_list_version_update')
    await a.db.$client.execute("UPDATE highlights SET note = 'Seen at once'")
    expect((await list(a, key))[0].note).toBe('Seen at once')
  })

  test('each person has their own pages', async () => {
    const { a, key } = await twoProcesses()
    const other = await (await a.user()).key()
    expect(await list(a, key)).toHaveLength(1)
    expect(await list(a, other)).toEqual([])
  })
})
