import { describe, expect, test } from 'bun:test'
import { BASE, countRows, createHarness, type Harness } from '../helpers/harness.ts'

const SORTS = ['newest', 'oldest', 'title', 'unread'] as const
type SortName = (typeof SORTS)[number]

async function setup(): Promise<{ h: Harness; token: string }> {
  const h = await createHarness()
  const user = await h.user()
  return { h, token: await user.key() }
}

async function capture(h: Harness, token: string, url: string, extra: Record<string, unknown> = {}): Promise<any> {
  const reply = await h.call('POST', '/v1/captures', { token, body: { url, ...extra } })
  expect(reply.status).toBe(201)
  return reply.body.savedItem
}

async function createFolder(h: Harness, token: string, name: string): Promise<{ id: string; name: string }> {
  const reply = await h.call('POST', '/v1/folders', { token, body: { name } })
  expect(reply.status).toBe(200)
  return reply.body
}

async function setTitle(h: Harness, id: string, title: string | null): Promise<void> {
  await h.db.$client.execute({ sql: 'UPDATE saved_items SET title = ? WHERE id = ?', args: [title, id] })
}

async function list(h: Harness, token: string, query = ''): Promise<any[]> {
  const reply = await h.call('GET', `/v1/saved-items${query}`, { token })
  expect(reply.status).toBe(200)
  expect(reply.headers.get('link')).toBeNull()
  return reply.body.savedItems
}

const byIdDesc = (a: any, b: any): number => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** The contract's orders (docs/api.md#lists), computed independently of the service. */
function expectedOrder(items: any[], sort: SortName): string[] {
  const sorted = [...items].sort((a, b) => {
    if (sort === 'newest' || sort === 'unread') {
      if (sort === 'unread' && a.isRead !== b.isRead) return a.isRead ? 1 : -1
      if (a.lastSavedAt !== b.lastSavedAt) return a.lastSavedAt < b.lastSavedAt ? 1 : -1
    }
    if (sort === 'oldest' && a.lastSavedAt !== b.lastSavedAt) return a.lastSavedAt < b.lastSavedAt ? -1 : 1
    if (sort === 'title') {
      if ((a.title === null) !== (b.title === null)) return a.title === null ? 1 : -1
      const ka = (a.title ?? '').toLowerCase()
      const kb = (b.title ?? '').toLowerCase()
      if (ka !== kb) return ka < kb ? -1 : 1
    }
    return byIdDesc(a, b)
  })
  return sorted.map((item) => item.id)
}

/**
 * Twelve items with shared save times (ties broken by id), titles that differ only by case or are
 * missing, and a mix of read states.
 */
async function seed(h: Harness, token: string): Promise<any[]> {
  const titles = ['banana', 'Apple', null, 'cherry', 'apple', 'Banana', null, 'date', 'APPLE', null, 'Zebra', 'eclair']
  const read = new Set([1, 4, 5, 9])
  const ids: string[] = []
  for (let i = 0; i < titles.length; i++) {
    if (i % 3 === 0) h.clock.advance(1000) // three captures share each timestamp
    const item = await capture(h, token, `https://example.com/seed/${i}`)
    ids.push(item.id)
  }
  for (let i = 0; i < titles.length; i++) {
    await setTitle(h, ids[i]!, titles[i]!)
    if (read.has(i)) expect((await h.call('POST', `/v1/saved-items/${ids[i]}/read`, { token })).status).toBe(200)
  }
  return list(h, token)
}

async function walk(
  h: Harness,
  token: string,
  sort: SortName,
  limit: number,
  extra = '',
): Promise<{ ids: string[]; pages: number }> {
  let path: string | null = `/v1/saved-items?sort=${sort}&limit=${limit}${extra}`
  const ids: string[] = []
  let pages = 0
  while (path) {
    const reply = await h.call('GET', path, { token })
    expect(reply.status).toBe(200)
    pages++
    expect(reply.body.savedItems.length).toBeLessThanOrEqual(limit)
    ids.push(...reply.body.savedItems.map((i: any) => i.id))
    const link = reply.headers.get('link')
    if (link === null) {
      path = null
      break
    }
    const match = /^<([^>]+)>; rel="next"$/.exec(link)
    expect(match).not.toBeNull()
    const next = match![1]!
    expect(next.startsWith(`${BASE}/v1/saved-items?`)).toBe(true)
    expect(reply.body.savedItems.length).toBe(limit)
    path = next.slice(BASE.length)
    expect(pages).toBeLessThan(100)
  }
  return { ids, pages }
}

