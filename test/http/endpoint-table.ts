import type { Scope } from '../../core/types.ts'

// The guarded endpoints as the docs state them (docs/security.md#scopes), written out independently of the
// routes: each route states its access once, in its `auth`, `mcp` or `public` option (adapters/http/guard.ts),
// and test/http/route-access.test.ts checks the routes agree with this table.
// Rows: method, a sample path, the route pattern, access, whether it takes a JSON body.

/** Who may call an endpoint: holders of one scope (or of two, space-separated), any valid credential, or anyone. */
export type EndpointAccess = Scope | `${Scope} ${Scope}` | 'any-credential' | 'public'

export interface EndpointRule {
  method: string
  /** Path with `:id` standing for exactly one non-empty segment. */
  pattern: string
  access: EndpointAccess
  /** Whether the endpoint takes a JSON body (415 for another content type). */
  jsonBody: boolean
}

export const ENDPOINT_TABLE: readonly [
  method: string,
  path: string,
  pattern: string,
  access: EndpointAccess,
  jsonBody: boolean,
][] = [
  ['GET', '/health', '/health', 'public', false],
  ['GET', '/v1/health', '/v1/health', 'public', false],
  ['POST', '/v1/captures', '/v1/captures', 'saved-items:capture', true],
  ['GET', '/v1/saved-items', '/v1/saved-items', 'saved-items:read', false],
  ['GET', '/v1/search?q=x', '/v1/search', 'saved-items:read', false],
  ['GET', '/v1/changes', '/v1/changes', 'saved-items:read', false],
  ['POST', '/v1/saved-items/abc/open', '/v1/saved-items/:id/open', 'saved-items:write', false],
  ['POST', '/v1/saved-items/abc/read', '/v1/saved-items/:id/read', 'saved-items:write', false],
  ['POST', '/v1/saved-items/abc/unread', '/v1/saved-items/:id/unread', 'saved-items:write', false],
  ['POST', '/v1/saved-items/abc/read-state', '/v1/saved-items/:id/read-state', 'saved-items:write', true],
  ['PUT', '/v1/saved-items/abc/folder', '/v1/saved-items/:id/folder', 'saved-items:write', true],
  ['GET', '/v1/saved-items/abc/content', '/v1/saved-items/:id/content', 'saved-items:read', false],
  ['PUT', '/v1/saved-items/abc/progress', '/v1/saved-items/:id/progress', 'saved-items:write', true],
  [
    'DELETE',
    '/v1/saved-items/017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
    '/v1/saved-items/:id',
    'saved-items:delete',
    false,
  ],
  ['GET', '/v1/folders', '/v1/folders', 'folders:read', false],
  ['POST', '/v1/folders', '/v1/folders', 'folders:write', true],
  ['PATCH', '/v1/folders/f1', '/v1/folders/:id', 'folders:write', true],
  ['DELETE', '/v1/folders/f1', '/v1/folders/:id', 'folders:delete', false],
  ['GET', '/v1/me', '/v1/me', 'account:read', false],
  ['POST', '/v1/webhooks', '/v1/webhooks', 'webhooks:manage', true],
  ['GET', '/v1/webhooks', '/v1/webhooks', 'webhooks:manage', false],
  ['DELETE', '/v1/webhooks/abc', '/v1/webhooks/:id', 'webhooks:manage', false],
  ['POST', '/v1/webhooks/abc/test', '/v1/webhooks/:id/test', 'webhooks:manage', false],
  ['GET', '/v1/webhooks/abc/deliveries', '/v1/webhooks/:id/deliveries', 'webhooks:manage', false],
  ['POST', '/v1/imports', '/v1/imports', 'saved-items:capture folders:write', false],
  ['GET', '/v1/imports', '/v1/imports', 'saved-items:read', false],
  ['GET', '/v1/imports/abc', '/v1/imports/:id', 'saved-items:read', false],
  ['GET', '/v1/export', '/v1/export', 'saved-items:read folders:read', false],
  ['POST', '/connect/authorize', '/connect/authorize', 'any-credential', true],
  ['POST', '/connect/exchange', '/connect/exchange', 'public', true],
  ['POST', '/mcp', '/mcp', 'any-credential', true],
  ['GET', '/mcp', '/mcp', 'any-credential', false],
  ['DELETE', '/mcp', '/mcp', 'any-credential', false],
]

export const ENDPOINT_RULES: readonly EndpointRule[] = ENDPOINT_TABLE.map(([method, , pattern, access, jsonBody]) => ({
  method,
  pattern,
  access,
  jsonBody,
}))
