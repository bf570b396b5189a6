import { describe, expect, test } from 'bun:test'
import { SCOPES } from '../../core/types.ts'
import { WEBHOOK_EVENTS } from '../../core/webhooks/events.ts'
import { countRows, createHarness } from '../helpers/harness.ts'
import { createWebhook, outboxRows, webhookHarness } from './webhook-helpers.ts'

// docs/webhooks.md#api: POST/GET /v1/webhooks, DELETE /v1/webhooks/{id}, the webhooks:manage scope, and
// docs/webhooks.md#events: what lands in the outbox, in the transaction of each change.

describe('POST /v1/webhooks', () => {
  test('creates a webhook and shows its secret once; the list never shows it', async () => {
    const { h, key } = await webhookHarness()
    const reply = await h.call('POST', '/v1/webhooks', {
      token: key,
      body: { url: 'https://hooks.example.com/in?token=abc', events: ['folder.deleted', 'saved_item.created'] },
    })
    expect(reply.status).toBe(201)
    expect(reply.headers.get('cache-control')).toBe('no-store')
    expect(reply.body).toEqual({
      webhook: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: 'https://hooks.example.com/in?token=abc',
        events: ['saved_item.created', 'folder.deleted'],
        createdAt: h.clock.now().toISOString(),
        disabledAt: null,
      },
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    })
    // 32 random bytes, as Standard Webhooks libraries expect (base64 after the prefix).
    expect(Buffer.from(reply.body.secret.slice(6), 'base64').length).toBe(32)
    const list = await h.call('GET', '/v1/webhooks', { token: key })
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ webhooks: [reply.body.webhook] })
    expect(list.text).not.toContain(reply.body.secret.slice(6))
  })

  test('an Idempotency-Key retry replays the same webhook (201) with secret null; the secret is never stored', async () => {
    const { h, key } = await webhookHarness()
    const headers = { 'idempotency-key': 'create-hook-1' }
    const body = { url: 'https://hooks.example.com/in', events: ['saved_item.created'] }
    const first = await h.call('POST', '/v1/webhooks', { token: key, body, headers })
    expect(first.status).toBe(201)
    expect(first.body.secret).toStartWith('whsec_')
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    h.clock.advance(1000)
    const again = await h.call('POST', '/v1/webhooks', { token: key, body, headers })
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('cache-control')).toBe('no-store')
    expect(again.body).toEqual({ webhook: first.body.webhook, secret: null })
    expect(await countRows(h.db, 'webhooks')).toBe(1)
    expect((await h.call('GET', '/v1/webhooks', { token: key })).body).toEqual({ webhooks: [first.body.webhook] })
    // The record kept for replay holds the webhook, never its secret.
    const stored = await h.db.$client.execute('SELECT * FROM idempotency_keys')
    expect(stored.rows).toHaveLength(1)
    const record = JSON.stringify(stored.rows)
    expect(record).toContain(first.body.webhook.id)
    expect(record).not.toContain('whsec_')
    expect(record).not.toContain(first.body.secret.slice(6))
    // The same key for another webhook is still refused, and creates nothing.
    const reuse = await h.call('POST', '/v1/webhooks', {
      token: key,
      body: { ...body, url: 'https://hooks.example.com/other' },
      headers,
    })
    expect(reuse.status).toBe(422)
    expect(reuse.body._tag).toBe('IdempotencyKeyReuseError')
    expect(await countRows(h.db, 'webhooks')).toBe(1)
  })

  test('with ENCRYPTION_KEY the secret is stored encrypted, and still signs', async () => {
    const { h, key } = await webhookHarness({ ENCRYPTION_KEY: 'k'.repeat(40) })
    const hook = await createWebhook(h, key, 'https://hooks.example.com/in')
    const [row] = (await h.db.$client.execute('SELECT secret FROM webhooks')).rows
    expect(String(row!.secret)).toStartWith('enc:')
    expect(String(row!.secret)).not.toContain(hook.secret.slice(6))
    const { openSecret } = await import('../../adapters/app/webhook-secrets.ts')
    expect(await openSecret(String(row!.secret), 'k'.repeat(40))).toBe(hook.secret)
    await expect(openSecret(String(row!.secret), 'x'.repeat(40))).rejects.toThrow()
  })

  test('bad input is 400 ValidationError naming the problem, and writes nothing', async () => {
    const h = await createHarness({ env: { RATE_LIMIT_MAX: '100000' } })
    const key = await (await h.user()).key()
    const cases: [unknown, RegExp][] = [
      [{ url: 'ftp://hooks.example.com/', events: ['saved_item.created'] }, /http or https/],
      [{ url: 'not a url', events: ['saved_item.created'] }, /absolute/],
      [{ url: 'https://u:p@hooks.example.com/', events: ['saved_item.created'] }, /user name or password/],
      [{ url: 'https://hooks.example.com/', events: [] }, /at least one/],
      [{ url: 'https://hooks.example.com/', events: ['saved_item.created', 'nope'] }, /"nope"/],
      [{ url: 'http://127.0.0.1/in', events: ['saved_item.created'] }, /non-public address \(loopback\)/],
      [{ url: 'http://10.1.2.3/in', events: ['saved_item.created'] }, /non-public address \(private\)/],
      [{ url: 'http://[::1]/in', events: ['saved_item.created'] }, /non-public address/],
      [{ url: 'http://169.254.169.254/latest', events: ['saved_item.created'] }, /non-public address/],
      [{ url: 'http://localhost/in', events: ['saved_item.created'] }, /localhost/],
      [{ url: 'https://hooks.example.com:8443/in', events: ['saved_item.created'] }, /port 8443/],
      [{ url: 'https://hooks.example.com/', events: ['saved_item.created'], secret: 'mine' }, /./],
      [{ url: 'https://hooks.example.com/' }, /./],
      [{ url: 42, events: ['saved_item.created'] }, /./],
    ]
    for (const [body, message] of cases) {
      const reply = await h.call('POST', '/v1/webhooks', { token: key, body })
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body._tag).toBe('ValidationError')
      expect(reply.body.message).toMatch(message)
    }
    expect(await countRows(h.db, 'webhooks')).toBe(0)
  })

  test('a host with a trailing dot meets the same rules: localhost. and 127.0.0.1.. are 400, nothing written', async () => {
    const h = await createHarness({ env: { RATE_LIMIT_MAX: '100000' } })
    const key = await (await h.user()).key()
    const cases: [string, RegExp][] = [
      ['http://LOCALHOST./h', /this machine \(localhost\)/],
      ['https://localhost./x', /this machine \(localhost\)/],
      ['https://hooks.localhost./x', /this machine \(localhost\)/],
      ['http://localhost../h', /this machine \(localhost\)/],
      ['http://127.0.0.1../h', /non-public address \(loopback\)/],
      ['http://10.1.2.3../in', /non-public address \(private\)/],
    ]
    for (const [url, message] of cases) {
      const reply = await h.call('POST', '/v1/webhooks', { token: key, body: { url, events: ['saved_item.created'] } })
      expect(reply.status, url).toBe(400)
      expect(reply.body).toEqual({ _tag: 'ValidationError', message: expect.stringMatching(message) })
    }
    expect(await countRows(h.db, 'webhooks')).toBe(0)
    // A public name written fully qualified is still a public name.
    const fqdn = await h.call('POST', '/v1/webhooks', {
      token: key,
      body: { url: 'https://hooks.example.com./in', events: ['saved_item.created'] },
    })
    expect(fqdn.status).toBe(201)
    expect(fqdn.body.webhook.url).toBe('https://hooks.example.com./in')
  })

  test('at most 10 webhooks per person; the eleventh is refused, another person is not affected', async () => {
    const { h, key } = await webhookHarness()
    for (let i = 0; i < 10; i++) await createWebhook(h, key, `https://hooks.example.com/${i}`)
    const over = await h.call('POST', '/v1/webhooks', {
      token: key,
      body: { url: 'https://hooks.example.com/11', events: ['saved_item.created'] },
    })
    expect(over.status).toBe(400)
    expect(over.body.message).toContain('10 webhooks')
    const other = await (await h.user()).key()
    expect((await createWebhook(h, other, 'https://hooks.example.com/other')).secret).toStartWith('whsec_')
    expect(await countRows(h.db, 'webhooks')).toBe(11)
  })

  test('needs webhooks:manage, which a key with every other scope does not have', async () => {
    const { h, user } = await webhookHarness()
    const key = await user.key(SCOPES.filter((scope) => scope !== 'webhooks:manage'))
    for (const [method, path] of [
      ['POST', '/v1/webhooks'],
      ['GET', '/v1/webhooks'],
    ] as const) {
      const reply = await h.call(method, path, {
        token: key,
        ...(method === 'POST' ? { body: { url: 'https://hooks.example.com/', events: ['saved_item.created'] } } : {}),
      })
      expect(reply.status).toBe(403)
      expect(reply.body).toEqual({
        _tag: 'InsufficientScopeError',
        message: expect.any(String),
        requiredScope: 'webhooks:manage',
      })
    }
  })
})

