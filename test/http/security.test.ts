import { beforeAll, describe, expect, test } from 'bun:test'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { SCOPES } from '../../core/types.ts'
import { BASE, createHarness, type CallOptions, type Harness, type Reply } from '../helpers/harness.ts'
import { ENDPOINTS, type Endpoint, type RouteIds } from './endpoint-table.ts'
import { seedPerson, snapshotPerson } from './people.ts'

// What each endpoint answers without a credential, with a bad one, without its scope, with only its scope and
// with another person's ids is tried for every operation of /openapi.json by generated-security.test.ts,
// from the one endpoint table. Here: isolation between people, the Authorization header, revocation, logs.

const METADATA = `${BASE}/.well-known/oauth-protected-resource`

let h: Harness

beforeAll(async () => {
  h = await createHarness()
})

/** The endpoints that need exactly one scope, which an owner calls with the table's sample. */
const SCOPED = ENDPOINTS.filter((endpoint) => (SCOPES as readonly string[]).includes(endpoint.access))

/** Options for calling `endpoint` with its sample body, the given credential and extra headers. */
function options(endpoint: Endpoint, ids: RouteIds, extra: CallOptions = {}): CallOptions {
  return { ...(endpoint.body ? { body: endpoint.body(ids) } : {}), ...extra }
}

async function revoke(key: string): Promise<void> {
  const result = await h.db.$client.execute({
    sql: 'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?',
    args: [h.clock.now().toISOString(), hashApiKey(key)],
  })
  expect(result.rowsAffected).toBe(1)
}

function expectInvalidToken(reply: Reply): void {
  expect(reply.status).toBe(401)
  expect(reply.body).toEqual({ _tag: 'Unauthorized', message: expect.any(String) })
  const challenge = reply.headers.get('www-authenticate') ?? ''
  expect(challenge.startsWith('Bearer ')).toBe(true)
  expect(challenge).toContain('error="invalid_token"')
  expect(challenge).toContain(`resource_metadata="${METADATA}"`)
  expect(reply.headers.get('ratelimit-limit')).toBeNull()
}

/** A person with one item and one folder, plus a key holding every scope. */
async function person(label: string): Promise<{ id: string; key: string; ids: RouteIds }> {
  const user = await h.user()
  const key = await user.key()
  return { id: user.id, key, ids: await seedPerson(h, key, label) }
}

describe('isolation between people', () => {
  test("a person's lists never show another person's items or folders, whatever the sort", async () => {
    const a = await person('list-a')
    const b = await person('list-b')
    await h.call('POST', '/v1/captures', {
      token: a.key,
      body: { url: 'https://example.com/list-a/second', folderId: a.ids.folderId },
    })
    for (const query of [
      '',
      '?sort=oldest',
      '?sort=title',
      '?sort=unread',
      '?folder=none',
      `?folder=${b.ids.folderId}`,
      '?limit=1',
    ]) {
      const reply = await h.call('GET', `/v1/saved-items${query}`, { token: b.key })
      expect(reply.status).toBe(200)
      const expectedIds = query.startsWith('?folder=') && query !== '?folder=none' ? [] : [b.ids.itemId]
      expect(reply.body.savedItems.map((item: { id: string }) => item.id)).toEqual(expectedIds)
    }
    const folders = await h.call('GET', '/v1/folders', { token: b.key })
    expect(folders.body).toEqual({ folders: [{ id: b.ids.folderId, name: 'list-b folder' }] })
  })

  test("filtering a list by another person's folder is 404 FolderNotFoundError", async () => {
    const a = await person('filter-a')
    const b = await person('filter-b')
    const reply = await h.call('GET', `/v1/saved-items?folder=${a.ids.folderId}`, { token: b.key })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: a.ids.folderId })
  })

  test("capturing into another person's folder is 404 FolderNotFoundError and writes nothing", async () => {
    const a = await person('cap-a')
    const b = await person('cap-b')
    const beforeA = await snapshotPerson(h, a.id)
    const beforeB = await snapshotPerson(h, b.id)
    const reply = await h.call('POST', '/v1/captures', {
      token: b.key,
      body: { url: 'https://example.com/new-page', folderId: a.ids.folderId },
    })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: a.ids.folderId })
    expect(await snapshotPerson(h, a.id)).toEqual(beforeA)
    expect(await snapshotPerson(h, b.id)).toEqual(beforeB)
  })

  test("moving one's own item into another person's folder is 404 FolderNotFoundError", async () => {
    const a = await person('move-a')
    const b = await person('move-b')
    const beforeB = await snapshotPerson(h, b.id)
    const reply = await h.call('PUT', `/v1/saved-items/${b.ids.itemId}/folder`, {
      token: b.key,
      body: { folderId: a.ids.folderId },
    })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: a.ids.folderId })
    expect(await snapshotPerson(h, b.id)).toEqual(beforeB)
  })

  test("capturing a URL another person saved creates one's own item and leaves theirs alone", async () => {
    const a = await person('same-a')
    const b = await person('same-b')
    const before = await snapshotPerson(h, a.id)
    const reply = await h.call('POST', '/v1/captures', {
      token: b.key,
      body: { url: 'https://example.com/same-a/item' },
    })
    expect(reply.status).toBe(201)
    expect(reply.body.captureResult).toBe('created')
    expect(reply.body.savedItem.id).not.toBe(a.ids.itemId)
    expect(await snapshotPerson(h, a.id)).toEqual(before)
  })

  test("/v1/me names the key's own person", async () => {
    const user = await h.user()
    const reply = await h.call('GET', '/v1/me', { token: await user.key(['account:read']) })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ id: user.id, email: user.email })
  })
})

