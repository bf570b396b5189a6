/**
 * CORS for browser-based MCP clients (the Inspector's web UI, web agents). Safe with `*`: /mcp takes only
 * bearer tokens, never cookies, so another origin can do nothing a token holder could not do anyway, and
 * a page on an origin the guard refuses (mcp/origin.ts) can at least read its 403.
 * @see docs/security.md#mcp-origin
 */
export const MCP_CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After',
}
