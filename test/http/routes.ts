import { ENDPOINT_RULES, type EndpointRule } from './endpoint-table.ts'
import type { Scope } from '../../core/types.ts'
import type { Harness } from '../helpers/harness.ts'

/** Ids a route's path and sample body are built from. */
export interface RouteIds {
  itemId: string
  folderId: string
  importId: string
  webhookId: string
}

/** What a route answers when its path names a resource of another person. */
export type ForeignAnswer =
  | { resource: 'saved-item'; status: 404; tag: 'SavedItemNotFoundError' }
  | { resource: 'saved-item'; status: 204 } // DELETE is idempotent: same as a missing item (docs/api.md#lists)
  | { resource: 'folder'; status: 404; tag: 'FolderNotFoundError' }
  | { resource: 'import'; status: 404; tag: 'ImportNotFoundError' }
  | { resource: 'webhook'; status: 404; tag: 'WebhookNotFoundError' }

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** The pattern of the matching row of ENDPOINT_RULES. */
  pattern: string
  path(ids: RouteIds): string
  scope: Scope
  /** A valid body (undefined: the route takes none). */
  body?: (ids: RouteIds) => unknown
  /** The status the owner gets with the sample body on the seeded person. */
  success: number
  /** Non-null when the path addresses a resource by id: what another person gets for it. */
  foreign: ForeignAnswer | null
}

const itemNotFound = { resource: 'saved-item', status: 404, tag: 'SavedItemNotFoundError' } as const
const folderNotFound = { resource: 'folder', status: 404, tag: 'FolderNotFoundError' } as const
const webhookNotFound = { resource: 'webhook', status: 404, tag: 'WebhookNotFoundError' } as const

