import { describe, expect, test } from 'bun:test'
import { runMaintenance } from '../../adapters/storage/maintenance.ts'
import type { Harness } from '../helpers/harness.ts'
import { signedInWithKey, snapshot } from './fixtures.ts'
import { textOf, type WebClient } from './web-client.ts'

// docs/web.md#queue: the queue's filters, sorts, paging and actions over HTTP, checked through the API.

type Person = Awaited<ReturnType<typeof signedInWithKey>>

async function save(p: Person, url: string, fields: { title?: string; read?: boolean } = {}): Promise<string> {
  const reply = await p.h.call('POST', '/v1/captures', { token: p.key, body: { url } })
  expect(reply.status).toBeLessThan(300)
  const id = reply.body.savedItem.id as string
  if (fields.title)
    await p.h.db.$client.execute({ sql: 'UPDATE saved_items SET title = ? WHERE id = ?', args: [fields.title, id] })
  if (fields.read) await p.h.call('POST', `/v1/saved-items/${id}/read`, { token: p.key })
  p.h.clock.advance(1000)
  return id
}

/** The item as the API lists it: `{ status: 404 }` when it is not in the person's list. */
async function api(p: Person, id: string): Promise<{ status: number; body: { savedItem?: any } }> {
  const list = (await p.h.call('GET', '/v1/saved-items?limit=500&sort=oldest', { token: p.key })).body
    .savedItems as any[]
  const savedItem = list.find((item) => item.id === id)
  return savedItem ? { status: 200, body: { savedItem } } : { status: 404, body: {} }
}
const titlesOn = async (web: WebClient, path: string) =>
  [...(await web.get(path)).text.matchAll(/<a class="title" href="[^"]+"[^>]*>([^<]+)<\/a>/g)].map((m) => m[1])

describe('filters, sorts and paging', () => {
  test('Unread (the default), All and Read; the four sorts; each keeps the others', async () => {
    const p = await signedInWithKey('filters@example.com')
    await save(p, 'https://b.example/', { title: 'Banana' })
    await save(p, 'https://a.example/', { title: 'Apple', read: true })
    await save(p, 'https://c.example/', { title: 'Cherry' })
    expect(await titlesOn(p.web, '/')).toEqual(['Cherry', 'Banana'])
    expect(await titlesOn(p.web, '/?state=all')).toEqual(['Cherry', 'Apple', 'Banana'])
    expect(await titlesOn(p.web, '/?state=read')).toEqual(['Apple'])
    expect(await titlesOn(p.web, '/?state=all&sort=oldest')).toEqual(['Banana', 'Apple', 'Cherry'])
    expect(await titlesOn(p.web, '/?state=all&sort=title')).toEqual(['Apple', 'Banana', 'Cherry'])
    expect(await titlesOn(p.web, '/?state=all&sort=unread')).toEqual(['Cherry', 'Banana', 'Apple'])
    const page = (await p.web.get('/?state=all&sort=title')).text
    for (const [label, href] of [
      ['Newest', '/?state=all'],
      ['Oldest', '/?state=all&amp;sort=oldest'],
      ['Unread first', '/?state=all&amp;sort=unread'],
      ['Unread', '/?sort=title'],
      ['Read', '/?state=read&amp;sort=title'],
    ])
      expect(page).toContain(`<a href="${href}">${label}</a>`)
    expect(page).toContain('<a href="/?state=all&amp;sort=title" aria-current="page">Title</a>')
    // Unknown values are the defaults, never an error page.
    expect(await titlesOn(p.web, '/?state=nope&sort=sideways')).toEqual(['Cherry', 'Banana'])
  })

  test('50 cards a page; "More items" pages by cursor through every item once', async () => {
    const p = await signedInWithKey('paging@example.com')
    for (let i = 0; i < 62; i++)
      await save(p, `https://paging.example/${i}`, { title: `Item ${String(i).padStart(2, '0')}` })
    const first = await p.web.get('/?sort=title')
    const more = /<a class="button secondary" rel="next" href="([^"]+)">More items<\/a>/.exec(first.text)
    expect(more).not.toBeNull()
    const seen = await titlesOn(p.web, '/?sort=title')
    expect(seen).toHaveLength(50)
    const next = await titlesOn(p.web, more![1]!.replaceAll('&amp;', '&'))
    expect(next).toHaveLength(12)
    expect([...seen, ...next]).toEqual(Array.from({ length: 62 }, (_, i) => `Item ${String(i).padStart(2, '0')}`))
    expect((await p.web.get(more![1]!.replaceAll('&amp;', '&'))).text).not.toContain('More items')
    // A cursor of another sort or garbage: the first page.
    expect(await titlesOn(p.web, '/?sort=newest&cursor=garbage')).toHaveLength(50)
  })

  test('the folder list counts each folder’s items', async () => {
    const p = await signedInWithKey('counts@example.com')
    const folder = (await p.h.call('POST', '/v1/folders', { token: p.key, body: { name: 'Later' } })).body
    const a = await save(p, 'https://one.example/')
    await save(p, 'https://two.example/')
    await p.h.call('PUT', `/v1/saved-items/${a}/folder`, { token: p.key, body: { folderId: folder.id } })
    const page = (await p.web.get('/')).text
    expect(page).toContain('All folders <span class="count">2</span>')
    expect(page).toContain('No folder <span class="count">1</span>')
    expect(page).toContain(`<a href="/?folder=${folder.id}">Later <span class="count">1</span></a>`)
  })
})

