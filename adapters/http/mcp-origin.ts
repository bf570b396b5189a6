import type { Config } from '../config.ts'

/** Loopback hosts: a page served from the person's own machine (the MCP Inspector's web UI, local tools). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * Whether `/mcp` serves a request with this `Origin` header (MCP transport security: servers must
 * validate Origin, against DNS rebinding). No header (CLI clients, servers) is fine; so are the service's
 * own origins (BASE_URL, APP_URL), loopback origins, and the origins of MCP_ALLOWED_ORIGINS (`*`: any).
 * A DNS-rebinding page sends its own host name as Origin, so it is none of these. `null` and values that
 * are not an http(s) origin are refused.
 * @see docs/security.md#mcp-origin
 */
export function isAllowedMcpOrigin(
  origin: string | null,
  config: Pick<Config, 'baseUrl' | 'appUrl' | 'mcpAllowedOrigins'>,
): boolean {
  if (origin === null || config.mcpAllowedOrigins === '*') return true
  if (!URL.canParse(origin)) return false
  const url = new URL(origin)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  if (LOOPBACK_HOSTS.has(url.hostname)) return true
  const own = url.origin
  return (
    own === new URL(config.baseUrl).origin ||
    own === new URL(config.appUrl).origin ||
    config.mcpAllowedOrigins.includes(own)
  )
}

/**
 * CORS for browser-based MCP clients (the Inspector's web UI, web agents). Safe with `*`: /mcp takes only
 * bearer tokens, never cookies, so another origin can do nothing a token holder could not do anyway, and
 * a page on an origin the guard refuses (isAllowedMcpOrigin, above) can at least read its 403.
 * @see docs/security.md#mcp-origin
 */
export const MCP_CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After',
}
