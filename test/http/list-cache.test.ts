import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { toSavedItemDto } from '../../core/items/saved-item-dto.ts'
import { listSavedItems } from '../../adapters/storage/saved-items.ts'
import { createHarness, TestClock, type Harness } from '../helpers/harness.ts'

// The list page cache (docs/benchmarks.md#list-page-cache): a page is served from the process's memory
// while the person's item version is unchanged, and every change by any process bumps that version.

const dir = mkdtempSync(join(tmpdir(), 'readlater-list-cache-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

async function twoProcesses(env: Record<string, string> = {}) {
  const dbUrl = `file:${join(dir, `cache-${files++}.db`)}`
  const clock = new TestClock()
  const a = await createHarness({ dbUrl, clock, env })
  const b = await createHarness({ dbUrl, clock })
  const person = await a.user()
  const key = await person.key([
    'saved-items:read',
    'saved-items:capture',
    'saved-items:write',
    'folders:read',
    'folders:write',
  ])
  return { a, b, person, key }
}

const list = async (h: Harness, key: string, query = '') => {
  const reply = await h.call('GET', `/v1/saved-items${query}`, { token: key })
  expect(reply.status).toBe(200)
  return reply.body.savedItems as Record<string, unknown>[]
}

/** What the database holds now, read past every cache. */
async function truth(h: Harness, userId: string) {
  const page = await listSavedItems(h.db, userId, { sort: 'newest', folder: null, limit: null, after: null })
  return page.items.map(toSavedItemDto)
}

describe('list page cache', () => {
  test('a repeated page comes from the cache: a change the triggers do not see stays hidden until the version moves', async () => {
    const { a, key } = await twoProcesses()
    await a.call('POST', '/v1/captures', { token: key, body: { url: 'https://example.com/cached' } })
    expect((await list(a, key))[0]!.title).toBe(null)
    // Bypass the version on purpose: without its trigger, this update is invisible to the cache.
    await a.db.$client.execute('DROP TRIGGER saved_items_version_update')
    await a.db.$client.execute("UPDATE saved_items SET title = 'Changed behind the cache'")
    expect((await list(a, key))[0]!.title).toBe(null)
    await a.db.$client.execute('UPDATE users SET items_version = items_version + 1')
    expect((await list(a, key))[0]!.title).toBe('Changed behind the cache')
  })

  test('LIST_CACHE_MB=0 turns the cache off: every read goes to the database', async () => {
    const { a, key } = await twoProcesses({ LIST_CACHE_MB: '0' })
    await a.call('POST', '/v1/captures', { token: key, body: { url: 'https://example.com/uncached' } })
    expect((await list(a, key))[0]!.title).toBe(null)
    await a.db.$client.execute('DROP TRIGGER saved_items_version_update')
    await a.db.$client.execute("UPDATE saved_items SET title = 'Seen at once'")
    expect((await list(a, key))[0]!.title).toBe('Seen at once')
  })

  test('every kind of write by another process shows in the next read of this one', async () => {
    const { a, b, person, key } = await twoProcesses()
    const call = (method: string, path: string, body?: unknown) => b.call(method, path, { token: key, body })
    const first = (await call('POST', '/v1/captures', { url: 'https://example.com/one' })).body.savedItem
    await call('POST', '/v1/captures', { url: 'https://example.com/two' })
    const folder = (await call('POST', '/v1/folders', { name: 'Later' })).body
    const steps: [string, () => Promise<unknown>][] = [
      ['capture a new URL', () => call('POST', '/v1/captures', { url: 'https://example.com/three' })],
      ['recapture', () => call('POST', '/v1/captures', { url: 'https://example.com/one', tags: ['tech'] })],
      ['mark read', () => call('POST', `/v1/saved-items/${first.id}/read`)],
      ['mark unread', () => call('POST', `/v1/saved-items/${first.id}/unread`)],
      ['open', () => call('POST', `/v1/saved-items/${first.id}/open`)],
      ['move to a folder', () => call('PUT', `/v1/saved-items/${first.id}/folder`, { folderId: folder.id })],
      ['rename the folder', () => call('PATCH', `/v1/folders/${folder.id}`, { name: 'Renamed' })],
      ['delete the folder', () => call('DELETE', `/v1/folders/${folder.id}`)],
      [
        'enrichment writes metadata',
        () => b.db.$client.execute({ sql: "UPDATE saved_items SET title = 'Enriched' WHERE id = ?", args: [first.id] }),
      ],
      ['delete an item', () => call('DELETE', `/v1/saved-items/${first.id}`)],
    ]
    for (const [name, step] of steps) {
      await list(a, key) // fill A's cache
      b.clock.advance(1000)
      await step()
      expect({ name, items: await list(a, key) }).toEqual({ name, items: await truth(a, person.id) })
    }
  })

  test('pages are cached per person, sort, folder, limit and cursor', async () => {
    const { a, key } = await twoProcesses()
    const other = await (await a.user('other@example.com')).key()
    for (const path of ['a', 'b', 'c']) {
      a.clock.advance(1000)
      await a.call('POST', '/v1/captures', { token: key, body: { url: `https://example.com/${path}` } })
    }
    expect(await list(a, other)).toEqual([])
    const urls = async (query: string) => (await list(a, key, query)).map((item) => item.originalUrl)
    expect(await urls('')).toEqual(['https://example.com/c', 'https://example.com/b', 'https://example.com/a'])
    expect(await urls('?sort=oldest')).toEqual([
      'https://example.com/a',
      'https://example.com/b',
      'https://example.com/c',
    ])
    expect(await urls('?limit=1')).toEqual(['https://example.com/c'])
    const next = (await a.call('GET', '/v1/saved-items?limit=1', { token: key })).headers.get('link')!
    const cursor = decodeURIComponent(/cursor=([^&>]+)/.exec(next)![1]!)
    expect(await urls(`?limit=1&cursor=${encodeURIComponent(cursor)}`)).toEqual(['https://example.com/b'])
    expect(await urls('?folder=none')).toHaveLength(3)
    expect(await list(a, other)).toEqual([])
  })
})
