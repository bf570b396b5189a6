import { describe, expect, test } from 'bun:test'
import { createHarness, type Reply } from '../helpers/harness.ts'

// API answers are never cached by a shared cache and never sniffed (docs/security.md#response-headers).

function expectApiHeaders(reply: Reply, label: string): void {
  expect({
    label,
    cache: reply.headers.get('cache-control'),
    sniff: reply.headers.get('x-content-type-options'),
  }).toEqual({ label, cache: 'no-store', sniff: 'nosniff' })
}

describe('API response headers', () => {
  test('every kind of answer carries Cache-Control: no-store and X-Content-Type-Options: nosniff', async () => {
    const h = await createHarness({ env: { RATE_LIMIT_MAX: '30' } })
    const key = await (await h.user()).key()
    const readOnly = await (await h.user()).key(['saved-items:read'])
    const body = { url: 'https://example.com/headers' }
    const headers = { 'idempotency-key': 'headers-1' }
    const replies: [string, Reply][] = [
      ['201 capture', await h.call('POST', '/v1/captures', { token: key, body, headers })],
      ['replay', await h.call('POST', '/v1/captures', { token: key, body, headers })],
      ['200 list', await h.call('GET', '/v1/saved-items', { token: key })],
      ['200 me', await h.call('GET', '/v1/me', { token: key })],
      ['204 delete', await h.call('DELETE', '/v1/saved-items/01900000-0000-7000-8000-000000000000', { token: key })],
      ['400', await h.call('POST', '/v1/folders', { token: key, body: { name: 7 } })],
      ['401', await h.call('GET', '/v1/saved-items')],
      ['403', await h.call('POST', '/v1/folders', { token: readOnly, body: { name: 'x' } })],
      ['404 route', await h.call('GET', '/v1/nothing-here', { token: key })],
      ['404 item', await h.call('POST', '/v1/saved-items/01900000-0000-7000-8000-000000000000/read', { token: key })],
      [
        '413',
        await h.call('POST', '/v1/captures', {
          token: key,
          raw: 'x'.repeat(70_000),
          headers: { 'content-type': 'application/json' },
        }),
      ],
      [
        '415',
        await h.call('POST', '/v1/captures', { token: key, raw: '{}', headers: { 'content-type': 'text/plain' } }),
      ],
      ['health', await h.call('GET', '/health')],
      [
        'exchange',
        await h.call('POST', '/connect/exchange', { body: { client: 'raycast', code: 'x', codeVerifier: 'y' } }),
      ],
    ]
    expect(replies[1]![1].headers.get('idempotent-replayed')).toBe('true')
    for (const [label, reply] of replies) expectApiHeaders(reply, label)
  })

  test('a route that states its own caching keeps it (metadata), still with nosniff', async () => {
    const h = await createHarness()
    const reply = await h.call('GET', '/.well-known/oauth-protected-resource', { unchecked: true })
    expect(reply.headers.get('cache-control')).toBe('public, max-age=300')
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff')
  })
})
