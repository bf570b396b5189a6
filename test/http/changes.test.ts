import { describe, expect, test } from 'bun:test'
import { pruneChanges } from '../../adapters/storage/changes.ts'
import { deleteAccount } from '../../adapters/storage/delete-account.ts'
import { createHarness, type Harness, type TestUser } from '../helpers/harness.ts'

// docs/api.md#changes: GET /v1/changes, a feed of what changed, with deletions, for clients that keep a copy.

interface Reader {
  h: Harness
  key: string
  userId: string
  user: TestUser
}

async function reader(h?: Harness): Promise<Reader> {
  // Thousands of writes a test: past the default per-credential limit.
  const harness = h ?? (await createHarness({ env: { RATE_LIMIT_MAX: '1000000' } }))
  const user = await harness.user()
  return { h: harness, key: await user.key(), userId: user.id, user }
}

const feed = async (r: Reader, since?: string, key = r.key) => {
  const reply = await r.h.call(
    'GET',
    `/v1/changes${since === undefined ? '' : `?since=${encodeURIComponent(since)}`}`,
    {
      token: key,
    },
  )
  return reply
}
const capture = async (r: Reader, url: string): Promise<string> =>
  (await r.h.call('POST', '/v1/captures', { token: r.key, body: { url } })).body.savedItem.id
const brief = (changes: any[]) =>
  changes.map(
    (c) => `${c.kind}:${c.op}:${c.kind === 'folder' ? (c.folder?.name ?? c.id) : (c.savedItem?.normalizedUrl ?? c.id)}`,
  )

/** Reads the feed from `since` until a page says nothing more is waiting; every page's entries in order. */
async function drain(r: Reader, since?: string): Promise<{ changes: any[]; cursor: string; pages: number }> {
  const changes: any[] = []
  let cursor = since
  let pages = 0
  for (;;) {
    const reply = await feed(r, cursor)
    expect(reply.status).toBe(200)
    changes.push(...reply.body.changes)
    cursor = reply.body.cursor
    pages++
    if (!reply.body.hasMore) return { changes, cursor: cursor!, pages }
  }
}

