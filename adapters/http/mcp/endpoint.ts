import { Elysia, t } from 'elysia'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { RouteContext } from '../route-context.ts'
import { NOT_JSON } from '../guard.ts'
import { createMcpServer } from './server.ts'
import { answerDirectly } from './direct.ts'
import { MCP_CORS_HEADERS } from '../mcp-origin.ts'
import type { AppDeps } from '../../app/deps.ts'
import type { Principal } from '../../../core/types.ts'

const jsonRpcError = (status: number, message: string, headers: Record<string, string> = {}, code = -32000) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })

/**
 * The answer to a POST of `/mcp` whose caller, count, body and tool scopes the guard has passed (or the
 * direct MCP request, direct-post.ts, in the same steps): JSON-RPC's parse error for a body that is not JSON,
 * the direct answer of a single tools/call or tools/list (direct.ts), and the SDK's server and transport for
 * every other message.
 */
export async function answerMcpMessage(
  deps: AppDeps,
  principal: Principal,
  request: Request,
  message: unknown,
): Promise<Response> {
  if (message === NOT_JSON) return jsonRpcError(400, 'Parse error: Invalid JSON', {}, -32700)
  const direct = await answerDirectly(deps, principal, request, message)
  if (direct) return direct
  const server = createMcpServer(deps, principal)
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  })
  await server.connect(transport)
  try {
    // JSON mode: the response is complete when handleRequest resolves, so closing now is safe.
    return await transport.handleRequest(request, { parsedBody: message })
  } finally {
    await server.close()
  }
}

/**
 * `{base}/mcp`: Streamable HTTP, stateless, JSON responses. The guard has already checked the
 * bearer token (audience `{base}/mcp`), the rate limit and the scope of every tools/call in the body.
 * GET (a server-to-client SSE stream) and DELETE (ending a session) have nothing to serve without
 * sessions: 405, as the transport spec allows.
 */
export const mcpRoutes = ({ deps, guard }: RouteContext) => {
  // Each route its own `detail`: the guard's options merge into it in place.
  const hidden = () => ({ detail: { hide: true } })
  const notAllowed = () =>
    jsonRpcError(405, 'Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST', {
      allow: 'POST, OPTIONS',
    })
  // `mcp: true`: any valid token for `{base}/mcp` gets in; each tools/call in the body is then checked
  // against its tool's scope (core/mcp/tools.ts), still before dispatch.
  return new Elysia()
    .use(guard)
    .post('/mcp', ({ body, principal, request }) => answerMcpMessage(deps, principal, request, body), {
      mcp: true,
      body: t.Unknown(),
      detail: { hide: true },
    })
    .get('/mcp', notAllowed, { mcp: true, detail: { hide: true } })
    .delete('/mcp', notAllowed, { mcp: true, detail: { hide: true } })
    .options(
      '/mcp',
      () =>
        new Response(null, {
          status: 204,
          headers: {
            ...MCP_CORS_HEADERS,
            'access-control-allow-methods': 'POST, OPTIONS',
            'access-control-allow-headers':
              'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID',
            'access-control-max-age': '86400',
          },
        }),
      hidden(),
    )
}
