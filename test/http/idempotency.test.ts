import { hashApiKey } from '../../core/auth/api-keys.ts'
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fingerprintRequest } from '../../core/limits/idempotency.ts'
import {
  countRows,
  createHarness,
  type CallOptions,
  type Harness,
  type Reply,
  type TestUser,
} from '../helpers/harness.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const LEASE_MS = 60 * 1000
const REPLAYED_HEADERS = ['content-type', 'link', 'location']

let h: Harness
let token: string
let userId: string
let person: TestUser

beforeEach(async () => {
  h = await createHarness()
  person = await h.user()
  userId = person.id
  token = await person.key()
})

const withKey = (key: string, options: CallOptions = {}): CallOptions => ({
  token,
  ...options,
  headers: { 'idempotency-key': key, ...options.headers },
})

/** A replay repeats the first status, body bytes and stored headers, and says it is a replay. */
function expectReplayOf(replay: Reply, first: Reply): void {
  expect(first.headers.get('idempotent-replayed')).toBeNull()
  expect(replay.headers.get('idempotent-replayed')).toBe('true')
  expect(replay.status).toBe(first.status)
  expect(replay.text).toBe(first.text)
  for (const name of REPLAYED_HEADERS) expect(replay.headers.get(name)).toBe(first.headers.get(name))
  // A replay is still a new request: it has its own id and is counted against the rate limit.
  expect(replay.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'))
  expect(replay.headers.get('ratelimit-limit')).not.toBeNull()
}

async function idempotencyRow(key: string, forUser = userId) {
  const result = await h.db.$client.execute({
    sql: 'SELECT * FROM idempotency_keys WHERE user_id = ? AND key = ?',
    args: [forUser, key],
  })
  return result.rows[0]
}

describe('Idempotency-Key: same key, same request', () => {
  test('a repeated capture replays the first 201 with Idempotent-Replayed: true and saves no second item', async () => {
    const body = { url: 'https://example.com/idem/one', tags: ['ai'] }
    const first = await h.call('POST', '/v1/captures', withKey('capture-1', { body }))
    expect(first.status).toBe(201)
    expect(first.body.captureResult).toBe('created')
    h.clock.advance(5_000)
    const replay = await h.call('POST', '/v1/captures', withKey('capture-1', { body }))
    expectReplayOf(replay, first)
    expect(replay.body).toEqual(first.body)
    expect(await countRows(h.db, 'saved_items')).toBe(1)
    // Without the key, the same capture is a recapture: the replay did not touch the item.
    const recapture = await h.call('POST', '/v1/captures', { token, body })
    expect(recapture.status).toBe(200)
    expect(recapture.body.captureResult).toBe('updated')
    expect(recapture.body.savedItem.lastSavedAt).toBe(new Date(h.clock.current).toISOString())
    expect(first.body.savedItem.lastSavedAt).not.toBe(recapture.body.savedItem.lastSavedAt)
  })

  test('another key of the same person runs the request anew (records belong to one credential)', async () => {
    const body = { url: 'https://example.com/idem/same-person' }
    const first = await h.call('POST', '/v1/captures', withKey('k', { body }))
    expect(first.status).toBe(201)
    const otherKey = await person.key(['saved-items:capture'])
    const fresh = await h.call('POST', '/v1/captures', withKey('k', { body, token: otherKey }))
    expect(fresh.status).toBe(200)
    expect(fresh.body.captureResult).toBe('updated')
    expect(fresh.headers.get('idempotent-replayed')).toBeNull()
    expect(await countRows(h.db, 'saved_items')).toBe(1)
  })

  test('two simultaneous requests with one key run once: one 201, the other a replay or 409 in flight', async () => {
    const body = { url: 'https://example.com/idem/race' }
    const replies = await Promise.all([0, 1, 2, 3].map(() => h.call('POST', '/v1/captures', withKey('race', { body }))))
    const fresh = replies.filter((reply) => reply.status === 201 && reply.headers.get('idempotent-replayed') === null)
    expect(fresh.length).toBe(1)
    for (const reply of replies) {
      if (reply.status === 201) expect(reply.text).toBe(fresh[0]!.text)
      else expect(reply.body).toEqual({ _tag: 'IdempotencyKeyInFlightError', message: expect.any(String) })
    }
    expect(await countRows(h.db, 'saved_items')).toBe(1)
  })
})

describe('Idempotency-Key: same key, different request', () => {
  test('a different body is 422 IdempotencyKeyReuseError and runs nothing', async () => {
    const first = await h.call(
      'POST',
      '/v1/captures',
      withKey('reuse', { body: { url: 'https://example.com/idem/a' } }),
    )
    expect(first.status).toBe(201)
    const reply = await h.call(
      'POST',
      '/v1/captures',
      withKey('reuse', { body: { url: 'https://example.com/idem/b' } }),
    )
    expect(reply.status).toBe(422)
    expect(reply.body).toEqual({ _tag: 'IdempotencyKeyReuseError', message: expect.any(String) })
    expect(reply.headers.get('idempotent-replayed')).toBeNull()
    expect(await countRows(h.db, 'saved_items')).toBe(1)
    // The first answer is still there for a true retry.
    expectReplayOf(
      await h.call('POST', '/v1/captures', withKey('reuse', { body: { url: 'https://example.com/idem/a' } })),
      first,
    )
  })

  test('a different path or method is 422 IdempotencyKeyReuseError and changes nothing', async () => {
    const a = await h.call('POST', '/v1/captures', { token, body: { url: 'https://example.com/idem/path-a' } })
    h.clock.advance(1_000)
    const b = await h.call('POST', '/v1/captures', { token, body: { url: 'https://example.com/idem/path-b' } })
    const first = await h.call('POST', `/v1/saved-items/${a.body.savedItem.id}/read`, withKey('path'))
    expect(first.status).toBe(200)
    expect(first.body.isRead).toBe(true)
    const otherPath = await h.call('POST', `/v1/saved-items/${b.body.savedItem.id}/read`, withKey('path'))
    expect(otherPath.status).toBe(422)
    expect(otherPath.body).toEqual({ _tag: 'IdempotencyKeyReuseError', message: expect.any(String) })
    const otherMethod = await h.call('DELETE', `/v1/saved-items/${a.body.savedItem.id}`, withKey('path'))
    expect(otherMethod.status).toBe(422)
    expect(otherMethod.body).toEqual({ _tag: 'IdempotencyKeyReuseError', message: expect.any(String) })
    const list = await h.call('GET', '/v1/saved-items?sort=oldest', { token })
    expect(list.body.savedItems.map((item: { id: string; isRead: boolean }) => [item.id, item.isRead])).toEqual([
      [a.body.savedItem.id, true],
      [b.body.savedItem.id, false],
    ])
  })
})

describe('Idempotency-Key: a request still running', () => {
  const body = { url: 'https://example.com/idem/in-flight' }

  async function credentialIdOf(apiKey: string): Promise<string> {
    const row = await h.db.$client.execute({
      sql: 'SELECT id FROM api_keys WHERE key_hash = ?',
      args: [hashApiKey(apiKey)],
    })
    return `key:${row.rows[0]!.id}`
  }

  async function insertInFlight(key: string, lockedAtMs: number): Promise<void> {
    const fingerprint = await fingerprintRequest('POST', '/v1/captures', new TextEncoder().encode(JSON.stringify(body)))
    await h.db.$client.execute({
      sql: "INSERT INTO idempotency_keys (credential_id, user_id, key, fingerprint, state, locked_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, 'in-flight', ?, ?)",
      args: [await credentialIdOf(token), userId, key, fingerprint, lockedAtMs, lockedAtMs + DAY_MS],
    })
  }

  test('the same request is 409 IdempotencyKeyInFlightError until the 60 s lease runs out, then it runs', async () => {
    await insertInFlight('busy', h.clock.current)
    const during = await h.call('POST', '/v1/captures', withKey('busy', { body }))
    expect(during.status).toBe(409)
    expect(during.body).toEqual({ _tag: 'IdempotencyKeyInFlightError', message: expect.any(String) })
    expect(await countRows(h.db, 'saved_items')).toBe(0)

    h.clock.advance(LEASE_MS)
    const atLease = await h.call('POST', '/v1/captures', withKey('busy', { body }))
    expect(atLease.status).toBe(409)
    expect(await countRows(h.db, 'saved_items')).toBe(0)

    h.clock.advance(1)
    const takenOver = await h.call('POST', '/v1/captures', withKey('busy', { body }))
    expect(takenOver.status).toBe(201)
    expect(takenOver.headers.get('idempotent-replayed')).toBeNull()
    expect(await countRows(h.db, 'saved_items')).toBe(1)
    const row = await idempotencyRow('busy')
    expect(row?.state).toBe('done')
    expect(row?.status).toBe(201)
    expectReplayOf(await h.call('POST', '/v1/captures', withKey('busy', { body })), takenOver)
  })

  test('a different request with a key still in flight is 422, not 409', async () => {
    await insertInFlight('busy-other', h.clock.current)
    const reply = await h.call(
      'POST',
      '/v1/captures',
      withKey('busy-other', { body: { url: 'https://example.com/idem/else' } }),
    )
    expect(reply.status).toBe(422)
    expect(reply.body).toEqual({ _tag: 'IdempotencyKeyReuseError', message: expect.any(String) })
    expect(await countRows(h.db, 'saved_items')).toBe(0)
    expect((await idempotencyRow('busy-other'))?.state).toBe('in-flight')
  })
})

describe('Idempotency-Key: scope and lifetime', () => {
  test('keys are per person: another person can use the same key string for their own request', async () => {
    const other = await h.user()
    const otherToken = await other.key()
    const mine = await h.call(
      'POST',
      '/v1/captures',
      withKey('shared-string', { body: { url: 'https://example.com/idem/mine' } }),
    )
    const theirs = await h.call(
      'POST',
      '/v1/captures',
      withKey('shared-string', { token: otherToken, body: { url: 'https://example.com/idem/theirs' } }),
    )
    expect(mine.status).toBe(201)
    expect(theirs.status).toBe(201)
    expect(theirs.headers.get('idempotent-replayed')).toBeNull()
    expect(theirs.body.savedItem.id).not.toBe(mine.body.savedItem.id)
    // The same request by the other person is not a replay of mine either.
    const sameBody = await h.call(
      'POST',
      '/v1/captures',
      withKey('same-body', { body: { url: 'https://example.com/idem/same' } }),
    )
    const sameBodyOther = await h.call(
      'POST',
      '/v1/captures',
      withKey('same-body', { token: otherToken, body: { url: 'https://example.com/idem/same' } }),
    )
    expect(sameBodyOther.status).toBe(201)
    expect(sameBodyOther.headers.get('idempotent-replayed')).toBeNull()
    expect(sameBodyOther.body.savedItem.id).not.toBe(sameBody.body.savedItem.id)
    expectReplayOf(
      await h.call(
        'POST',
        '/v1/captures',
        withKey('shared-string', { body: { url: 'https://example.com/idem/mine' } }),
      ),
      mine,
    )
    expectReplayOf(
      await h.call(
        'POST',
        '/v1/captures',
        withKey('shared-string', { token: otherToken, body: { url: 'https://example.com/idem/theirs' } }),
      ),
      theirs,
    )
    expect(await countRows(h.db, 'saved_items')).toBe(4)
    expect(await countRows(h.db, 'idempotency_keys')).toBe(4)
  })

  test('a key is kept 24 h: replayed just before, run afresh from then on', async () => {
    const body = { url: 'https://example.com/idem/expiry' }
    const first = await h.call('POST', '/v1/captures', withKey('day', { body }))
    expect(first.status).toBe(201)
    h.clock.advance(DAY_MS - 1)
    expectReplayOf(await h.call('POST', '/v1/captures', withKey('day', { body })), first)
    h.clock.advance(1)
    const fresh = await h.call('POST', '/v1/captures', withKey('day', { body }))
    expect(fresh.status).toBe(200)
    expect(fresh.body.captureResult).toBe('updated')
    expect(fresh.headers.get('idempotent-replayed')).toBeNull()
    expect(fresh.body.savedItem.lastSavedAt).toBe(h.clock.now().toISOString())
    expect(await countRows(h.db, 'saved_items')).toBe(1)
    // The fresh answer is now the one kept.
    h.clock.advance(1_000)
    expectReplayOf(await h.call('POST', '/v1/captures', withKey('day', { body })), fresh)
    expect(Number((await idempotencyRow('day'))?.expires_at_ms)).toBe(h.clock.current - 1_000 + DAY_MS)
  })

  test('a GET ignores Idempotency-Key and stores nothing', async () => {
    const reply = await h.call('GET', '/v1/folders', withKey('x'.repeat(300)))
    expect(reply.status).toBe(200)
    expect(await countRows(h.db, 'idempotency_keys')).toBe(0)
  })
})

describe('Idempotency-Key: invalid values', () => {
  const invalid: [string, string][] = [
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['non-ASCII', 'clé'],
    ['a control character', 'a\u0001b'],
    ['a tab', 'a\tb'],
    ['DEL', 'a\u007fb'],
  ]
  for (const [name, key] of invalid) {
    test(`${name}: 400 ValidationError and nothing written`, async () => {
      const capture = await h.call(
        'POST',
        '/v1/captures',
        withKey(key, { body: { url: 'https://example.com/idem/invalid' } }),
      )
      expect(capture.status).toBe(400)
      expect(capture.body).toEqual({ _tag: 'ValidationError', message: expect.stringContaining('Idempotency-Key') })
      const folder = await h.call('POST', '/v1/folders', withKey(key, { body: { name: 'Never' } }))
      expect(folder.status).toBe(400)
      expect(folder.body._tag).toBe('ValidationError')
      expect(await countRows(h.db, 'saved_items')).toBe(0)
      expect(await countRows(h.db, 'folders')).toBe(0)
      expect(await countRows(h.db, 'idempotency_keys')).toBe(0)
    })
  }

  test('255 printable ASCII characters (space included) are accepted', async () => {
    const key = ` ~${'k'.repeat(251)}! `.slice(0, 255).replace(/^ /, 'a').replace(/ $/, 'z')
    expect(key.length).toBe(255)
    const first = await h.call(
      'POST',
      '/v1/captures',
      withKey(key, { body: { url: 'https://example.com/idem/long-key' } }),
    )
    expect(first.status).toBe(201)
    expectReplayOf(
      await h.call('POST', '/v1/captures', withKey(key, { body: { url: 'https://example.com/idem/long-key' } })),
      first,
    )
  })
})

describe('Idempotency-Key on every write method', () => {
  test('POST /v1/folders: the replay returns the same folder id and creates no second folder', async () => {
    const first = await h.call('POST', '/v1/folders', withKey('folder-create', { body: { name: 'Inbox' } }))
    expect(first.status).toBe(200)
    const replay = await h.call('POST', '/v1/folders', withKey('folder-create', { body: { name: 'Inbox' } }))
    expectReplayOf(replay, first)
    expect(replay.body).toEqual({ id: first.body.id, name: 'Inbox' })
    expect(await countRows(h.db, 'folders')).toBe(1)
    // Without the key the same request is a name conflict: the replay really was a replay.
    const again = await h.call('POST', '/v1/folders', { token, body: { name: 'Inbox' } })
    expect(again.status).toBe(409)
  })

  test('PATCH /v1/folders/:id: the replay returns the first answer and does not run again', async () => {
    const folder = await h.call('POST', '/v1/folders', { token, body: { name: 'Old' } })
    const first = await h.call('PATCH', `/v1/folders/${folder.body.id}`, withKey('rename', { body: { name: 'First' } }))
    expect(first.body).toEqual({ id: folder.body.id, name: 'First' })
    await h.call('PATCH', `/v1/folders/${folder.body.id}`, { token, body: { name: 'Second' } })
    expectReplayOf(
      await h.call('PATCH', `/v1/folders/${folder.body.id}`, withKey('rename', { body: { name: 'First' } })),
      first,
    )
    const list = await h.call('GET', '/v1/folders', { token })
    expect(list.body).toEqual({ folders: [{ id: folder.body.id, name: 'Second' }] })
  })

  test('PUT /v1/saved-items/:id/folder: the replay returns the first answer and does not run again', async () => {
    const folder = await h.call('POST', '/v1/folders', { token, body: { name: 'Later' } })
    const item = await h.call('POST', '/v1/captures', { token, body: { url: 'https://example.com/idem/put' } })
    const path = `/v1/saved-items/${item.body.savedItem.id}/folder`
    const first = await h.call('PUT', path, withKey('move', { body: { folderId: folder.body.id } }))
    expect(first.body.folder).toEqual({ id: folder.body.id, name: 'Later' })
    await h.call('PUT', path, { token, body: { folderId: null } })
    expectReplayOf(await h.call('PUT', path, withKey('move', { body: { folderId: folder.body.id } })), first)
    const list = await h.call('GET', '/v1/saved-items', { token })
    expect(list.body.savedItems[0].folder).toBeNull()
  })

  test('DELETE /v1/folders/:id: the replay is 204 again instead of 404', async () => {
    const folder = await h.call('POST', '/v1/folders', { token, body: { name: 'Gone' } })
    const first = await h.call('DELETE', `/v1/folders/${folder.body.id}`, withKey('delete-folder'))
    expect(first.status).toBe(204)
    const replay = await h.call('DELETE', `/v1/folders/${folder.body.id}`, withKey('delete-folder'))
    expectReplayOf(replay, first)
    expect(replay.text).toBe('')
    const plain = await h.call('DELETE', `/v1/folders/${folder.body.id}`, { token })
    expect(plain.status).toBe(404)
  })

  test('DELETE /v1/saved-items/:id: the replay is 204 and does not delete an item saved since', async () => {
    const url = 'https://example.com/idem/delete'
    const item = await h.call('POST', '/v1/captures', { token, body: { url } })
    const first = await h.call('DELETE', `/v1/saved-items/${item.body.savedItem.id}`, withKey('delete-item'))
    expect(first.status).toBe(204)
    const saved = await h.call('POST', '/v1/captures', { token, body: { url } })
    expect(saved.status).toBe(201)
    expectReplayOf(await h.call('DELETE', `/v1/saved-items/${item.body.savedItem.id}`, withKey('delete-item')), first)
    expect(await countRows(h.db, 'saved_items')).toBe(1)
  })

  test('POST without a body (/read) replays too', async () => {
    const item = await h.call('POST', '/v1/captures', { token, body: { url: 'https://example.com/idem/read' } })
    const first = await h.call('POST', `/v1/saved-items/${item.body.savedItem.id}/read`, withKey('read'))
    expect(first.body.isRead).toBe(true)
    expectReplayOf(await h.call('POST', `/v1/saved-items/${item.body.savedItem.id}/read`, withKey('read')), first)
  })
})

describe('Idempotency-Key and answers that are not kept', () => {
  test('a body rejected by schema validation keeps nothing: the corrected request with the same key runs', async () => {
    const bad = await h.call(
      'POST',
      '/v1/captures',
      withKey('fix-me', { body: { url: 'https://example.com/idem/fixed', extra: true } }),
    )
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ _tag: 'ValidationError', message: expect.any(String) })
    expect(await countRows(h.db, 'idempotency_keys')).toBe(0)
    const fixed = await h.call(
      'POST',
      '/v1/captures',
      withKey('fix-me', { body: { url: 'https://example.com/idem/fixed' } }),
    )
    expect(fixed.status).toBe(201)
    expect(fixed.headers.get('idempotent-replayed')).toBeNull()
    expectReplayOf(
      await h.call('POST', '/v1/captures', withKey('fix-me', { body: { url: 'https://example.com/idem/fixed' } })),
      fixed,
    )
  })

  test('a 403 for a missing scope keeps nothing: the same key works once the credential has the scope', async () => {
    const narrow = await person.key(['saved-items:read'])
    const body = { url: 'https://example.com/idem/scope' }
    const refused = await h.call('POST', '/v1/captures', withKey('scope', { body, token: narrow }))
    expect(refused.status).toBe(403)
    expect(await countRows(h.db, 'idempotency_keys')).toBe(0)
    const done = await h.call('POST', '/v1/captures', withKey('scope', { body }))
    expect(done.status).toBe(201)
    expect(done.headers.get('idempotent-replayed')).toBeNull()
  })

  test('an answer the operation gave (404 FolderNotFoundError) is kept and replayed', async () => {
    const body = { url: 'https://example.com/idem/no-folder', folderId: 'no-such-folder' }
    const first = await h.call('POST', '/v1/captures', withKey('kept-404', { body }))
    expect(first.status).toBe(404)
    expect(first.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: 'no-such-folder' })
    expectReplayOf(await h.call('POST', '/v1/captures', withKey('kept-404', { body })), first)
    expect(await countRows(h.db, 'saved_items')).toBe(0)
  })
})

