import { InsufficientScopeError } from '../errors.ts'
import { SCOPES } from '../types.ts'
import type { Scope } from '../types.ts'

const KNOWN_SCOPES: ReadonlySet<string> = new Set(SCOPES)

/** Whether a string is one of the scopes of docs/api.md#endpoints. @see docs/security.md#scopes */
export function isScope(value: string): value is Scope {
  return KNOWN_SCOPES.has(value)
}

/** Whether the granted scopes include `needed`. Scopes are flat: none implies another. @see docs/security.md#scopes */
export function hasScope(granted: readonly string[], needed: Scope): boolean {
  return granted.includes(needed)
}

/** Throws {@link InsufficientScopeError} (403) unless `needed` was granted. @see docs/security.md#scopes */
export function requireScope(granted: readonly string[], needed: Scope): void {
  if (!hasScope(granted, needed)) throw new InsufficientScopeError(needed)
}

/**
 * Whether every requested scope is among the granted ones; an empty request is a subset.
 * Used so a credential can never hand out more than it holds.
 * @see docs/oauth.md#connect-flow and docs/oauth.md#tokens (refresh cannot widen scope)
 */
export function isSubsetOf(requested: readonly string[], granted: readonly string[]): boolean {
  return requested.every((scope) => granted.includes(scope))
}

/**
 * Splits an OAuth `scope` value into distinct tokens, first occurrence order kept.
 * `+` is treated as a separator too, because clients that hand-build query strings send
 * `saved-items:read+folders:read` and no scope of ours contains `+`.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.3
 */
export function parseScopeList(value: string): string[] {
  return [...new Set(value.split(/[ +]/).filter((token) => token !== ''))]
}

/** Who may call an endpoint: holders of one scope, any valid credential, or anyone. */
export type EndpointAccess = Scope | 'any-credential' | 'public'

export interface EndpointRule {
  method: string
  /** Path with `:id` standing for exactly one non-empty segment. */
  pattern: string
  access: EndpointAccess
  /** Whether the endpoint takes a JSON body (415 for another content type). */
  jsonBody: boolean
}

/**
 * The access table of the REST, connect and MCP endpoints, one row per method and path.
 * @see docs/security.md#scopes
 */
export const ENDPOINT_RULES: readonly EndpointRule[] = [
  { method: 'GET', pattern: '/health', access: 'public', jsonBody: false },
  { method: 'GET', pattern: '/v1/health', access: 'public', jsonBody: false },
  { method: 'POST', pattern: '/v1/captures', access: 'saved-items:capture', jsonBody: true },
  { method: 'GET', pattern: '/v1/saved-items', access: 'saved-items:read', jsonBody: false },
  { method: 'POST', pattern: '/v1/saved-items/:id/open', access: 'saved-items:write', jsonBody: false },
  { method: 'POST', pattern: '/v1/saved-items/:id/read', access: 'saved-items:write', jsonBody: false },
  { method: 'POST', pattern: '/v1/saved-items/:id/unread', access: 'saved-items:write', jsonBody: false },
  { method: 'POST', pattern: '/v1/saved-items/:id/read-state', access: 'saved-items:write', jsonBody: true },
  { method: 'PUT', pattern: '/v1/saved-items/:id/folder', access: 'saved-items:write', jsonBody: true },
  { method: 'DELETE', pattern: '/v1/saved-items/:id', access: 'saved-items:delete', jsonBody: false },
  { method: 'GET', pattern: '/v1/folders', access: 'folders:read', jsonBody: false },
  { method: 'POST', pattern: '/v1/folders', access: 'folders:write', jsonBody: true },
  { method: 'PATCH', pattern: '/v1/folders/:id', access: 'folders:write', jsonBody: true },
  { method: 'DELETE', pattern: '/v1/folders/:id', access: 'folders:delete', jsonBody: false },
  { method: 'GET', pattern: '/v1/me', access: 'account:read', jsonBody: false },
  { method: 'POST', pattern: '/connect/authorize', access: 'any-credential', jsonBody: true },
  { method: 'POST', pattern: '/connect/exchange', access: 'public', jsonBody: true },
  // MCP: a valid token for `{base}/mcp` gets in; each tools/call is then checked against its tool's scope
  // (core/mcp/tools.ts), still before dispatch.
  { method: 'POST', pattern: '/mcp', access: 'any-credential', jsonBody: true },
  { method: 'GET', pattern: '/mcp', access: 'any-credential', jsonBody: false },
  { method: 'DELETE', pattern: '/mcp', access: 'any-credential', jsonBody: false },
]

/**
 * The rule for a request, or undefined when no row matches. `path` excludes the query string.
 * Matching is exact: methods are case-sensitive as RFC 9110 §9.1 says, a trailing `/` is a
 * different path, and HEAD is answered by the GET rule.
 * @see docs/security.md#scopes
 */
export function matchEndpoint(method: string, path: string): EndpointRule | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method
  const segments = path.split('/')
  return ENDPOINT_RULES.find(
    (candidate) => candidate.method === wanted && matchesPattern(candidate.pattern.split('/'), segments),
  )
}

function matchesPattern(pattern: readonly string[], segments: readonly string[]): boolean {
  if (pattern.length !== segments.length) return false
  return pattern.every((part, i) => {
    const segment = segments[i] ?? ''
    return part === ':id' ? segment !== '' : part === segment
  })
}