describe('GET /v1/saved-items: sort orders', () => {
  test('every sort follows its contract order, ties broken by id desc', async () => {
    const { h, token } = await setup()
    const items = await seed(h, token)
    expect(items).toHaveLength(12)
    for (const sort of SORTS) {
      const got = (await list(h, token, `?sort=${sort}`)).map((i) => i.id)
      expect({ sort, got }).toEqual({ sort, got: expectedOrder(items, sort) })
    }
  })

  test('newest is the default', async () => {
    const { h, token } = await setup()
    const items = await seed(h, token)
    expect(items.map((i) => i.id)).toEqual(expectedOrder(items, 'newest'))
  })

  test('ties on lastSavedAt are broken by id, highest first, in newest and oldest alike', async () => {
    const { h, token } = await setup()
    const a = await capture(h, token, 'https://example.com/tie/a')
    const b = await capture(h, token, 'https://example.com/tie/b')
    const c = await capture(h, token, 'https://example.com/tie/c')
    expect(new Set([a.lastSavedAt, b.lastSavedAt, c.lastSavedAt]).size).toBe(1)
    const idsDesc = [a.id, b.id, c.id].sort().reverse()
    expect((await list(h, token, '?sort=newest')).map((i) => i.id)).toEqual(idsDesc)
    expect((await list(h, token, '?sort=oldest')).map((i) => i.id)).toEqual(idsDesc)
  })

  test('title sort is case-insensitive and puts items without a title last', async () => {
    const { h, token } = await setup()
    const untitled = await capture(h, token, 'https://example.com/t/none')
    h.clock.advance(1)
    const b = await capture(h, token, 'https://example.com/t/b')
    h.clock.advance(1)
    const a = await capture(h, token, 'https://example.com/t/a')
    h.clock.advance(1)
    const c = await capture(h, token, 'https://example.com/t/c')
    await setTitle(h, b.id, 'beta')
    await setTitle(h, a.id, 'Alpha')
    await setTitle(h, c.id, 'Charlie')
    const got = await list(h, token, '?sort=title')
    expect(got.map((i) => i.title)).toEqual(['Alpha', 'beta', 'Charlie', null])
    expect(got[3].id).toBe(untitled.id)
  })

  test('unread sort puts unread items first, each group newest first', async () => {
    const { h, token } = await setup()
    const old = await capture(h, token, 'https://example.com/u/old')
    h.clock.advance(1000)
    const mid = await capture(h, token, 'https://example.com/u/mid')
    h.clock.advance(1000)
    const recent = await capture(h, token, 'https://example.com/u/recent')
    await h.call('POST', `/v1/saved-items/${recent.id}/read`, { token })
    await h.call('POST', `/v1/saved-items/${mid.id}/read`, { token })
    const got = await list(h, token, '?sort=unread')
    expect(got.map((i) => i.id)).toEqual([old.id, recent.id, mid.id])
  })

  test.each(['bogus', 'NEWEST', 'title,newest'])('unknown sort %s answers 400 ValidationError', async (sort) => {
    const { h, token } = await setup()
    const reply = await h.call('GET', `/v1/saved-items?sort=${encodeURIComponent(sort)}`, { token })
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ _tag: 'ValidationError', message: expect.any(String) })
  })
})

