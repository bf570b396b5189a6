import { beforeAll, describe, expect, test } from 'bun:test'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { answerDirectly } from '../../adapters/http/mcp/direct.ts'
import type { AppDeps } from '../../adapters/app/deps.ts'
import type { Principal } from '../../core/types.ts'
import { SCOPES } from '../../core/types.ts'
import { createHarness, random, type Harness } from '../helpers/harness.ts'

// The direct path (adapters/http/mcp/direct.ts, docs/mcp.md#transport) answers single tools/call and
// tools/list messages without the SDK's per-request server and transport. The SDK stays the reference:
// the same messages sent both ways must get the same answers, and whatever the direct path is not sure
// of must be left to the SDK.

let h: Harness
let token: string
let deps: AppDeps
let principal: Principal

const DIRECT = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
}
// A media type parameter the SDK accepts but the direct path does not take: the SDK's path, same message.
const VIA_SDK = { ...DIRECT, 'content-type': 'application/json; charset=utf-8' }

beforeAll(async () => {
  h = await createHarness()
  const user = await h.user()
  token = await user.key()
  // Text beyond ASCII, so the answers' UTF-8 encoding is compared too.
  await h.call('POST', '/v1/captures', {
    token,
    body: { url: 'https://example.com/one', tags: ['ai'], sourceName: 'Lecteur — « à lire »' },
  })
  await h.call('POST', '/v1/folders', { token, body: { name: 'Lectures — été ✓' } })
  deps = { db: h.db, config: h.config, clock: h.clock, random, log: () => {} }
  principal = { userId: user.id, scopes: SCOPES, credentialId: 'key:test', kind: 'api-key', connectClient: null }
})

async function post(message: unknown, headers: Record<string, string>) {
  const reply = await h.call('POST', '/mcp', { token, raw: JSON.stringify(message), headers, unchecked: true })
  return { status: reply.status, type: reply.headers.get('content-type'), body: reply.body, text: reply.text }
}

const call = (name: string, args?: unknown, id: string | number = 7) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
})

describe('the direct path answers as the SDK does', () => {
  test.each([
    ['tools/list', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['tools/list with empty params', { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: {} }],
    ['list_saved_items', call('list_saved_items', {})],
    ['list_saved_items, a string id', call('list_saved_items', { sort: 'oldest', limit: 5 }, 'req-1')],
    ['list_folders', call('list_folders')],
    ['whoami', call('whoami', {})],
    ['an unknown tool', call('no_such_tool', {})],
    ['arguments that break the schema', call('list_saved_items', { limit: 'many' })],
    ['an invalid URL (nothing saved)', call('save_url', { url: 'ftp://example.com/x' })],
    ['an unknown id', call('mark_read', { id: '01a202b2-c500-7d51-b0a2-88e7890b39b8' })],
  ])('%s', async (_name, message) => {
    const direct = await post(message, DIRECT)
    const viaSdk = await post(message, VIA_SDK)
    expect(direct.status).toBe(200)
    expect(direct).toEqual(viaSdk)
  })

  test('a write on the direct path is the REST operation: save_url creates the item', async () => {
    const reply = await post(call('save_url', { url: 'https://example.com/direct' }), DIRECT)
    expect(reply.body.result.structuredContent.captureResult).toBe('created')
    const listed = await h.call('GET', '/v1/saved-items', { token })
    expect(listed.body.savedItems.map((item: { originalUrl: string }) => item.originalUrl)).toContain(
      'https://example.com/direct',
    )
  })
})

describe('a list page served again', () => {
  // The answer's head is kept as text when first made and as bytes once the page is served again
  // (adapters/http/mcp/server.ts); a page read for one answer (LIST_CACHE_MB=0) stays text. Either way
  // the bytes on the wire are the SDK's.
  test.each([
    ['with the page cache', {}],
    ['without it (LIST_CACHE_MB=0)', { LIST_CACHE_MB: '0' }],
  ])('%s: the same answer as the SDK, every time', async (_name, env) => {
    const own = await createHarness({ env })
    const user = await own.user()
    const key = await user.key()
    await own.call('POST', '/v1/captures', {
      token: key,
      body: { url: 'https://example.com/été', sourceName: 'Lecteur' },
    })
    const send = async (headers: Record<string, string>) =>
      (
        await own.call('POST', '/mcp', {
          token: key,
          raw: JSON.stringify(call('list_saved_items', {}, 9)),
          headers,
          unchecked: true,
        })
      ).text
    const viaSdk = await send(VIA_SDK)
    const answers = [await send(DIRECT), await send(DIRECT), await send(DIRECT)]
    expect(viaSdk).toContain('"structuredContent"')
    for (const answer of answers) expect(answer).toBe(viaSdk)
    own.db.$client.close()
  })
})

describe('what the direct path leaves to the SDK', () => {
  const request = (headers: Record<string, string>) =>
    new Request('http://localhost:3000/mcp', { method: 'POST', headers })
  const direct = (message: unknown, headers: Record<string, string> = DIRECT) =>
    answerDirectly(deps, principal, request(headers), message)

  test('takes a plain tools/call and tools/list (control)', async () => {
    expect(await direct(call('whoami'))).not.toBeNull()
    expect(await direct({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).not.toBeNull()
    const noVersion: Record<string, string> = { ...DIRECT }
    delete noVersion['mcp-protocol-version']
    expect(await direct(call('whoami'), noVersion)).not.toBeNull()
  })

  test.each([
    ['initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }],
    ['ping', { jsonrpc: '2.0', id: 1, method: 'ping' }],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a batch', [call('whoami')]],
    ['another JSON-RPC version', { ...call('whoami'), jsonrpc: '1.0' }],
    ['an extra top-level field', { ...call('whoami'), extra: true }],
    ['a fractional id', call('whoami', {}, 1.5)],
    ['a null id', { ...call('whoami'), id: null }],
    ['_meta in params', { ...call('whoami'), params: { name: 'whoami', _meta: { progressToken: 1 } } }],
    ['a task in params', { ...call('whoami'), params: { name: 'whoami', task: {} } }],
    ['no tool name', { ...call('whoami'), params: {} }],
    ['arguments that are an array', call('whoami', [])],
    ['tools/list with a cursor', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'x' } }],
    ['not an object', 'tools/call'],
  ])('%s', async (_name, message) => {
    expect(await direct(message)).toBeNull()
  })

  test.each([
    ['no event-stream in Accept', { ...DIRECT, accept: 'application/json' }],
    ['a content type with parameters', VIA_SDK],
    ['an unsupported protocol version', { ...DIRECT, 'mcp-protocol-version': '1999-01-01' }],
  ])('%s', async (_name, headers) => {
    expect(await direct(call('whoami'), headers)).toBeNull()
  })
})