describe('item actions', () => {
  test('open records the visit as POST …/open does, then goes to the original', async () => {
    const p = await signedInWithKey('open@example.com')
    const id = await save(p, 'https://open.example/page')
    const opened = await p.web.get(`/queue/items/${id}/open`)
    expect(opened.status).toBe(303)
    expect(opened.location).toBe('https://open.example/page')
    expect((await api(p, id)).body.savedItem.isRead).toBe(true)
    // openedAt is not on the wire (the spec's SavedItem has no such field): read from the row.
    const row = await p.h.db.$client.execute({
      sql: 'SELECT opened_at AS openedAt FROM saved_items WHERE id = ?',
      args: [id],
    })
    expect(row.rows[0]!.openedAt).toBe(p.h.clock.now().toISOString())
  })

  test('an image or fetch of the open address (not a navigation) changes nothing', async () => {
    const p = await signedInWithKey('open-img@example.com')
    const id = await save(p, 'https://img.example/page')
    for (const mode of ['no-cors', 'cors', 'same-origin']) {
      const reply = await p.web.request('GET', `/queue/items/${id}/open`, undefined, { 'sec-fetch-mode': mode })
      expect(reply.status).toBe(303)
    }
    expect((await api(p, id)).body.savedItem.isRead).toBe(false)
    await p.web.request('GET', `/queue/items/${id}/open`, undefined, { 'sec-fetch-mode': 'navigate' })
    expect((await api(p, id)).body.savedItem.isRead).toBe(true)
  })

  test('Move to folder: a page of the folders, then the item is in the one chosen; back to the queue', async () => {
    const p = await signedInWithKey('move@example.com')
    const folder = (await p.h.call('POST', '/v1/folders', { token: p.key, body: { name: 'Reading <list>' } })).body
    const id = await save(p, 'https://move.example/', { title: 'To move' })
    const form = await p.web.get(`/queue/items/${id}/move?return=${encodeURIComponent('/?sort=oldest')}`)
    expect(form.status).toBe(200)
    expect(textOf(form.text)).toContain('To move')
    expect(form.text).toContain(`<input type="radio" name="folderId" value="${folder.id}"> Reading &lt;list&gt;`)
    const moved = await p.web.post(`/queue/items/${id}/folder`, { folderId: folder.id, return: '/?sort=oldest' })
    expect(moved.status).toBe(303)
    expect(moved.location).toBe('/?sort=oldest&done=moved')
    expect((await api(p, id)).body.savedItem.folder).toEqual({ id: folder.id, name: 'Reading <list>' })
    await p.web.post(`/queue/items/${id}/folder`, { folderId: '', return: '/' })
    expect((await api(p, id)).body.savedItem.folder).toBeNull()
  })

  test('a folder that is not the person’s, or an item that is not theirs: 404, nothing changes', async () => {
    const p = await signedInWithKey('move-owner@example.com')
    const id = await save(p, 'https://mine.example/')
    const other = await signedInWithKey('move-other@example.com', p.h)
    const theirFolder = (await other.h.call('POST', '/v1/folders', { token: other.key, body: { name: 'Theirs' } })).body
    const before = await snapshot(p.h)
    expect((await p.web.post(`/queue/items/${id}/folder`, { folderId: theirFolder.id })).status).toBe(404)
    expect((await other.web.post(`/queue/items/${id}/folder`, { folderId: theirFolder.id })).status).toBe(404)
    expect((await other.web.post(`/queue/items/${id}/delete`, {})).status).toBe(404)
    expect((await other.web.get(`/queue/items/${id}/move`)).status).toBe(404)
    expect((await other.web.get(`/queue/items/${id}/open`)).status).toBe(404)
    expect(await snapshot(p.h)).toBe(before)
  })

  test('Delete, then Undo: the same item back (id, folder, read state, times, tags, article, position)', async () => {
    const p = await signedInWithKey('undo@example.com')
    const folder = (await p.h.call('POST', '/v1/folders', { token: p.key, body: { name: 'Keep' } })).body
    const id = await save(p, 'https://undo.example/post', { title: 'Worth keeping', read: true })
    await p.h.call('PUT', `/v1/saved-items/${id}/folder`, { token: p.key, body: { folderId: folder.id } })
    await p.h.db.$client.execute({
      sql: `INSERT INTO item_contents (item_id, title, word_count, html, text, extracted_at) VALUES (?, 'Worth keeping', 460, '<p>Body</p>', 'Body', '2026-11-22T10:00:00.000Z')`,
      args: [id],
    })
    await p.h.db.$client.execute({
      sql: `INSERT INTO reading_progress (item_id, progress, updated_at) VALUES (?, 0.4, '2026-11-22T10:00:00.000Z')`,
      args: [id],
    })
    const before = (await api(p, id)).body.savedItem
    const deleted = await p.web.post(`/queue/items/${id}/delete`, { return: '/?state=all' })
    expect(deleted.status).toBe(303)
    expect(deleted.location).toBe(`/?state=all&deleted=${id}`)
    expect((await api(p, id)).status).toBe(404)
    const page = await p.web.get(deleted.location!)
    expect(textOf(page.text)).toContain('Deleted “Worth keeping”.')
    expect(page.text).toContain(`action="/queue/items/${id}/restore"`)
    const restored = await p.web.post(`/queue/items/${id}/restore`, { return: '/?state=all' })
    expect(restored.location).toBe('/?state=all&done=restored')
    expect((await api(p, id)).body.savedItem).toEqual(before)
    const content = await p.h.call('GET', `/v1/saved-items/${id}/content`, { token: p.key })
    expect(content.status).toBe(200)
    expect(content.body).toMatchObject({ progress: 0.4, wordCount: 460 })
    // Undone once: a second undo has nothing to restore.
    expect((await p.web.post(`/queue/items/${id}/restore`, {})).location).toBe('/?done=undo-expired')
  })

  test('Undo after 10 minutes, or after the URL was saved again, or by someone else: nothing changes', async () => {
    const p = await signedInWithKey('undo-late@example.com')
    const late = await save(p, 'https://late.example/')
    await p.web.post(`/queue/items/${late}/delete`, {})
    p.h.clock.advance(10 * 60 * 1000 + 1)
    expect((await p.web.post(`/queue/items/${late}/restore`, {})).location).toBe('/?done=undo-expired')
    expect((await api(p, late)).status).toBe(404)

    const again = await save(p, 'https://again.example/')
    await p.web.post(`/queue/items/${again}/delete`, {})
    const fresh = await save(p, 'https://again.example/')
    expect((await p.web.post(`/queue/items/${again}/restore`, {})).location).toBe('/?done=saved-again')
    expect((await api(p, again)).status).toBe(404)
    expect((await api(p, fresh)).status).toBe(200)

    const mine = await save(p, 'https://mine-only.example/')
    await p.web.post(`/queue/items/${mine}/delete`, {})
    const other = await signedInWithKey('undo-other@example.com', p.h)
    expect((await other.web.post(`/queue/items/${mine}/restore`, {})).location).toBe('/?done=undo-expired')
    expect(textOf((await other.web.get(`/?deleted=${mine}`)).text)).not.toContain('Deleted')
    expect((await api(p, mine)).status).toBe(404)
    // The copy is still the owner's to restore.
    expect((await p.web.post(`/queue/items/${mine}/restore`, {})).location).toBe('/?done=restored')
  })

  test('maintenance drops copies past the undo window', async () => {
    const p = await signedInWithKey('undo-prune@example.com')
    const id = await save(p, 'https://prune.example/')
    await p.web.post(`/queue/items/${id}/delete`, {})
    const count = async () =>
      Number((await p.h.db.$client.execute('SELECT count(*) AS n FROM deleted_items')).rows[0]!.n)
    await runMaintenance(p.h.db, p.h.clock.now())
    expect(await count()).toBe(1)
    p.h.clock.advance(10 * 60 * 1000 + 1)
    await runMaintenance(p.h.db, p.h.clock.now())
    expect(await count()).toBe(0)
  })
})

