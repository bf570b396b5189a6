import type { Scope } from '../../core/types.ts'
import { authorizeBody } from '../connect/connect-fixtures.ts'

// The guarded endpoints as the docs state them (docs/security.md#scopes), written out independently of the
// routes, with what the tests send each: one row an endpoint, the one table every test that goes over all
// endpoints reads. Each route states its access once, in its `auth`, `mcp` or `public` option
// (adapters/http/guard.ts): test/http/route-access.test.ts checks the routes agree with this table,
// test/http/openapi.test.ts that /openapi.json describes its REST rows, and
// test/http/generated-security.test.ts tries every operation of /openapi.json, each looked up here for its
// sample path and body, what its owner gets and what another person's id gets.

/** Who may call an endpoint: holders of one scope (or of two, space-separated), any valid credential, or anyone. */
export type EndpointAccess = Scope | `${Scope} ${Scope}` | 'any-credential' | 'public'

/** Ids a sample path and body are built from: a seeded person's (test/http/people.ts) or placeholders. */
export interface RouteIds {
  itemId: string
  folderId: string
  importId: string
  webhookId: string
  highlightId: string
}

/** What an endpoint answers when its path names a resource of another person. */
export type ForeignAnswer =
  | { resource: 'saved-item'; status: 404; tag: 'SavedItemNotFoundError'; field: 'savedItemId' }
  | { resource: 'saved-item'; status: 204 } // DELETE is idempotent: same as a missing item (docs/api.md#lists)
  | { resource: 'folder'; status: 404; tag: 'FolderNotFoundError'; field: 'folderId' }
  | { resource: 'import'; status: 404; tag: 'ImportNotFoundError'; field: 'importId' }
  | { resource: 'webhook'; status: 404; tag: 'WebhookNotFoundError'; field: 'webhookId' }
  | { resource: 'highlight'; status: 404; tag: 'HighlightNotFoundError'; field: 'highlightId' }

export interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Path with `:id` standing for exactly one non-empty segment. */
  pattern: string
  access: EndpointAccess
  /** Whether the endpoint takes a JSON body (415 for another content type). */
  jsonBody: boolean
  /** A path for the pattern, with the given person's ids. */
  path(ids: RouteIds): string
  /** A valid JSON body (absent: the endpoint takes none, or not JSON). */
  body?: (ids: RouteIds) => unknown
  /** What the owner gets with the sample, holding only the endpoint's scope(s); required of single-scope endpoints. */
  success?: number
  /** Non-null when the path addresses a resource by id: what another person gets for it. */
  foreign: ForeignAnswer | null
}

/** The rule part of a row, as route-access.test.ts reads it off the routes. */
export type EndpointRule = Pick<Endpoint, 'method' | 'pattern' | 'access' | 'jsonBody'>

/** Ids of nothing, for requests that never get past the guard. */
export const PLACEHOLDER_IDS: RouteIds = {
  itemId: '017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
  folderId: 'f1',
  importId: 'abc',
  webhookId: 'abc',
  highlightId: '017f22e2-79b0-7cc3-98c4-dc0c0c07399a',
}

const itemNotFound = {
  resource: 'saved-item',
  status: 404,
  tag: 'SavedItemNotFoundError',
  field: 'savedItemId',
} as const
const folderNotFound = { resource: 'folder', status: 404, tag: 'FolderNotFoundError', field: 'folderId' } as const
const importNotFound = { resource: 'import', status: 404, tag: 'ImportNotFoundError', field: 'importId' } as const
const webhookNotFound = { resource: 'webhook', status: 404, tag: 'WebhookNotFoundError', field: 'webhookId' } as const
const highlightNotFound = {
  resource: 'highlight',
  status: 404,
  tag: 'HighlightNotFoundError',
  field: 'highlightId',
} as const

