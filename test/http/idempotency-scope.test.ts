import { describe, expect, test } from 'bun:test'
import { createHarness, countRows } from '../helpers/harness.ts'
import { authorizeBody } from '../connect/connect-fixtures.ts'
import { signedIn, send } from '../oauth/oauth-helpers.ts'

// Idempotency records belong to one credential, never hold a secret, and replay the cache rules
// (docs/api.md#idempotency).

describe('Idempotency-Key across credentials and secrets', () => {
  test("another credential of the same person never replays the first one's answer", async () => {
    const h = await createHarness()
    const user = await h.user()
    const full = await user.key()
    const readOnly = await user.key(['saved-items:read'])
    const headers = { 'idempotency-key': 'connect-1' }
    const first = await h.call('POST', '/connect/authorize', { token: full, body: authorizeBody(), headers })
    expect(first.status).toBe(200)
    const second = await h.call('POST', '/connect/authorize', { token: readOnly, body: authorizeBody(), headers })
    // Run as its own request: the read-only key may not hand out capture scopes.
    expect(second.status).toBe(400)
    expect(second.body).toMatchObject({ _tag: 'ConnectError', code: 'invalid_scope' })
    expect(second.headers.get('idempotent-replayed')).toBeNull()
    expect(second.text).not.toContain(first.body.code)
  })

  test('a capture replayed by another key of the same person runs again (updated, not replayed)', async () => {
    const h = await createHarness()
    const user = await h.user()
    const [a, b] = [await user.key(), await user.key()]
    const body = { url: 'https://example.com/idem-scope' }
    const headers = { 'idempotency-key': 'same-key' }
    expect((await h.call('POST', '/v1/captures', { token: a, body, headers })).status).toBe(201)
    const replayA = await h.call('POST', '/v1/captures', { token: a, body, headers })
    expect(replayA.status).toBe(201)
    expect(replayA.headers.get('idempotent-replayed')).toBe('true')
    const fromB = await h.call('POST', '/v1/captures', { token: b, body, headers })
    expect(fromB.status).toBe(200)
    expect(fromB.body.captureResult).toBe('updated')
    expect(fromB.headers.get('idempotent-replayed')).toBeNull()
  })

  test('a web session is its own credential', async () => {
    const h = await createHarness()
    const browser = await signedIn(h)
    const key = await (await h.user()).key()
    void key
    const headers = {
      cookie: browser.cookie,
      'x-csrf-token': browser.csrf,
      'content-type': 'application/json',
      'idempotency-key': 'k1',
    }
    const body = JSON.stringify({ name: 'Session folder' })
    expect((await send(h, 'POST', '/v1/folders', { headers, body })).status).toBe(200)
    const replay = await send(h, 'POST', '/v1/folders', { headers, body })
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    const rows = await h.db.$client.execute('SELECT credential_id, user_id FROM idempotency_keys')
    expect(rows.rows.map((row) => ({ ...row }))).toEqual([
      { credential_id: expect.stringMatching(/^session:/), user_id: browser.userId },
    ])
  })

  test('a connect code is never stored: a retry with the key gets a fresh code, and no record holds it', async () => {
    const h = await createHarness()
    const key = await (await h.user()).key()
    const headers = { 'idempotency-key': 'connect-2' }
    const first = await h.call('POST', '/connect/authorize', { token: key, body: authorizeBody(), headers })
    expect(first.status).toBe(200)
    expect(first.headers.get('cache-control')).toBe('no-store')
    expect(first.headers.get('x-readlater-no-replay')).toBeNull()
    expect(await countRows(h.db, 'idempotency_keys')).toBe(0)
    const dump = await h.db.$client.execute('SELECT * FROM idempotency_keys')
    expect(JSON.stringify(dump.rows)).not.toContain(first.body.code)
    const retry = await h.call('POST', '/connect/authorize', { token: key, body: authorizeBody(), headers })
    expect(retry.status).toBe(200)
    expect(retry.headers.get('idempotent-replayed')).toBeNull()
    expect(retry.body.code).not.toBe(first.body.code)
  })
})
