import { Elysia } from 'elysia'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { RouteContext } from '../route-context.ts'
import { GUARD } from '../endpoint-rules.ts'
import { createMcpServer } from './server.ts'

/**
 * CORS for browser-based MCP clients (the Inspector's web UI, web agents). Safe with `*`: /mcp takes only
 * bearer tokens, never cookies, so another origin can do nothing a token holder could not do anyway.
 * The same reason makes DNS rebinding harmless here, so Origin is not checked against a list.
 */
export const MCP_CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After',
}

const jsonRpcError = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })

/**
 * `{base}/mcp`: Streamable HTTP, stateless, JSON responses. The guard in front has already checked the
 * bearer token (audience `{base}/mcp`), the rate limit and the scope of every tools/call in the body.
 * GET (a server-to-client SSE stream) and DELETE (ending a session) have nothing to serve without
 * sessions: 405, as the transport spec allows.
 */
export const mcpRoutes = ({ deps, principalOf }: RouteContext) => {
  const hidden = { detail: { hide: true } }
  // Any valid token for `{base}/mcp` gets in; each tools/call is then checked against its tool's scope
  // (core/mcp/tools.ts), still before dispatch.
  const guarded = (jsonBody: boolean) => ({ detail: { hide: true, [GUARD]: { access: 'any-credential', jsonBody } } })
  const notAllowed = () =>
    jsonRpcError(405, 'Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST', {
      allow: 'POST, OPTIONS',
    })
  return new Elysia()
    .post(
      '/mcp',
      async ({ request }) => {
        const server = createMcpServer(deps, principalOf(request))
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        })
        await server.connect(transport)
        try {
          // JSON mode: the response is complete when handleRequest resolves, so closing now is safe.
          return await transport.handleRequest(request)
        } finally {
          await server.close()
        }
      },
      { ...guarded(true), parse: 'none' },
    )
    .get('/mcp', notAllowed, guarded(false))
    .delete('/mcp', notAllowed, guarded(false))
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
      hidden,
    )
}