describe('GET /v1/saved-items: folder filter', () => {
  test('a folder id lists only that folder, none lists items in no folder', async () => {
    const { h, token } = await setup()
    const f = await createFolder(h, token, 'Work')
    const g = await createFolder(h, token, 'Home')
    const inF = await capture(h, token, 'https://example.com/f/1', { folderId: f.id })
    h.clock.advance(1)
    const inF2 = await capture(h, token, 'https://example.com/f/2', { folderId: f.id })
    h.clock.advance(1)
    const inG = await capture(h, token, 'https://example.com/f/3', { folderId: g.id })
    h.clock.advance(1)
    const loose = await capture(h, token, 'https://example.com/f/4')
    expect((await list(h, token, `?folder=${f.id}`)).map((i) => i.id)).toEqual([inF2.id, inF.id])
    expect((await list(h, token, `?folder=${g.id}`)).map((i) => i.id)).toEqual([inG.id])
    expect((await list(h, token, '?folder=none')).map((i) => i.id)).toEqual([loose.id])
    expect((await list(h, token, `?folder=${f.id}&sort=oldest`)).map((i) => i.id)).toEqual([inF.id, inF2.id])
    expect((await list(h, token)).map((i) => i.id)).toEqual([loose.id, inG.id, inF2.id, inF.id])
  })

  test('an empty folder lists no items', async () => {
    const { h, token } = await setup()
    const f = await createFolder(h, token, 'Empty')
    await capture(h, token, 'https://example.com/elsewhere')
    expect(await list(h, token, `?folder=${f.id}`)).toEqual([])
  })

  test('an unknown folder id answers 404 FolderNotFoundError with folderId', async () => {
    const { h, token } = await setup()
    const reply = await h.call('GET', '/v1/saved-items?folder=no-such-folder', { token })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: 'no-such-folder' })
  })

  test("another person's folder id answers 404 FolderNotFoundError", async () => {
    const h = await createHarness()
    const alice = await (await h.user()).key()
    const bob = await (await h.user()).key()
    const bobs = await createFolder(h, bob, 'Bob only')
    await capture(h, bob, 'https://example.com/bob', { folderId: bobs.id })
    const reply = await h.call('GET', `/v1/saved-items?folder=${bobs.id}`, { token: alice })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: bobs.id })
  })
})

describe('GET /v1/saved-items: limit and cursor', () => {
  test('walking every sort page by page visits every item once, in order', async () => {
    const { h, token } = await setup()
    const items = await seed(h, token)
    for (const sort of SORTS) {
      for (const limit of [1, 5, 12, 13]) {
        const { ids, pages } = await walk(h, token, sort, limit)
        expect({ sort, limit, ids }).toEqual({ sort, limit, ids: expectedOrder(items, sort) })
        expect(pages).toBe(limit >= 12 ? 1 : Math.ceil(12 / limit))
      }
    }
  })

  test('pages keep the folder filter in the next link', async () => {
    const { h, token } = await setup()
    const f = await createFolder(h, token, 'Paged')
    const inFolder: string[] = []
    for (let i = 0; i < 5; i++) {
      inFolder.unshift((await capture(h, token, `https://example.com/p/${i}`, { folderId: f.id })).id)
      await capture(h, token, `https://example.com/q/${i}`)
      h.clock.advance(10)
    }
    const { ids } = await walk(h, token, 'newest', 2, `&folder=${f.id}`)
    expect(ids).toEqual(inFolder)
  })

  test('the Link header is an absolute URL on BASE and absent on the last page', async () => {
    const { h, token } = await setup()
    for (let i = 0; i < 3; i++) await capture(h, token, `https://example.com/l/${i}`)
    const first = await h.call('GET', '/v1/saved-items?limit=2', { token })
    expect(first.status).toBe(200)
    expect(first.body.savedItems).toHaveLength(2)
    const link = first.headers.get('link')!
    expect(link).toMatch(/^<http:\/\/localhost:3000\/v1\/saved-items\?[^>]+>; rel="next"$/)
    const next = new URL(/^<([^>]+)>/.exec(link)![1]!)
    expect(next.searchParams.get('limit')).toBe('2')
    expect(next.searchParams.get('cursor')).toBeTruthy()
    const second = await h.call('GET', next.pathname + next.search, { token })
    expect(second.body.savedItems).toHaveLength(1)
    expect(second.headers.get('link')).toBeNull()
    const exact = await h.call('GET', '/v1/saved-items?limit=3', { token })
    expect(exact.body.savedItems).toHaveLength(3)
    expect(exact.headers.get('link')).toBeNull()
  })

  test('the Link header keeps a path prefix of BASE_URL (service behind a reverse proxy)', async () => {
    const h = await createHarness({ env: { BASE_URL: 'https://proxy.example/readlater/' } })
    const token = await (await h.user()).key()
    for (let i = 0; i < 2; i++) await capture(h, token, `https://example.com/prefix/${i}`)
    const first = await h.call('GET', '/v1/saved-items?limit=1', { token })
    expect(first.headers.get('link')).toMatch(
      /^<https:\/\/proxy\.example\/readlater\/v1\/saved-items\?[^>]+>; rel="next"$/,
    )
  })

  test('items saved while paging do not cause duplicates in newest order', async () => {
    const { h, token } = await setup()
    for (let i = 0; i < 4; i++) {
      await capture(h, token, `https://example.com/live/${i}`)
      h.clock.advance(1000)
    }
    const first = await h.call('GET', '/v1/saved-items?limit=2', { token })
    await capture(h, token, 'https://example.com/live/new')
    const next = /^<([^>]+)>/.exec(first.headers.get('link')!)![1]!.slice(BASE.length)
    const second = await h.call('GET', next, { token })
    const seen = [...first.body.savedItems, ...second.body.savedItems].map((i: any) => i.id)
    expect(new Set(seen).size).toBe(4)
  })

  test('without limit every item comes back and there is no Link header', async () => {
    const { h, token } = await setup()
    for (let i = 0; i < 7; i++) await capture(h, token, `https://example.com/all/${i}`)
    expect(await list(h, token)).toHaveLength(7)
  })

  test.each(['0', '501', 'abc', '-1', '1.5', '', '99999'])('limit=%s answers 400 ValidationError', async (limit) => {
    const { h, token } = await setup()
    const reply = await h.call('GET', `/v1/saved-items?limit=${limit}`, { token })
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ _tag: 'ValidationError', message: expect.any(String) })
  })

  test('limit=500 and limit=1 are accepted', async () => {
    const { h, token } = await setup()
    await capture(h, token, 'https://example.com/bounds')
    expect((await h.call('GET', '/v1/saved-items?limit=500', { token })).status).toBe(200)
    expect((await h.call('GET', '/v1/saved-items?limit=1', { token })).status).toBe(200)
  })

  test('a cursor made for another sort answers 400 ValidationError', async () => {
    const { h, token } = await setup()
    for (let i = 0; i < 3; i++) await capture(h, token, `https://example.com/c/${i}`)
    const first = await h.call('GET', '/v1/saved-items?sort=newest&limit=1', { token })
    const cursor = new URL(/^<([^>]+)>/.exec(first.headers.get('link')!)![1]!).searchParams.get('cursor')!
    for (const sort of ['oldest', 'title', 'unread']) {
      const reply = await h.call('GET', `/v1/saved-items?sort=${sort}&limit=1&cursor=${encodeURIComponent(cursor)}`, {
        token,
      })
      expect(reply.status).toBe(400)
      expect(reply.body).toEqual({ _tag: 'ValidationError', message: expect.any(String) })
    }
  })

  test.each([
    ['garbage', 'not-a-cursor!!'],
    ['base64 of non-JSON', btoa('hello').replace(/=+$/, '')],
    ['base64 of a JSON object', btoa('{"a":1}').replace(/=+$/, '')],
    ['base64 of a short array', btoa('["newest"]').replace(/=+$/, '')],
    ['base64 of wrong value types', btoa('["newest",null,{}]').replace(/=+$/, '')],
    ['empty', ''],
  ])('a %s cursor answers 400 ValidationError', async (_name, cursor) => {
    const { h, token } = await setup()
    await capture(h, token, 'https://example.com/garbage')
    const reply = await h.call('GET', `/v1/saved-items?limit=1&cursor=${encodeURIComponent(cursor)}`, { token })
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ _tag: 'ValidationError', message: expect.any(String) })
  })
})