describe('the Authorization header', () => {
  test('the Bearer scheme is case-insensitive (RFC 7235)', async () => {
    const user = await h.user()
    const key = await user.key(['account:read'])
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const reply = await h.call('GET', '/v1/me', { headers: { authorization: `${scheme} ${key}` } })
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({ id: user.id, email: user.email })
    }
  })

  test('a key followed by anything else is not that key', async () => {
    const key = await (await h.user()).key(['account:read'])
    for (const header of [`Bearer ${key} ${key}`, `Bearer ${key},x`, `Bearer  ${key}x`, `${key}`]) {
      expectInvalidToken(await h.call('GET', '/v1/me', { headers: { authorization: header } }))
    }
  })
})

describe('revocation', () => {
  test('a key revoked between two calls fails on the very next request', async () => {
    const user = await h.user()
    const key = await user.key()
    const first = await h.call('GET', '/v1/folders', { token: key })
    expect(first.status).toBe(200)
    await revoke(key)
    const second = await h.call('GET', '/v1/folders', { token: key })
    expectInvalidToken(second)
    const write = await h.call('POST', '/v1/folders', { token: key, body: { name: 'After revocation' } })
    expectInvalidToken(write)
    const rows = await h.db.$client.execute({
      sql: 'SELECT count(*) AS n FROM folders WHERE user_id = ?',
      args: [user.id],
    })
    expect(Number(rows.rows[0]!.n)).toBe(0)
  })

  test("revoking one key leaves the same person's other keys working", async () => {
    const user = await h.user()
    const revoked = await user.key()
    const kept = await user.key()
    await revoke(revoked)
    expect((await h.call('GET', '/v1/folders', { token: revoked })).status).toBe(401)
    expect((await h.call('GET', '/v1/folders', { token: kept })).status).toBe(200)
  })
})

describe('request logs', () => {
  test('never contain the API key or its hash, and each x-request-id appears in exactly one line', async () => {
    const harness = await createHarness()
    const user = await harness.user()
    const key = await user.key()
    const narrowKey = await user.key(['account:read'])
    const ids = await seedPerson(harness, key, 'logs')
    const replies: Reply[] = []
    for (const endpoint of SCOPED) {
      for (const extra of [
        {},
        { token: key },
        { token: narrowKey },
        { token: `rlk_${'b'.repeat(43)}` },
        { headers: { authorization: 'Basic xyz' } },
      ] as CallOptions[]) {
        replies.push(await harness.call(endpoint.method, endpoint.path(ids), options(endpoint, ids, extra)))
      }
    }
    replies.push(await harness.call('GET', '/health'))
    replies.push(await harness.call('GET', '/v1/no-such-route', { token: key }))
    expect(new Set(replies.map((reply) => reply.status))).toEqual(new Set([200, 201, 204, 401, 403, 404]))

    const text = JSON.stringify(harness.logs)
    for (const secret of [key, narrowKey, hashApiKey(key), hashApiKey(narrowKey)]) expect(text).not.toContain(secret)
    for (const reply of replies) {
      const requestId = reply.headers.get('x-request-id')
      expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      const lines = harness.logs.filter((line) => JSON.stringify(line).includes(requestId!))
      expect(lines.length).toBe(1)
      expect(lines[0]).toMatchObject({ requestId, status: reply.status })
    }
    expect(new Set(replies.map((reply) => reply.headers.get('x-request-id'))).size).toBe(replies.length)
  })

  test('a database failure during the credential lookup is a bare 500 whose log line holds neither the key nor its hash', async () => {
    const harness = await createHarness()
    const key = await (await harness.user()).key()
    await harness.db.$client.execute('ALTER TABLE api_keys RENAME TO api_keys_away')
    const reply = await harness.call('GET', '/v1/folders', { token: key })
    await harness.db.$client.execute('ALTER TABLE api_keys_away RENAME TO api_keys')
    expect(reply.status).toBe(500)
    expect(reply.body).toEqual({ _tag: 'InternalError', message: expect.any(String) })
    expect(reply.text).not.toContain('api_keys')
    const lines = harness.logs.filter((line) => line.requestId === reply.headers.get('x-request-id'))
    expect(lines).toEqual([expect.objectContaining({ level: 'error', status: 500 })])
    const text = JSON.stringify(harness.logs)
    expect(text).not.toContain(key)
    expect(text).not.toContain(hashApiKey(key))
    expect((await harness.call('GET', '/v1/folders', { token: key })).status).toBe(200)
  })
})