describe('Idempotency-Key and server errors', () => {
  test('a request that ended 5xx is not stored: a retry with the same key runs again', async () => {
    await h.db.$client.execute(
      "CREATE TRIGGER fail_capture BEFORE INSERT ON saved_items BEGIN SELECT RAISE(ABORT, 'storage unavailable'); END",
    )
    const body = { url: 'https://example.com/idem/retry' }
    const failed = await h.call('POST', '/v1/captures', withKey('retry', { body }))
    expect(failed.status).toBe(500)
    expect(failed.body).toEqual({ _tag: 'InternalError', message: expect.any(String) })
    expect(failed.text).not.toContain('storage unavailable')
    expect(await countRows(h.db, 'idempotency_keys')).toBe(0)
    expect(await countRows(h.db, 'saved_items')).toBe(0)

    await h.db.$client.execute('DROP TRIGGER fail_capture')
    const retry = await h.call('POST', '/v1/captures', withKey('retry', { body }))
    expect(retry.status).toBe(201)
    expect(retry.headers.get('idempotent-replayed')).toBeNull()
    expect(await countRows(h.db, 'saved_items')).toBe(1)
    expectReplayOf(await h.call('POST', '/v1/captures', withKey('retry', { body })), retry)
  })
})

describe('Idempotency-Key across a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'readlater-idem-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('a brand-new server on the same database file replays a capture made before the restart', async () => {
    const dbUrl = `file:${join(dir, 'x.db')}`
    const before = await createHarness({ dbUrl })
    const user = await before.user()
    const key = await user.key()
    const body = { url: 'https://example.com/idem/restart' }
    const first = await before.call('POST', '/v1/captures', {
      token: key,
      body,
      headers: { 'idempotency-key': 'restart-1' },
    })
    expect(first.status).toBe(201)
    before.db.$client.close()

    const after = await createHarness({ dbUrl })
    after.clock.advance(10 * 60 * 1000)
    const replay = await after.call('POST', '/v1/captures', {
      token: key,
      body,
      headers: { 'idempotency-key': 'restart-1' },
    })
    expectReplayOf(replay, first)
    expect(replay.body.savedItem.id).toBe(first.body.savedItem.id)
    expect(await countRows(after.db, 'saved_items')).toBe(1)
    after.db.$client.close()
  })
})