describe('POST /v1/saved-items/:id/{open,read,unread,read-state}', () => {
  test('open marks the item read and records openedAt; opening a read item again does not bump updatedAt', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.com/open')
    h.clock.advance(2000)
    const opened = await h.call('POST', `/v1/saved-items/${item.id}/open`, { token })
    expect(opened.status).toBe(200)
    expect(opened.body).toEqual({ ...item, isRead: true, updatedAt: '2026-11-22T10:00:02.000Z' })
    h.clock.advance(2000)
    // docs/api.md#no-op-writes: openedAt is not part of the item, so this open changes nothing a client sees.
    const again = await h.call('POST', `/v1/saved-items/${item.id}/open`, { token })
    expect(again.body).toEqual({ ...item, isRead: true, updatedAt: '2026-11-22T10:00:02.000Z' })
    const row = await h.db.$client.execute({ sql: 'SELECT opened_at FROM saved_items WHERE id = ?', args: [item.id] })
    expect(row.rows[0]!.opened_at).toBe('2026-11-22T10:00:04.000Z')
  })

  test('read and unread flip isRead, bump updatedAt on change, and keep lastSavedAt', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.com/rw')
    h.clock.advance(1000)
    const read = await h.call('POST', `/v1/saved-items/${item.id}/read`, { token })
    expect(read.status).toBe(200)
    expect(read.body).toEqual({ ...item, isRead: true, updatedAt: '2026-11-22T10:00:01.000Z' })
    h.clock.advance(1000)
    const unread = await h.call('POST', `/v1/saved-items/${item.id}/unread`, { token })
    expect(unread.status).toBe(200)
    expect(unread.body).toEqual({ ...item, isRead: false, updatedAt: '2026-11-22T10:00:02.000Z' })
  })

  test('read-state sets the given boolean', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.com/rs')
    h.clock.advance(1000)
    const on = await h.call('POST', `/v1/saved-items/${item.id}/read-state`, { token, body: { isRead: true } })
    expect(on.status).toBe(200)
    expect(on.body).toEqual({ ...item, isRead: true, updatedAt: '2026-11-22T10:00:01.000Z' })
    h.clock.advance(1000)
    const off = await h.call('POST', `/v1/saved-items/${item.id}/read-state`, { token, body: { isRead: false } })
    expect(off.body).toEqual({ ...item, isRead: false, updatedAt: '2026-11-22T10:00:02.000Z' })
  })

  test('a request that changes nothing does not bump updatedAt', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.com/noop')
    h.clock.advance(1000)
    const unread = await h.call('POST', `/v1/saved-items/${item.id}/unread`, { token })
    expect(unread.body).toEqual(item)
    const rsFalse = await h.call('POST', `/v1/saved-items/${item.id}/read-state`, { token, body: { isRead: false } })
    expect(rsFalse.body).toEqual(item)
    const nullFolder = await h.call('PUT', `/v1/saved-items/${item.id}/folder`, { token, body: { folderId: null } })
    expect(nullFolder.body).toEqual(item)

    const read = await h.call('POST', `/v1/saved-items/${item.id}/read`, { token })
    const readAt = read.body.updatedAt
    expect(readAt).toBe('2026-11-22T10:00:01.000Z')
    h.clock.advance(1000)
    expect((await h.call('POST', `/v1/saved-items/${item.id}/read`, { token })).body.updatedAt).toBe(readAt)
    expect(
      (await h.call('POST', `/v1/saved-items/${item.id}/read-state`, { token, body: { isRead: true } })).body.updatedAt,
    ).toBe(readAt)

    const folder = await createFolder(h, token, 'Same')
    h.clock.advance(1000)
    const moved = await h.call('PUT', `/v1/saved-items/${item.id}/folder`, { token, body: { folderId: folder.id } })
    expect(moved.body.updatedAt).toBe('2026-11-22T10:00:03.000Z')
    h.clock.advance(1000)
    const same = await h.call('PUT', `/v1/saved-items/${item.id}/folder`, { token, body: { folderId: folder.id } })
    expect(same.body).toEqual(moved.body)
  })

  test.each(['open', 'read', 'unread'])(
    '%s on an unknown item answers 404 SavedItemNotFoundError with savedItemId',
    async (action) => {
      const { h, token } = await setup()
      const reply = await h.call('POST', `/v1/saved-items/missing-id/${action}`, { token })
      expect(reply.status).toBe(404)
      expect(reply.body).toEqual({
        _tag: 'SavedItemNotFoundError',
        message: expect.any(String),
        savedItemId: 'missing-id',
      })
    },
  )

  test('read-state on an unknown item answers 404 SavedItemNotFoundError', async () => {
    const { h, token } = await setup()
    const reply = await h.call('POST', '/v1/saved-items/missing-id/read-state', { token, body: { isRead: true } })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({
      _tag: 'SavedItemNotFoundError',
      message: expect.any(String),
      savedItemId: 'missing-id',
    })
  })
})