/** Every authenticated REST route of docs/security.md#scopes, one row each. */
export const ROUTES: readonly RouteSpec[] = [
  {
    method: 'POST',
    pattern: '/v1/captures',
    path: () => '/v1/captures',
    scope: 'saved-items:capture',
    body: () => ({ url: 'https://example.org/sample-capture?utm_source=test', tags: ['security'] }),
    success: 201,
    foreign: null,
  },
  {
    method: 'GET',
    pattern: '/v1/saved-items',
    path: () => '/v1/saved-items',
    scope: 'saved-items:read',
    success: 200,
    foreign: null,
  },
  {
    method: 'GET',
    pattern: '/v1/search',
    path: () => '/v1/search?q=sample',
    scope: 'saved-items:read',
    success: 200,
    foreign: null,
  },
  {
    method: 'GET',
    pattern: '/v1/changes',
    path: () => '/v1/changes',
    scope: 'saved-items:read',
    success: 200,
    foreign: null,
  },
  {
    method: 'POST',
    pattern: '/v1/saved-items/:id/open',
    path: (ids) => `/v1/saved-items/${ids.itemId}/open`,
    scope: 'saved-items:write',
    success: 200,
    foreign: itemNotFound,
  },
  {
    method: 'POST',
    pattern: '/v1/saved-items/:id/read',
    path: (ids) => `/v1/saved-items/${ids.itemId}/read`,
    scope: 'saved-items:write',
    success: 200,
    foreign: itemNotFound,
  },
  {
    method: 'POST',
    pattern: '/v1/saved-items/:id/unread',
    path: (ids) => `/v1/saved-items/${ids.itemId}/unread`,
    scope: 'saved-items:write',
    success: 200,
    foreign: itemNotFound,
  },
  {
    method: 'POST',
    pattern: '/v1/saved-items/:id/read-state',
    path: (ids) => `/v1/saved-items/${ids.itemId}/read-state`,
    scope: 'saved-items:write',
    body: () => ({ isRead: true }),
    success: 200,
    foreign: itemNotFound,
  },
  {
    method: 'PUT',
    pattern: '/v1/saved-items/:id/folder',
    path: (ids) => `/v1/saved-items/${ids.itemId}/folder`,
    scope: 'saved-items:write',
    body: (ids) => ({ folderId: ids.folderId }),
    success: 200,
    foreign: itemNotFound,
  },
  {
    method: 'GET',
    pattern: '/v1/saved-items/:id/content',
    path: (ids) => `/v1/saved-items/${ids.itemId}/content`,
    scope: 'saved-items:read',
    success: 200,
    foreign: itemNotFound,
  },
  {
    method: 'PUT',
    pattern: '/v1/saved-items/:id/progress',
    path: (ids) => `/v1/saved-items/${ids.itemId}/progress`,
    scope: 'saved-items:write',
    body: () => ({ progress: 0.5 }),
    success: 200,
    foreign: itemNotFound,
  },
  {
    method: 'DELETE',
    pattern: '/v1/saved-items/:id',
    path: (ids) => `/v1/saved-items/${ids.itemId}`,
    scope: 'saved-items:delete',
    success: 204,
    foreign: { resource: 'saved-item', status: 204 },
  },
  {
    method: 'GET',
    pattern: '/v1/folders',
    path: () => '/v1/folders',
    scope: 'folders:read',
    success: 200,
    foreign: null,
  },
  {
    method: 'POST',
    pattern: '/v1/folders',
    path: () => '/v1/folders',
    scope: 'folders:write',
    body: () => ({ name: 'Sample folder' }),
    success: 200,
    foreign: null,
  },
  {
    method: 'PATCH',
    pattern: '/v1/folders/:id',
    path: (ids) => `/v1/folders/${ids.folderId}`,
    scope: 'folders:write',
    body: () => ({ name: 'Renamed folder' }),
    success: 200,
    foreign: folderNotFound,
  },
  {
    method: 'DELETE',
    pattern: '/v1/folders/:id',
    path: (ids) => `/v1/folders/${ids.folderId}`,
    scope: 'folders:delete',
    success: 204,
    foreign: folderNotFound,
  },
  { method: 'GET', pattern: '/v1/me', path: () => '/v1/me', scope: 'account:read', success: 200, foreign: null },
  {
    method: 'GET',
    pattern: '/v1/imports',
    path: () => '/v1/imports',
    scope: 'saved-items:read',
    success: 200,
    foreign: null,
  },
  {
    method: 'GET',
    pattern: '/v1/imports/:id',
    path: (ids) => `/v1/imports/${ids.importId}`,
    scope: 'saved-items:read',
    success: 200,
    foreign: { resource: 'import', status: 404, tag: 'ImportNotFoundError' },
  },
  {
    method: 'POST',
    pattern: '/v1/webhooks',
    path: () => '/v1/webhooks',
    scope: 'webhooks:manage',
    body: () => ({ url: 'https://hooks.example.invalid/more', events: ['folder.created'] }),
    success: 201,
    foreign: null,
  },
  {
    method: 'GET',
    pattern: '/v1/webhooks',
    path: () => '/v1/webhooks',
    scope: 'webhooks:manage',
    success: 200,
    foreign: null,
  },
  {
    method: 'POST',
    pattern: '/v1/webhooks/:id/test',
    path: (ids) => `/v1/webhooks/${ids.webhookId}/test`,
    scope: 'webhooks:manage',
    success: 200,
    foreign: webhookNotFound,
  },
  {
    method: 'GET',
    pattern: '/v1/webhooks/:id/deliveries',
    path: (ids) => `/v1/webhooks/${ids.webhookId}/deliveries`,
    scope: 'webhooks:manage',
    success: 200,
    foreign: webhookNotFound,
  },
  {
    method: 'DELETE',
    pattern: '/v1/webhooks/:id',
    path: (ids) => `/v1/webhooks/${ids.webhookId}`,
    scope: 'webhooks:manage',
    success: 204,
    foreign: webhookNotFound,
  },
]

export const routeName = (route: RouteSpec): string => `${route.method} ${route.pattern}`

/**
 * The ENDPOINT_RULES rows this table must cover: every authenticated one except /connect/* (scope-free;
 * covered by test/connect) and those needing two scopes (the import and the export: test/http/imports.test.ts
 * checks each scope they need, and the generated security test every operation).
 */