describe('folders from the page', () => {
  test('create, rename and delete; a refused name says why beside the form, nothing written', async () => {
    const p = await signedInWithKey('folders-page@example.com')
    const created = await p.web.post('/queue/folders', { name: '  Long reads ' })
    expect(created.location).toBe('/queue/folders?done=folder-created')
    const [folder] = (await p.h.call('GET', '/v1/folders', { token: p.key })).body.folders
    expect(folder.name).toBe('Long reads')
    const before = await snapshot(p.h)
    const blank = await p.web.post('/queue/folders', { name: '   ' })
    expect(blank.status).toBe(400)
    expect(blank.text).toContain(
      '<p class="error" role="alert">Cannot use folder name: it is empty or only whitespace</p>',
    )
    const taken = await p.web.post('/queue/folders', { name: 'long READS' })
    expect(taken.status).toBe(409)
    expect(textOf(taken.text)).toContain('You already have a folder with that name.')
    expect(await snapshot(p.h)).toBe(before)
    expect((await p.web.post(`/queue/folders/${folder.id}/rename`, { name: 'Longer reads' })).location).toBe(
      '/queue/folders?done=folder-renamed',
    )
    expect((await p.h.call('GET', '/v1/folders', { token: p.key })).body.folders[0].name).toBe('Longer reads')
    const id = await save(p, 'https://kept.example/')
    await p.h.call('PUT', `/v1/saved-items/${id}/folder`, { token: p.key, body: { folderId: folder.id } })
    expect((await p.web.post(`/queue/folders/${folder.id}/delete`, {})).location).toBe(
      '/queue/folders?done=folder-deleted',
    )
    expect((await p.h.call('GET', '/v1/folders', { token: p.key })).body.folders).toEqual([])
    expect((await api(p, id)).body.savedItem.folder).toBeNull()
  })

  test('another person’s folder cannot be renamed or deleted (404)', async () => {
    const p = await signedInWithKey('folder-owner@example.com')
    const folder = (await p.h.call('POST', '/v1/folders', { token: p.key, body: { name: 'Mine' } })).body
    const other = await signedInWithKey('folder-other@example.com', p.h)
    expect((await other.web.post(`/queue/folders/${folder.id}/rename`, { name: 'Stolen' })).status).toBe(404)
    expect((await other.web.post(`/queue/folders/${folder.id}/delete`, {})).status).toBe(404)
    expect((await p.h.call('GET', '/v1/folders', { token: p.key })).body.folders).toEqual([folder])
  })
})

describe('every new form checks its CSRF token first', () => {
  test.each([
    ['delete', (id: string) => `/queue/items/${id}/delete`],
    ['restore', (id: string) => `/queue/items/${id}/restore`],
    ['move', (id: string) => `/queue/items/${id}/folder`],
    ['create folder', () => '/queue/folders'],
  ])('%s without a token: 403, nothing changes', async (_name, path) => {
    const p: Person = await signedInWithKey(`csrf-${Math.random()}@example.com`)
    const id = await save(p, 'https://csrf.example/')
    const before = await snapshot(p.h as Harness)
    const reply = await p.web.post(path(id), { name: 'x', folderId: '' }, { csrf: null })
    expect(reply.status).toBe(403)
    expect(await snapshot(p.h)).toBe(before)
  })
})