describe('PUT /v1/saved-items/:id/folder', () => {
  test('sets the folder, then clears it with null, bumping updatedAt each time', async () => {
    const { h, token } = await setup()
    const folder = await createFolder(h, token, 'Later')
    const item = await capture(h, token, 'https://example.com/move')
    h.clock.advance(1000)
    const set = await h.call('PUT', `/v1/saved-items/${item.id}/folder`, { token, body: { folderId: folder.id } })
    expect(set.status).toBe(200)
    expect(set.body).toEqual({ ...item, folder, updatedAt: '2026-11-22T10:00:01.000Z' })
    expect((await list(h, token, `?folder=${folder.id}`)).map((i) => i.id)).toEqual([item.id])
    h.clock.advance(1000)
    const cleared = await h.call('PUT', `/v1/saved-items/${item.id}/folder`, { token, body: { folderId: null } })
    expect(cleared.status).toBe(200)
    expect(cleared.body).toEqual({ ...item, folder: null, updatedAt: '2026-11-22T10:00:02.000Z' })
    expect(await list(h, token, `?folder=${folder.id}`)).toEqual([])
  })

  test('an unknown folder answers 404 FolderNotFoundError and leaves the item unchanged', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.com/badfolder')
    h.clock.advance(1000)
    const reply = await h.call('PUT', `/v1/saved-items/${item.id}/folder`, { token, body: { folderId: 'no-folder' } })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: 'no-folder' })
    expect(await list(h, token)).toEqual([item])
  })

  test("another person's folder answers 404 FolderNotFoundError and leaves the item unchanged", async () => {
    const h = await createHarness()
    const alice = await (await h.user()).key()
    const bob = await (await h.user()).key()
    const bobs = await createFolder(h, bob, 'Bob')
    const item = await capture(h, alice, 'https://example.com/alice')
    const reply = await h.call('PUT', `/v1/saved-items/${item.id}/folder`, {
      token: alice,
      body: { folderId: bobs.id },
    })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: bobs.id })
    expect(await list(h, alice)).toEqual([item])
  })

  test.each([
    ['a folder id', true],
    ['null', false],
  ])('an unknown item with %s answers 404 SavedItemNotFoundError', async (_name, withFolder) => {
    const { h, token } = await setup()
    const folder = await createFolder(h, token, 'Exists')
    const reply = await h.call('PUT', '/v1/saved-items/ghost/folder', {
      token,
      body: { folderId: withFolder ? folder.id : null },
    })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'SavedItemNotFoundError', message: expect.any(String), savedItemId: 'ghost' })
  })
})

