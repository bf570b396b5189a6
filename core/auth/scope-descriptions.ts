import type { Scope } from '../types.ts'

/** What refreshing asks for; an OAuth scope only, never held by an API key. */
export const OFFLINE_ACCESS = 'offline_access'

/**
 * What each scope grants, in the words of docs/mcp.md#tools: shown on the consent page and in the OpenAPI `oauth2`
 * scheme, so a person and a client developer read the same sentence.
 */
export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope | typeof OFFLINE_ACCESS, string>> = {
  'saved-items:capture': 'save a URL to the queue',
  'saved-items:read': 'list and read Saved Items',
  'saved-items:write': 'update read state, Source, and folder assignment',
  'saved-items:delete': 'delete Saved Items',
  'folders:read': 'list Folders',
  'folders:write': 'create and update Folders',
  'folders:delete': 'delete Folders, keeping their Saved Items',
  'account:read': 'read the identity of the authenticated account',
  'webhooks:manage': 'create, list, test and delete webhooks, which send your library’s changes to a URL',
  [OFFLINE_ACCESS]: 'receive a refresh token',
}
