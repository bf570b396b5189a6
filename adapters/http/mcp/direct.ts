import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import type { Principal } from '../../../core/types.ts'
import type { AppDeps } from '../../app/deps.ts'
import { answerHead, runToolHead, TOOL_LIST } from './server.ts'

const encoder = new TextEncoder()
const TOOL_LIST_HEAD = encoder.encode(answerHead(JSON.stringify({ tools: TOOL_LIST })))
const JSON_HEADERS = { 'content-type': 'application/json' }

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The keys a message may have on this path; anything more (a `_meta`, a task) takes the SDK's path. */
const hasOnly = (value: Record<string, unknown>, allowed: readonly string[]): boolean =>
  Object.keys(value).every((key) => allowed.includes(key))

/**
 * The two messages agents send all day (one `tools/call`, or `tools/list`) answered without building the
 * SDK's server and transport for the request. Only messages the SDK would take exactly as they are come
 * this way: the headers it asks for, a single well-formed request, no `_meta` or task fields. Anything
 * else (initialize, ping, notifications, batches, malformed or unusual messages) returns null and goes
 * through the SDK, which stays the reference: test/mcp/direct.test.ts sends the same messages both ways
 * and compares the answers (docs/mcp.md#transport). A speed twin of the SDK's path, on purpose: keep both
 * (docs/benchmarks.md#speed-twins).
 */
export async function answerDirectly(
  deps: AppDeps,
  principal: Principal,
  request: Request,
  message: unknown,
): Promise<Response | null> {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0') return null
  if (!hasOnly(message, ['jsonrpc', 'id', 'method', 'params'])) return null
  const id = message.id
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return null
  const headers = request.headers
  const accept = headers.get('accept') ?? ''
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null
  if (headers.get('content-type') !== 'application/json') return null
  const version = headers.get('mcp-protocol-version')
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null

  const params = message.params
  let head: Uint8Array | string
  if (message.method === 'tools/list') {
    if (params !== undefined && !(isPlainObject(params) && Object.keys(params).length === 0)) return null
    head = TOOL_LIST_HEAD
  } else if (message.method === 'tools/call') {
    if (!isPlainObject(params) || typeof params.name !== 'string' || !hasOnly(params, ['name', 'arguments']))
      return null
    if (params.arguments !== undefined && !isPlainObject(params.arguments)) return null
    head = await runToolHead(deps, principal, params.name, params.arguments ?? {})
  } else {
    return null
  }
  // The SDK's answer, byte for byte: `{"result":…,"jsonrpc":"2.0","id":…}`. The head of a cached list
  // page is encoded once, so a request copies its bytes instead of building and encoding a 44 KB string;
  // any other head is text, and the answer is that text and the tail, encoded once by the server.
  const tailText = `,"jsonrpc":"2.0","id":${JSON.stringify(id)}}`
  if (typeof head === 'string') return new Response(head + tailText, { status: 200, headers: JSON_HEADERS })
  const tail = encoder.encode(tailText)
  const body = new Uint8Array(head.byteLength + tail.byteLength)
  body.set(head)
  body.set(tail, head.byteLength)
  return new Response(body, {
    status: 200,
    headers: JSON_HEADERS,
  })
}