describe('DELETE /v1/saved-items/:id', () => {
  test('answers 204 with an empty body, and 204 again when already gone', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.com/delete')
    const keep = await capture(h, token, 'https://example.com/keep')
    const first = await h.call('DELETE', `/v1/saved-items/${item.id}`, { token })
    expect(first.status).toBe(204)
    expect(first.text).toBe('')
    expect((await list(h, token)).map((i) => i.id)).toEqual([keep.id])
    const again = await h.call('DELETE', `/v1/saved-items/${item.id}`, { token })
    expect(again.status).toBe(204)
    expect(again.text).toBe('')
    const never = await h.call('DELETE', '/v1/saved-items/never-existed', { token })
    expect(never.status).toBe(204)
    expect(await countRows(h.db, 'saved_items')).toBe(1)
  })

  test('a deleted URL captured again is a new item', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.com/reborn')
    await h.call('DELETE', `/v1/saved-items/${item.id}`, { token })
    const again = await h.call('POST', '/v1/captures', { token, body: { url: 'https://example.com/reborn' } })
    expect(again.status).toBe(201)
    expect(again.body.savedItem.id).not.toBe(item.id)
  })
})

describe("another person's item", () => {
  test('answers 404 SavedItemNotFoundError on every item route and changes nothing', async () => {
    const h = await createHarness()
    const alice = await (await h.user()).key()
    const bob = await (await h.user()).key()
    const bobsFolder = await createFolder(h, bob, 'Bob')
    const alicesFolder = await createFolder(h, alice, 'Alice')
    const bobs = await capture(h, bob, 'https://example.com/bobs-item', { folderId: bobsFolder.id })
    h.clock.advance(1000)
    const attempts: [string, string, unknown][] = [
      ['POST', `/v1/saved-items/${bobs.id}/open`, undefined],
      ['POST', `/v1/saved-items/${bobs.id}/read`, undefined],
      ['POST', `/v1/saved-items/${bobs.id}/unread`, undefined],
      ['POST', `/v1/saved-items/${bobs.id}/read-state`, { isRead: true }],
      ['PUT', `/v1/saved-items/${bobs.id}/folder`, { folderId: null }],
      ['PUT', `/v1/saved-items/${bobs.id}/folder`, { folderId: alicesFolder.id }],
    ]
    for (const [method, path, body] of attempts) {
      const reply = await h.call(method, path, { token: alice, body })
      expect({ method, path, status: reply.status }).toEqual({ method, path, status: 404 })
      expect(reply.body).toEqual({ _tag: 'SavedItemNotFoundError', message: expect.any(String), savedItemId: bobs.id })
    }
    const deleted = await h.call('DELETE', `/v1/saved-items/${bobs.id}`, { token: alice })
    expect(deleted.status).toBe(204)
    expect(await list(h, bob)).toEqual([bobs])
    expect(await list(h, alice)).toEqual([])
  })
})