describe('DELETE /v1/webhooks/{id}', () => {
  test('deletes the webhook with its waiting messages; again is 404 WebhookNotFoundError', async () => {
    const { h, key } = await webhookHarness()
    const hook = await createWebhook(h, key, 'https://hooks.example.com/in')
    await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://a.example/' } })
    expect(await countRows(h.db, 'webhook_deliveries')).toBe(1)
    const gone = await h.call('DELETE', `/v1/webhooks/${hook.id}`, { token: key })
    expect(gone.status).toBe(204)
    expect(await countRows(h.db, 'webhook_deliveries')).toBe(0)
    const again = await h.call('DELETE', `/v1/webhooks/${hook.id}`, { token: key })
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ _tag: 'WebhookNotFoundError', message: expect.any(String), webhookId: hook.id })
    expect((await h.call('GET', '/v1/webhooks', { token: key })).body.webhooks).toEqual([])
  })
})

describe('the outbox (docs/webhooks.md#events)', () => {
  test('each change queues one message per subscribed webhook, in the order of the changes', async () => {
    const { h, key } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/all', [...WEBHOOK_EVENTS])
    const folder = (await h.call('POST', '/v1/folders', { token: key, body: { name: 'Later' } })).body
    const item = (await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://a.example/x' } })).body
      .savedItem
    await h.call('PUT', `/v1/saved-items/${item.id}/folder`, { token: key, body: { folderId: folder.id } })
    await h.call('POST', `/v1/saved-items/${item.id}/read`, { token: key })
    await h.call('PATCH', `/v1/folders/${folder.id}`, { token: key, body: { name: 'Someday' } })
    await h.call('DELETE', `/v1/folders/${folder.id}`, { token: key })
    const rows = await outboxRows(h)
    expect(rows.map((r) => r.type)).toEqual([
      'folder.created',
      'saved_item.created',
      'saved_item.updated', // moved into the folder
      'saved_item.updated', // read
      'folder.updated',
      'saved_item.updated', // the folder's deletion took the item out of it
      'folder.deleted',
    ])
    for (const row of rows) {
      expect(String(row.id)).toMatch(/^msg_[0-9a-f]{32}$/)
      expect(row).toMatchObject({ status: 'pending', attempts: 0 })
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length)
    // A folder's message carries its body from the start; an item's gets it at its first attempt.
    const folderBodies = rows.filter((r) => String(r.type).startsWith('folder.')).map((r) => JSON.parse(String(r.body)))
    expect(folderBodies.map((b) => [b.type, b.data])).toEqual([
      ['folder.created', { folder: { id: folder.id, name: 'Later' } }],
      ['folder.updated', { folder: { id: folder.id, name: 'Someday' } }],
      ['folder.deleted', { folder: { id: folder.id, name: 'Someday' } }],
    ])
    for (const body of folderBodies) {
      expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data'])
      expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    }
    expect(rows.filter((r) => String(r.type).startsWith('saved_item.')).every((r) => r.body === null)).toBe(true)
  })

  test('every body’s timestamp is its message’s queue time to the millisecond, written in SQL or at the first attempt', async () => {
    // docs/webhooks.md#delivery. The bodies written by triggers (a folder's messages, a deleted item's) once
    // took the clock's millisecond while the queue time truncated it, 1 ms apart for about one message in
    // two: twenty of them all agreeing by chance is one in a million.
    const { h, key } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/all', [...WEBHOOK_EVENTS])
    const folder = (await h.call('POST', '/v1/folders', { token: key, body: { name: 'Later' } })).body
    for (let i = 0; i < 12; i++)
      await h.call('PATCH', `/v1/folders/${folder.id}`, { token: key, body: { name: `Later ${i}` } })
    for (const path of ['a', 'b', 'c']) {
      const item = (await h.call('POST', '/v1/captures', { token: key, body: { url: `https://a.example/${path}` } }))
        .body.savedItem
      await h.call('DELETE', `/v1/saved-items/${item.id}`, { token: key })
    }
    await h.call('DELETE', `/v1/folders/${folder.id}`, { token: key })
    const rows = (await outboxRows(h)).filter((r) => r.body !== null)
    expect(rows.length).toBe(20) // 14 folder messages, 3 created and 3 deleted items
    for (const row of rows)
      expect([row.type, JSON.parse(String(row.body)).timestamp]).toEqual([
        row.type,
        new Date(Number(row.created_at_ms)).toISOString(),
      ])
  })

  test('deleting an item writes it, as it was, into its messages not yet sent, and queues saved_item.deleted', async () => {
    const { h, key } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/all', [...WEBHOOK_EVENTS])
    const folder = (await h.call('POST', '/v1/folders', { token: key, body: { name: 'Later' } })).body
    const item = (await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://a.example/x' } })).body
      .savedItem
    await h.call('PUT', `/v1/saved-items/${item.id}/folder`, { token: key, body: { folderId: folder.id } })
    const last = (await h.call('GET', '/v1/saved-items?limit=1', { token: key })).body.savedItems[0]
    await h.call('DELETE', `/v1/saved-items/${item.id}`, { token: key })
    const rows = (await outboxRows(h)).filter((r) => String(r.type).startsWith('saved_item.'))
    expect(rows.map((r) => r.type)).toEqual(['saved_item.created', 'saved_item.updated', 'saved_item.deleted'])
    const bodies = rows.map((r) => JSON.parse(String(r.body)))
    for (const [i, body] of bodies.entries()) {
      expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data'])
      expect(body.type).toBe(rows[i]!.type)
      // The wire shape exactly: same fields, same order, same values as the API showed last.
      expect(JSON.stringify(body.data.savedItem)).toBe(JSON.stringify(last))
    }
    expect(last.folder).toEqual({ id: folder.id, name: 'Later' })
  })

  test('only subscribed events, only enabled webhooks, only the owner’s; opening an item is no event', async () => {
    const { h, key } = await webhookHarness()
    const created = await createWebhook(h, key, 'https://hooks.example.com/created', ['saved_item.created'])
    const disabled = await createWebhook(h, key, 'https://hooks.example.com/off', ['saved_item.created'])
    await h.db.$client.execute({
      sql: "UPDATE webhooks SET disabled_at = '2026-01-01T00:00:00.000Z' WHERE id = ?",
      args: [disabled.id],
    })
    const other = await (await h.user()).key()
    await createWebhook(h, other, 'https://hooks.example.com/other', ['saved_item.created'])
    const item = (await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://a.example/' } })).body
      .savedItem
    await h.call('POST', `/v1/saved-items/${item.id}/open`, { token: key })
    await h.call('POST', `/v1/saved-items/${item.id}/read`, { token: key })
    const rows = await outboxRows(h)
    expect(rows.map((r) => [r.webhook_id, r.type])).toEqual([[created.id, 'saved_item.created']])
  })

  test('enrichment storing its result is saved_item.enriched; the same item changing afterwards is updated', async () => {
    const { h, key } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/e', ['saved_item.enriched', 'saved_item.updated'])
    const item = (await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://a.example/' } })).body
      .savedItem
    await h.db.$client.execute({
      sql: "UPDATE saved_items SET enrichment_status = 'enriched', title = 'A title' WHERE id = ?",
      args: [item.id],
    })
    await h.db.$client.execute({ sql: "UPDATE saved_items SET title = 'Another' WHERE id = ?", args: [item.id] })
    const rows = await outboxRows(h)
    expect(rows.map((r) => r.type)).toEqual(['saved_item.enriched', 'saved_item.updated'])
  })

  test('a capture that fails writes no message: the outbox is in the change’s transaction', async () => {
    const { h, key } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/in', ['saved_item.created'])
    const bad = await h.call('POST', '/v1/captures', { token: key, body: { url: 'javascript:alert(1)' } })
    expect(bad.status).toBe(400)
    expect(await countRows(h.db, 'webhook_deliveries')).toBe(0)
  })

  test('deleting the account removes its webhooks and queues nothing for the deleted items', async () => {
    const { h, key, user } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/in', [...WEBHOOK_EVENTS])
    await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://a.example/' } })
    const { deleteAccount } = await import('../../adapters/storage/delete-account.ts')
    expect(await deleteAccount(h.db, user.id)).toBe(true)
    expect(await countRows(h.db, 'webhooks')).toBe(0)
    expect(await countRows(h.db, 'webhook_deliveries')).toBe(0)
  })
})

describe('the webhooks:manage scope', () => {
  test('is offered in the OAuth metadata and described for consent, but never in a default grant', async () => {
    const { DEFAULT_AUTHORIZATION_SCOPES } = await import('../../core/oauth/oauth-scopes.ts')
    const { SCOPE_DESCRIPTIONS } = await import('../../core/auth/scope-descriptions.ts')
    const h = await createHarness()
    const metadata = await h.call('GET', '/.well-known/oauth-authorization-server', { unchecked: true })
    expect(metadata.body.scopes_supported).toContain('webhooks:manage')
    const resource = await h.call('GET', '/.well-known/oauth-protected-resource', { unchecked: true })
    expect(resource.body.scopes_supported).toContain('webhooks:manage')
    expect(DEFAULT_AUTHORIZATION_SCOPES).not.toContain('webhooks:manage')
    expect(SCOPE_DESCRIPTIONS['webhooks:manage']).toContain('webhooks')
  })
})