/** A row for a path without ids. */
const plain = (
  method: Endpoint['method'],
  pattern: string,
  access: EndpointAccess,
  rest: Partial<Pick<Endpoint, 'body' | 'success'>> & { query?: string } = {},
): Endpoint => ({
  method,
  pattern,
  access,
  jsonBody: rest.body !== undefined,
  path: () => pattern + (rest.query ?? ''),
  ...(rest.body ? { body: rest.body } : {}),
  ...(rest.success !== undefined ? { success: rest.success } : {}),
  foreign: null,
})

/** A row for a path naming one resource by id. */
const byId = (
  method: Endpoint['method'],
  pattern: string,
  access: EndpointAccess,
  id: keyof RouteIds,
  foreign: ForeignAnswer,
  rest: Partial<Pick<Endpoint, 'body' | 'success'>> = {},
): Endpoint => ({
  method,
  pattern,
  access,
  jsonBody: rest.body !== undefined,
  path: (ids) => pattern.replace(':id', ids[id]),
  ...(rest.body ? { body: rest.body } : {}),
  ...(rest.success !== undefined ? { success: rest.success } : {}),
  foreign,
})

export const ENDPOINTS: readonly Endpoint[] = [
  plain('GET', '/health', 'public'),
  plain('GET', '/v1/health', 'public'),
  plain('POST', '/v1/captures', 'saved-items:capture', {
    body: () => ({ url: 'https://example.org/generated', tags: ['security'], sourceName: 'generated' }),
    success: 201,
  }),
  plain('GET', '/v1/saved-items', 'saved-items:read', { success: 200 }),
  plain('GET', '/v1/search', 'saved-items:read', { query: '?q=sample', success: 200 }),
  plain('GET', '/v1/changes', 'saved-items:read', { success: 200 }),
  // Looks up by URL, not id: another person's page is just "not saved" (test/http/lookup-and-tags.test.ts).
  plain('GET', '/v1/saved-items/lookup', 'saved-items:read', {
    query: '?url=https%3A%2F%2Fexample.org%2Fgenerated',
    success: 404,
  }),
  byId('POST', '/v1/saved-items/:id/open', 'saved-items:write', 'itemId', itemNotFound, { success: 200 }),
  byId('POST', '/v1/saved-items/:id/read', 'saved-items:write', 'itemId', itemNotFound, { success: 200 }),
  byId('POST', '/v1/saved-items/:id/unread', 'saved-items:write', 'itemId', itemNotFound, { success: 200 }),
  byId('POST', '/v1/saved-items/:id/read-state', 'saved-items:write', 'itemId', itemNotFound, {
    body: () => ({ isRead: true }),
    success: 200,
  }),
  byId('PUT', '/v1/saved-items/:id/folder', 'saved-items:write', 'itemId', itemNotFound, {
    body: (ids) => ({ folderId: ids.folderId }),
    success: 200,
  }),
  byId('PUT', '/v1/saved-items/:id/tags', 'saved-items:write', 'itemId', itemNotFound, {
    body: () => ({ tags: ['design'] }),
    success: 200,
  }),
  byId('GET', '/v1/saved-items/:id/content', 'saved-items:read', 'itemId', itemNotFound, { success: 200 }),
  // The seeded article's first archived image (test/http/people.ts); `n` is the image's number.
  {
    ...byId('GET', '/v1/saved-items/:id/images/:n', 'saved-items:read', 'itemId', itemNotFound, { success: 200 }),
    path: (ids: RouteIds) => `/v1/saved-items/${ids.itemId}/images/1`,
  },
  // docs/import-export.md#epub: the item as a book (an attachment, not JSON).
  byId('GET', '/v1/saved-items/:id/epub', 'saved-items:read', 'itemId', itemNotFound, { success: 200 }),
  byId('PUT', '/v1/saved-items/:id/progress', 'saved-items:write', 'itemId', itemNotFound, {
    body: () => ({ progress: 0.5 }),
    success: 200,
  }),
  byId(
    'DELETE',
    '/v1/saved-items/:id',
    'saved-items:delete',
    'itemId',
    { resource: 'saved-item', status: 204 },
    {
      success: 204,
    },
  ),
  // docs/highlights.md: the seeded article's text is "Seeded article text".
  byId('POST', '/v1/saved-items/:id/highlights', 'saved-items:write', 'itemId', itemNotFound, {
    body: () => ({ quote: { exact: 'article' }, color: 'green', note: 'Generated note' }),
    success: 201,
  }),
  byId('GET', '/v1/saved-items/:id/highlights', 'saved-items:read', 'itemId', itemNotFound, { success: 200 }),
  plain('GET', '/v1/highlights', 'saved-items:read', { success: 200 }),
  byId('PATCH', '/v1/highlights/:id', 'saved-items:write', 'highlightId', highlightNotFound, {
    body: () => ({ color: 'blue', note: 'Generated note' }),
    success: 200,
  }),
  byId('DELETE', '/v1/highlights/:id', 'saved-items:write', 'highlightId', highlightNotFound, { success: 204 }),
  plain('GET', '/v1/folders', 'folders:read', { success: 200 }),
  plain('POST', '/v1/folders', 'folders:write', { body: () => ({ name: 'Generated folder' }), success: 200 }),
  byId('PATCH', '/v1/folders/:id', 'folders:write', 'folderId', folderNotFound, {
    body: () => ({ name: 'Generated rename' }),
    success: 200,
  }),
  byId('DELETE', '/v1/folders/:id', 'folders:delete', 'folderId', folderNotFound, { success: 204 }),
  plain('GET', '/v1/me', 'account:read', { success: 200 }),
  plain('POST', '/v1/webhooks', 'webhooks:manage', {
    body: () => ({ url: 'https://hooks.example.invalid/generated', events: ['saved_item.created'] }),
    success: 201,
  }),
  plain('GET', '/v1/webhooks', 'webhooks:manage', { success: 200 }),
  byId('DELETE', '/v1/webhooks/:id', 'webhooks:manage', 'webhookId', webhookNotFound, { success: 204 }),
  byId('POST', '/v1/webhooks/:id/test', 'webhooks:manage', 'webhookId', webhookNotFound, { success: 200 }),
  byId('GET', '/v1/webhooks/:id/deliveries', 'webhooks:manage', 'webhookId', webhookNotFound, { success: 200 }),
  // An upload, not a JSON body: test/http/imports.test.ts sends the files.
  plain('POST', '/v1/imports', 'saved-items:capture folders:write'),
  plain('GET', '/v1/imports', 'saved-items:read', { success: 200 }),
  byId('GET', '/v1/imports/:id', 'saved-items:read', 'importId', importNotFound, { success: 200 }),
  plain('GET', '/v1/export', 'saved-items:read folders:read', { success: 200 }),
  plain('POST', '/connect/authorize', 'any-credential', { body: () => authorizeBody() }),
  plain('POST', '/connect/exchange', 'public', {
    body: () => ({ client: 'raycast', code: 'no-such-code', codeVerifier: 'v'.repeat(43) }),
  }),
  // JSON-RPC, not REST (test/mcp): no sample here, but a JSON body all the same.
  { ...plain('POST', '/mcp', 'any-credential'), jsonBody: true },
  plain('GET', '/mcp', 'any-credential'),
  plain('DELETE', '/mcp', 'any-credential'),
]

export const ENDPOINT_RULES: readonly EndpointRule[] = ENDPOINTS.map(({ method, pattern, access, jsonBody }) => ({
  method,
  pattern,
  access,
  jsonBody,
}))

/** `/v1/folders/:id` as OpenAPI writes it: `/v1/folders/{id}`. */
export const toTemplate = (pattern: string): string => pattern.replace(/:(\w+)/g, '{$1}')

/** The row of an operation of /openapi.json (a method and a path template), or undefined. */
export const endpointOf = (method: string, template: string): Endpoint | undefined =>
  ENDPOINTS.find((endpoint) => endpoint.method === method && toTemplate(endpoint.pattern) === template)