export function rulesToCover(): EndpointRule[] {
  return ENDPOINT_RULES.filter(
    (rule) =>
      rule.access !== 'public' &&
      !rule.pattern.startsWith('/connect/') &&
      rule.pattern !== '/mcp' &&
      !rule.access.includes(' '),
  )
}

/**
 * Differences between the table and ENDPOINT_RULES, as readable lines (empty when they agree): a rule
 * without a route, a route without a rule, or a route whose scope differs from the rule's access.
 */
export function coverageProblems(routes: readonly RouteSpec[] = ROUTES): string[] {
  const problems: string[] = []
  const rules = rulesToCover()
  for (const rule of rules) {
    const matches = routes.filter((route) => route.method === rule.method && route.pattern === rule.pattern)
    if (matches.length === 0) problems.push(`no route for ${rule.method} ${rule.pattern}`)
    if (matches.length > 1) problems.push(`${matches.length} routes for ${rule.method} ${rule.pattern}`)
    for (const route of matches) {
      if (route.scope !== rule.access)
        problems.push(`${routeName(route)} needs ${rule.access}, table says ${route.scope}`)
    }
  }
  for (const route of routes) {
    if (!rules.some((rule) => rule.method === route.method && rule.pattern === route.pattern))
      problems.push(`${routeName(route)} has no ENDPOINT_RULES row`)
  }
  return problems
}

/** Gives a person one saved item and one folder (through the API, with a full-scope key) and returns their ids. */
export async function seedPerson(harness: Harness, token: string, label: string): Promise<RouteIds> {
  const capture = await harness.call('POST', '/v1/captures', {
    token,
    body: { url: `https://example.com/${label}/item`, sourceName: `${label} source` },
  })
  if (capture.status !== 201) throw new Error(`seed capture failed: ${capture.status} ${capture.text}`)
  // The item's article, as enrichment would store it, so the content route has something to answer.
  await harness.db.$client.execute({
    sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 3, '<p>Seeded article text</p>', 'Seeded article text', ?)",
    args: [capture.body.savedItem.id, capture.body.savedItem.createdAt],
  })
  const folder = await harness.call('POST', '/v1/folders', { token, body: { name: `${label} folder` } })
  if (folder.status !== 200) throw new Error(`seed folder failed: ${folder.status} ${folder.text}`)
  const started = await harness.call('POST', '/v1/imports', {
    token,
    raw: `https://example.com/${label}/imported\n`,
    headers: { 'content-type': 'text/plain' },
  })
  if (started.status !== 202) throw new Error(`seed import failed: ${started.status} ${started.text}`)
  // A name that never resolves: the test route's attempt fails at DNS, at once, without leaving the machine.
  const webhook = await harness.call('POST', '/v1/webhooks', {
    token,
    body: { url: `https://hooks.example.invalid/${label}`, events: ['saved_item.created'] },
  })
  if (webhook.status !== 201) throw new Error(`seed webhook failed: ${webhook.status} ${webhook.text}`)
  return {
    itemId: capture.body.savedItem.id,
    folderId: folder.body.id,
    importId: started.body.import.id,
    webhookId: webhook.body.webhook.id,
  }
}

/** Every row a person owns (items, folders), for "nothing changed" assertions. */
export async function snapshotPerson(harness: Harness, userId: string): Promise<unknown> {
  const items = await harness.db.$client.execute({
    sql: 'SELECT * FROM saved_items WHERE user_id = ? ORDER BY id',
    args: [userId],
  })
  const folders = await harness.db.$client.execute({
    sql: 'SELECT * FROM folders WHERE user_id = ? ORDER BY id',
    args: [userId],
  })
  const progress = await harness.db.$client.execute({
    sql: 'SELECT p.* FROM reading_progress p JOIN saved_items i ON i.id = p.item_id WHERE i.user_id = ? ORDER BY p.item_id',
    args: [userId],
  })
  return {
    items: items.rows.map((row) => ({ ...row })),
    folders: folders.rows.map((row) => ({ ...row })),
    progress: progress.rows.map((row) => ({ ...row })),
  }
}
