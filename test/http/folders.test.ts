import { describe, expect, test } from 'bun:test'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'

const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

async function setup(): Promise<{ h: Harness; token: string }> {
  const h = await createHarness()
  const user = await h.user()
  return { h, token: await user.key() }
}

const create = (h: Harness, token: string, name: unknown) => h.call('POST', '/v1/folders', { token, body: { name } })
const rename = (h: Harness, token: string, id: string, name: unknown) =>
  h.call('PATCH', `/v1/folders/${id}`, { token, body: { name } })

async function folders(h: Harness, token: string): Promise<{ id: string; name: string }[]> {
  const reply = await h.call('GET', '/v1/folders', { token })
  expect(reply.status).toBe(200)
  return reply.body.folders
}

describe('POST /v1/folders', () => {
  test('creates a folder: 200 with exactly { id, name }', async () => {
    const { h, token } = await setup()
    const reply = await create(h, token, 'Reading list')
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ id: expect.stringMatching(UUIDV7), name: 'Reading list' })
    expect(await folders(h, token)).toEqual([reply.body])
  })

  test('trims the name and stores it NFC-normalized', async () => {
    const { h, token } = await setup()
    const trimmed = await create(h, token, '  \t Spaced out \n ')
    expect(trimmed.body.name).toBe('Spaced out')
    const decomposed = 'Cafe\u0301'
    const nfc = await create(h, token, decomposed)
    expect(nfc.status).toBe(200)
    expect(nfc.body.name).toBe('Caf\u00e9')
    expect((await folders(h, token)).map((f) => f.name)).toEqual(['Caf\u00e9', 'Spaced out'])
  })

  test('accepts 100 characters, counting an emoji as one', async () => {
    const { h, token } = await setup()
    expect((await create(h, token, 'x'.repeat(100))).status).toBe(200)
    expect((await create(h, token, '📚'.repeat(100))).status).toBe(200)
  })

  test.each([
    ['an exact duplicate', 'Work', 'Work'],
    ['a change of case', 'Work', 'wORK'],
    ['a duplicate after trimming', 'Work', '   Work  '],
    ['a duplicate after NFC', 'Caf\u00e9', 'Cafe\u0301'],
    ['a non-ASCII change of case', 'Über', 'über'],
  ])('%s answers 409 FolderNameConflictError and creates nothing', async (_name, first, second) => {
    const { h, token } = await setup()
    expect((await create(h, token, first)).status).toBe(200)
    const reply = await create(h, token, second)
    expect(reply.status).toBe(409)
    expect(reply.body).toEqual({ _tag: 'FolderNameConflictError', message: expect.any(String) })
    expect(await countRows(h.db, 'folders')).toBe(1)
  })

  test('two people may use the same name', async () => {
    const h = await createHarness()
    const alice = await (await h.user()).key()
    const bob = await (await h.user()).key()
    expect((await create(h, alice, 'Shared')).status).toBe(200)
    expect((await create(h, bob, 'Shared')).status).toBe(200)
    expect(await countRows(h.db, 'folders')).toBe(2)
  })

  test.each([
    ['empty', ''],
    ['spaces only', '    '],
    ['whitespace only', ' \t\n '],
    ['101 characters', 'x'.repeat(101)],
    ['a newline inside', 'Two\nlines'],
    ['a NUL', 'nul\u0000byte'],
    ['a tab inside', 'tab\there'],
    ['DEL', 'del\u007f'],
    ['a C1 control', 'c1\u0085x'],
    ['a Hangul filler only', '\u3164'],
    ['fillers and a braille blank only', '\u3164\u2800 '],
    ['a combining grapheme joiner only', '\u034f'],
    ['a zero-width space only', '\u200b'],
  ])('a name that is %s answers 400 InvalidFolderNameError and creates nothing', async (_name, name) => {
    const { h, token } = await setup()
    const reply = await create(h, token, name)
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ _tag: 'InvalidFolderNameError', message: expect.any(String) })
    expect(await countRows(h.db, 'folders')).toBe(0)
  })
})