describe('GET /v1/changes', () => {
  test('without since: every live folder, then every item, as upserts; then nothing until something changes', async () => {
    const r = await reader()
    const folder = (await r.h.call('POST', '/v1/folders', { token: r.key, body: { name: 'Later' } })).body
    const a = await capture(r, 'https://a.example/')
    await capture(r, 'https://b.example/')
    await r.h.call('PUT', `/v1/saved-items/${a}/folder`, { token: r.key, body: { folderId: folder.id } })
    const first = await feed(r)
    expect(first.status).toBe(200)
    expect(first.body.hasMore).toBe(false)
    const entries = brief(first.body.changes)
    expect(entries[0]).toBe('folder:upsert:Later')
    expect(entries.slice(1).sort()).toEqual([
      'saved-item:upsert:https://a.example/',
      'saved-item:upsert:https://b.example/',
    ])
    const item = first.body.changes.find((c: any) => c.id === a)
    expect(item.savedItem.folder).toEqual({ id: folder.id, name: 'Later' })
    const quiet = await feed(r, first.body.cursor)
    expect(quiet.body).toEqual({ changes: [], cursor: first.body.cursor, hasMore: false })
  })

  test('each change once per page, as things are now: captures, reads, moves, renames, deletes', async () => {
    const r = await reader()
    const { cursor } = await drain(r)
    const folder = (await r.h.call('POST', '/v1/folders', { token: r.key, body: { name: 'Inbox' } })).body
    const a = await capture(r, 'https://a.example/')
    const b = await capture(r, 'https://b.example/')
    await r.h.call('POST', `/v1/saved-items/${a}/read`, { token: r.key })
    // The same state again is no change.
    await r.h.call('POST', `/v1/saved-items/${a}/read`, { token: r.key })
    await r.h.call('PUT', `/v1/saved-items/${b}/folder`, { token: r.key, body: { folderId: folder.id } })
    await r.h.call('PATCH', `/v1/folders/${folder.id}`, { token: r.key, body: { name: 'Inbox 2' } })
    await r.h.call('DELETE', `/v1/saved-items/${a}`, { token: r.key })
    const page = await feed(r, cursor)
    expect(page.status).toBe(200)
    // Where each last changed: a (deleted last), then b (moved), then the folder (renamed after the move).
    expect(brief(page.body.changes)).toEqual([
      'saved-item:upsert:https://b.example/',
      'folder:upsert:Inbox 2',
      `saved-item:delete:${a}`,
    ])
    expect(page.body.changes[0].savedItem.folder).toEqual({ id: folder.id, name: 'Inbox 2' })
    const rows = await r.h.db.$client.execute({
      sql: "SELECT count(*) AS n FROM changes WHERE entity_id = ? AND kind = 'saved-item'",
      args: [a],
    })
    // Captured, marked read once (not twice), deleted.
    expect(Number(rows.rows[0]!.n)).toBe(3)
  })

  test('folders only with folders:read', async () => {
    const r = await reader()
    await r.h.call('POST', '/v1/folders', { token: r.key, body: { name: 'Hidden' } })
    await capture(r, 'https://seen.example/')
    const itemsOnly = await r.user.key(['saved-items:read'])
    const page = await feed(r, undefined, itemsOnly)
    expect(brief(page.body.changes)).toEqual(['saved-item:upsert:https://seen.example/'])
    const log = await feed(r, page.body.cursor, itemsOnly)
    await r.h.call('POST', '/v1/folders', { token: r.key, body: { name: 'Another' } })
    expect((await feed(r, log.body.cursor, itemsOnly)).body.changes).toEqual([])
    expect((await r.h.call('GET', '/v1/changes', { token: await r.user.key(['folders:read']) })).status).toBe(403)
  })

  test('500 a page: a snapshot of 1,203 entities and a log of 1,200 changes page through every one once', async () => {
    const r = await reader()
    await r.h.call('POST', '/v1/folders', { token: r.key, body: { name: 'F1' } })
    await r.h.call('POST', '/v1/folders', { token: r.key, body: { name: 'F2' } })
    await r.h.call('POST', '/v1/folders', { token: r.key, body: { name: 'F3' } })
    const ids = new Set<string>()
    for (let i = 0; i < 1200; i++) ids.add(await capture(r, `https://many.example/${i}`))
    const snapshot = await drain(r)
    expect(snapshot.pages).toBe(3)
    expect(snapshot.changes).toHaveLength(1203)
    expect(new Set(snapshot.changes.filter((c) => c.kind === 'saved-item').map((c) => c.id))).toEqual(ids)
    for (const id of ids) await r.h.call('POST', `/v1/saved-items/${id}/read`, { token: r.key })
    const log = await drain(r, snapshot.cursor)
    expect(log.pages).toBe(3)
    expect(log.changes.map((c) => c.id).sort()).toEqual([...ids].sort())
    expect(log.changes.every((c) => c.savedItem.isRead)).toBe(true)
  })

  test('writers running while a reader pages: no change is skipped', async () => {
    const r = await reader()
    let { cursor } = await drain(r)
    const written = new Set<string>()
    const seen = new Set<string>()
    let writing = true
    const writer = (async () => {
      for (let i = 0; i < 1500; i++) {
        written.add(await capture(r, `https://busy.example/${i}`))
        if (i % 7 === 0) await Bun.sleep(0)
      }
      writing = false
    })()
    while (writing || seen.size < written.size) {
      const reply = await feed(r, cursor)
      for (const change of reply.body.changes) seen.add(change.id)
      cursor = reply.body.cursor
      if (!reply.body.hasMore) await Bun.sleep(1)
      if (!writing && !reply.body.hasMore && reply.body.changes.length === 0) break
    }
    await writer
    expect(seen).toEqual(written)
  })

  test('a cursor this API did not issue: 400; one older than the changes kept: 410; nothing is written', async () => {
    const r = await reader()
    expect((await feed(r, 'garbage')).body).toMatchObject({ _tag: 'ValidationError' })
    expect((await feed(r, 'garbage')).status).toBe(400)
    const { cursor } = await drain(r)
    await capture(r, 'https://old.example/')
    const gone = await capture(r, 'https://gone.example/')
    await r.h.call('DELETE', `/v1/saved-items/${gone}`, { token: r.key })
    // Maintenance drops changes past 30 days; here, every change so far.
    expect(await pruneChanges(r.h.db, Date.now() + 60_000)).toBeGreaterThan(0)
    const expired = await feed(r, cursor)
    expect(expired.status).toBe(410)
    expect(expired.body).toEqual({
      _tag: 'CursorExpiredError',
      message: expect.stringContaining('start over without since'),
    })
    // Starting over: the live item as it is; the deleted one is no longer news.
    const fresh = await drain(r)
    expect(brief(fresh.changes)).toEqual(['saved-item:upsert:https://old.example/'])
    expect((await feed(r, fresh.cursor)).status).toBe(200)
  })

  test('a person never sees another person’s changes; deleting an account deletes its log', async () => {
    const h = await createHarness()
    const mine = await reader(h)
    const theirs = await reader(h)
    const { cursor } = await drain(theirs)
    await capture(mine, 'https://private.example/')
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
