import { describe, expect, test } from 'bun:test'
import { createHarness, type Reply } from '../helpers/harness.ts'

// Every answer goes through one pipeline inside the app (adapters/http/pipeline.ts): whatever step of the
// lifecycle answered it, it carries x-request-id and the default headers, and it has exactly one log line
// (docs/operations.md#logs), naming the caller once the guard knows it.

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('the request pipeline', () => {
  test('validation failure, 401, 429, a thrown error, a replay, a 404 route and a per-IP 429 each get the id, the headers and one log line', async () => {
    const h = await createHarness({ env: { RATE_LIMIT_MAX: '5', IP_RATE_LIMIT_MAX: '1' } })
    const person = await h.user()
    const key = await person.key()
    const body = { url: 'https://example.com/pipeline' }
    const idempotent = { token: key, body, headers: { 'idempotency-key': 'pipeline-1' } }
    const exchange = { body: { client: 'raycast', code: 'no-such-code', codeVerifier: 'v'.repeat(43) } }
    const cases: [string, Reply, Record<string, unknown>][] = []
    const add = async (label: string, method: string, path: string, options: object, fields = {}) => {
      cases.push([label, await h.call(method, path, options), { method, path, ...fields }])
    }
    const caller = { userId: person.id, credential: 'api-key' }
    await add('validation', 'POST', '/v1/folders', { token: key, body: { name: 7 } }, caller)
    await add('401', 'GET', '/v1/folders', {})
    await add('first capture', 'POST', '/v1/captures', idempotent, caller)
    await add('replay', 'POST', '/v1/captures', idempotent, caller)
    await add('404 route', 'GET', '/v1/no-such-route', { token: key })
    await add('per-IP allowed', 'POST', '/connect/exchange', exchange)
    await add('per-IP 429', 'POST', '/connect/exchange', exchange)
    await h.db.$client.execute('ALTER TABLE folders RENAME TO folders_away')
    await add('thrown', 'GET', '/v1/folders', { token: key, unchecked: true }, caller)
    await h.db.$client.execute('ALTER TABLE folders_away RENAME TO folders')
    await add('ok', 'GET', '/v1/folders', { token: key }, caller)
    await add('credential 429', 'GET', '/v1/folders', { token: key }, caller)

    expect(cases.map(([label, reply]) => [label, reply.status])).toEqual([
      ['validation', 400],
      ['401', 401],
      ['first capture', 201],
      ['replay', 201],
      ['404 route', 404],
      ['per-IP allowed', 400],
      ['per-IP 429', 429],
      ['thrown', 500],
      ['ok', 200],
      ['credential 429', 429],
    ])
    expect(cases[3]![1].headers.get('idempotent-replayed')).toBe('true')
    for (const [label, reply] of cases.slice(5, 7))
      expect({ label, limit: reply.headers.get('ratelimit-limit') }).toEqual({ label, limit: '1' })
    expect(cases[6]![1].headers.get('retry-after')).toMatch(/^\d+$/)
    expect(cases[9]![1].headers.get('retry-after')).toMatch(/^\d+$/)

    const ids = new Set<string>()
    for (const [label, reply, fields] of cases) {
      const requestId = reply.headers.get('x-request-id') ?? ''
      expect({ label, requestId }).toEqual({ label, requestId: expect.stringMatching(REQUEST_ID) })
      ids.add(requestId)
      expect({
        label,
        cache: reply.headers.get('cache-control'),
        sniff: reply.headers.get('x-content-type-options'),
        caller: reply.headers.get('x-readlater-caller'),
      }).toEqual({ label, cache: 'no-store', sniff: 'nosniff', caller: null })
      const lines = h.logs.filter((line) => JSON.stringify(line).includes(requestId))
      const status = reply.status
      expect({ label, lines }).toEqual({
        label,
        lines: [
          {
            level: status >= 500 ? 'error' : 'info',
            msg: 'request',
            requestId,
            status,
            ms: expect.any(Number),
            ...fields,
          },
        ],
      })
    }
    expect(ids.size).toBe(cases.length)
  })
})