describe('GET /v1/folders', () => {
  test('lists folders sorted by name, case-insensitively', async () => {
    const { h, token } = await setup()
    for (const name of ['banana', 'Cherry', 'apple', 'Banana split', 'APRICOT', 'zebra']) {
      expect((await create(h, token, name)).status).toBe(200)
    }
    expect((await folders(h, token)).map((f) => f.name)).toEqual([
      'apple',
      'APRICOT',
      'banana',
      'Banana split',
      'Cherry',
      'zebra',
    ])
  })

  test("lists only the caller's folders", async () => {
    const h = await createHarness()
    const alice = await (await h.user()).key()
    const bob = await (await h.user()).key()
    const a = await create(h, alice, 'Alice')
    await create(h, bob, 'Bob')
    expect(await folders(h, alice)).toEqual([a.body])
  })

  test('an empty list is { folders: [] }', async () => {
    const { h, token } = await setup()
    const reply = await h.call('GET', '/v1/folders', { token })
    expect(reply.body).toEqual({ folders: [] })
  })
})

describe('PATCH /v1/folders/:id', () => {
  test('renames a folder: 200 { id, name }, trimmed, and items show the new name', async () => {
    const { h, token } = await setup()
    const folder = (await create(h, token, 'Old')).body
    const item = await h.call('POST', '/v1/captures', {
      token,
      body: { url: 'https://example.com/in-folder', folderId: folder.id },
    })
    const reply = await rename(h, token, folder.id, '  New name ')
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ id: folder.id, name: 'New name' })
    expect(await folders(h, token)).toEqual([{ id: folder.id, name: 'New name' }])
    const listed = await h.call('GET', '/v1/saved-items', { token })
    expect(listed.body.savedItems[0]).toMatchObject({
      id: item.body.savedItem.id,
      folder: { id: folder.id, name: 'New name' },
    })
  })

  test('renaming to its own name, or a change of case of it, answers 200', async () => {
    const { h, token } = await setup()
    const folder = (await create(h, token, 'Inbox')).body
    const same = await rename(h, token, folder.id, 'Inbox')
    expect(same.status).toBe(200)
    expect(same.body).toEqual({ id: folder.id, name: 'Inbox' })
    const recased = await rename(h, token, folder.id, 'INBOX')
    expect(recased.status).toBe(200)
    expect(recased.body).toEqual({ id: folder.id, name: 'INBOX' })
    expect(await folders(h, token)).toEqual([{ id: folder.id, name: 'INBOX' }])
  })

  test("renaming onto another folder's name (any case) answers 409 and changes nothing", async () => {
    const { h, token } = await setup()
    const a = (await create(h, token, 'Alpha')).body
    const b = (await create(h, token, 'Beta')).body
    for (const name of ['Alpha', 'alpha', ' ALPHA ']) {
      const reply = await rename(h, token, b.id, name)
      expect(reply.status).toBe(409)
      expect(reply.body).toEqual({ _tag: 'FolderNameConflictError', message: expect.any(String) })
    }
    expect(await folders(h, token)).toEqual([a, b])
  })

  test('renaming an unknown folder answers 404 FolderNotFoundError with folderId', async () => {
    const { h, token } = await setup()
    const reply = await rename(h, token, 'no-such-folder', 'Anything')
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: 'no-such-folder' })
  })

  test("renaming another person's folder answers 404 and leaves it unchanged", async () => {
    const h = await createHarness()
    const alice = await (await h.user()).key()
    const bob = await (await h.user()).key()
    const bobs = (await create(h, bob, 'Bob folder')).body
    const reply = await rename(h, alice, bobs.id, 'Hijacked')
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: bobs.id })
    expect(await folders(h, bob)).toEqual([bobs])
  })

  test.each([
    ['empty', ''],
    ['spaces only', '   '],
    ['101 characters', 'y'.repeat(101)],
    ['a control character', 'bell\u0007'],
    ['a Hangul filler only', '\u3164'],
  ])('renaming to a name that is %s answers 400 InvalidFolderNameError and changes nothing', async (_name, name) => {
    const { h, token } = await setup()
    const folder = (await create(h, token, 'Stable')).body
    const reply = await rename(h, token, folder.id, name)
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ _tag: 'InvalidFolderNameError', message: expect.any(String) })
    expect(await folders(h, token)).toEqual([folder])
  })
})

describe('DELETE /v1/folders/:id', () => {
  test('answers 204 with no body and keeps its items with folder null', async () => {
    const { h, token } = await setup()
    const folder = (await create(h, token, 'Doomed')).body
    const other = (await create(h, token, 'Other')).body
    const inDoomed = await h.call('POST', '/v1/captures', {
      token,
      body: { url: 'https://example.com/doomed', folderId: folder.id },
    })
    h.clock.advance(1)
    const inOther = await h.call('POST', '/v1/captures', {
      token,
      body: { url: 'https://example.com/other', folderId: other.id },
    })
    h.clock.advance(5_000)
    const reply = await h.call('DELETE', `/v1/folders/${folder.id}`, { token })
    expect(reply.status).toBe(204)
    expect(reply.text).toBe('')
    expect(await folders(h, token)).toEqual([other])
    const items = (await h.call('GET', '/v1/saved-items', { token })).body.savedItems
    expect(items.map((i: any) => [i.id, i.folder])).toEqual([
      [inOther.body.savedItem.id, other],
      [inDoomed.body.savedItem.id, null],
    ])
    // Taken out of the folder is a change of the item (docs/api.md#folders); the other item is untouched.
    expect(items.map((i: any) => i.updatedAt)).toEqual([inOther.body.savedItem.updatedAt, h.clock.now().toISOString()])
    expect(h.clock.now().toISOString()).not.toBe(inDoomed.body.savedItem.updatedAt)
    expect(
      (await h.call('GET', '/v1/saved-items?folder=none', { token })).body.savedItems.map((i: any) => i.id),
    ).toEqual([inDoomed.body.savedItem.id])
    expect(await countRows(h.db, 'saved_items')).toBe(2)
  })

  test('deleting an unknown folder, or one already deleted, answers 404 FolderNotFoundError', async () => {
    const { h, token } = await setup()
    const folder = (await create(h, token, 'Once')).body
    expect((await h.call('DELETE', `/v1/folders/${folder.id}`, { token })).status).toBe(204)
    const again = await h.call('DELETE', `/v1/folders/${folder.id}`, { token })
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: folder.id })
  })

  test("deleting another person's folder answers 404 and keeps it", async () => {
    const h = await createHarness()
    const alice = await (await h.user()).key()
    const bob = await (await h.user()).key()
    const bobs = (await create(h, bob, 'Keep me')).body
    const reply = await h.call('DELETE', `/v1/folders/${bobs.id}`, { token: alice })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: bobs.id })
    expect(await folders(h, bob)).toEqual([bobs])
  })

  test('a deleted name can be created again', async () => {
    const { h, token } = await setup()
    const folder = (await create(h, token, 'Reuse')).body
    await h.call('DELETE', `/v1/folders/${folder.id}`, { token })
    const again = await create(h, token, 'reuse')
    expect(again.status).toBe(200)
    expect(again.body.id).not.toBe(folder.id)
  })
})

describe('GET /v1/me and health', () => {
  test('GET /v1/me answers exactly { id, email } of the caller', async () => {
    const h = await createHarness()
    const user = await h.user('someone@example.com')
    const reply = await h.call('GET', '/v1/me', { token: await user.key() })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ id: user.id, email: 'someone@example.com' })
  })

  test.each(['/health', '/v1/health'])('GET %s answers { ok: true } without credentials', async (path) => {
    const h = await createHarness()
    const reply = await h.call('GET', path)
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ ok: true })
  })
})
