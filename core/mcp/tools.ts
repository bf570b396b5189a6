import type { Scope } from '../types.ts'

/**
 * The MCP tools of docs/mcp.md#tools: each mirrors one REST operation and needs the same scope. The input and
 * output schemas live with the adapter (the REST API's TypeBox schemas); what a tool is, what it needs and how a
 * client may treat it (MCP tool annotations) is domain, and lives here.
 */
export interface ToolSpec {
  name: string
  title: string
  /** One line a model can act on. */
  description: string
  scope: Scope
  /** MCP `ToolAnnotations`: hints only, never trusted for access decisions. */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false }
}

const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const
const write = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const
const destroy = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } as const

export const TOOLS = [
  {
    name: 'save_url',
    title: 'Save a URL',
    scope: 'saved-items:capture',
    description:
      'Save a web page (http or https URL) to the reading queue; saving a URL already in the queue updates that item and puts it back at the top. Pass html (the page as a browser rendered it) to keep that page instead of fetching the URL.',
    // Saving again changes lastSavedAt, so the call is not idempotent in the MCP sense.
    annotations: { ...write, idempotentHint: false },
  },
  {
    name: 'list_saved_items',
    title: 'List saved items',
    scope: 'saved-items:read',
    description:
      'List saved pages, newest first by default; filter by folder id (or "none"), page with limit and the nextCursor of the previous result.',
    annotations: read,
  },
  {
    name: 'search_saved_items',
    title: 'Search saved items',
    scope: 'saved-items:read',
    description:
      'Search the saved pages (titles, descriptions, sites, URLs, the articles themselves, and the text and notes of their highlights), best match first, with a snippet around each match. Words must all match; "a phrase", -word to exclude, OR, and filters is:read|unread, type:, tag:, site:, folder:"name"|none, status:, after:YYYY-MM-DD, before:YYYY-MM-DD, has:highlights.',
    annotations: read,
  },
  {
    name: 'list_changes',
    title: 'List changes',
    scope: 'saved-items:read',
    description:
      "What changed in the library since a cursor, deletions included, oldest first, 500 entries a page: for keeping an index of your own. Without since: every item, highlight (and folder) as it is now, then a cursor; pass each result's cursor as since next time, and call again at once while hasMore.",
    annotations: read,
  },
  {
    name: 'read_saved_item',
    title: 'Read a saved item',
    scope: 'saved-items:read',
    description:
      'Read the article of a saved item, by its id: Markdown by default (format "text" for plain text), with title, byline, word count and reading progress. Text over 100,000 characters is cut at a paragraph break and marked truncated.',
    annotations: read,
  },
  {
    name: 'list_highlights',
    title: 'List highlights',
    scope: 'saved-items:read',
    description:
      "List the person's highlights (passages they marked in saved articles) and their notes: with savedItemId, that item's highlights in the order of its text; without, the newest first across all items, each with its item's id, title and URL, limit 1 to 500 (default 20), and the nextCursor of the previous result for the next page.",
    annotations: read,
  },
  {
    name: 'add_highlight',
    title: 'Highlight a passage',
    scope: 'saved-items:write',
    description:
      'Highlight a passage of a saved item\'s article, by the item id and the exact text of the passage (as read_saved_item with format "text" shows it; its first occurrence is highlighted), with an optional note.',
    // Each call adds a highlight, even of a passage already highlighted.
    annotations: { ...write, idempotentHint: false },
  },
  {
    name: 'mark_read',
    title: 'Mark read',
    scope: 'saved-items:write',
    description: 'Mark a saved item as read, by its id.',
    annotations: write,
  },
  {
    name: 'mark_unread',
    title: 'Mark unread',
    scope: 'saved-items:write',
    description: 'Mark a saved item as unread, by its id.',
    annotations: write,
  },
  {
    name: 'open_saved_item',
    title: 'Open a saved item',
    scope: 'saved-items:write',
    description: 'Record that a saved item was opened (this also marks it read) and return it, including its URL.',
    annotations: { ...write, idempotentHint: false },
  },
  {
    name: 'move_to_folder',
    title: 'Move to folder',
    scope: 'saved-items:write',
    description: 'Put a saved item in a folder by folder id, or take it out of its folder with folderId null.',
    annotations: write,
  },
  {
    name: 'delete_saved_item',
    title: 'Delete a saved item',
    scope: 'saved-items:delete',
    description:
      'Delete a saved item for good, by its id; deleting an id that does not exist succeeds and changes nothing.',
    annotations: destroy,
  },
  {
    name: 'list_folders',
    title: 'List folders',
    scope: 'folders:read',
    description: 'List the folders, sorted by name, with the ids the other tools take.',
    annotations: read,
  },
  {
    name: 'create_folder',
    title: 'Create a folder',
    scope: 'folders:write',
    description: 'Create a folder with a name that is unique ignoring case (1 to 100 characters).',
    annotations: { ...write, idempotentHint: false },
  },
  {
    name: 'rename_folder',
    title: 'Rename a folder',
    scope: 'folders:write',
    description: 'Rename a folder, by its id; the new name must not be taken by another folder, ignoring case.',
    annotations: write,
  },
  {
    name: 'delete_folder',
    title: 'Delete a folder',
    scope: 'folders:delete',
    description: 'Delete a folder, by its id; its saved items are kept and end up in no folder.',
    annotations: destroy,
  },
  {
    name: 'whoami',
    title: 'Who am I',
    scope: 'account:read',
    description: 'Return the id and email of the account these tools act for.',
    annotations: read,
  },
] as const satisfies readonly ToolSpec[]

export type ToolName = (typeof TOOLS)[number]['name']

const BY_NAME: ReadonlyMap<string, ToolSpec> = new Map(TOOLS.map((tool) => [tool.name, tool]))

export function findTool(name: string): ToolSpec | undefined {
  return BY_NAME.get(name)
}

/**
 * The scopes an MCP POST body needs before it may be dispatched: the scope of every `tools/call` it holds
 * (a JSON-RPC batch may hold several). Everything else (initialize, tools/list, ping, notifications, an
 * unknown tool, a body that is not JSON-RPC) needs none beyond a valid credential; the MCP server answers it.
 * Checked at the HTTP layer so a lacking scope is an HTTP 403 the client can step up from (MCP 2025-11-25
 * "Scope challenge handling"), not a tool error.
 */
export function scopesNeededFor(message: unknown): Scope[] {
  const messages = Array.isArray(message) ? message : [message]
  const needed = new Set<Scope>()
  for (const entry of messages) {
    if (typeof entry !== 'object' || entry === null) continue
    const { method, params } = entry as { method?: unknown; params?: unknown }
    if (method !== 'tools/call' || typeof params !== 'object' || params === null) continue
    const name = (params as { name?: unknown }).name
    const tool = typeof name === 'string' ? findTool(name) : undefined
    if (tool) needed.add(tool.scope)
  }
  return [...needed]
}

/**
 * The `scope` of an MCP `insufficient_scope` challenge: what the token already holds plus what the call
 * lacks. MCP clients re-authorize with exactly this value, so naming only the missing scope would trade the
 * old permissions for the new one and loop (the spec's recommended approach keeps both).
 */
export function stepUpScope(granted: readonly string[], missing: readonly string[]): string {
  return [...new Set([...granted, ...missing])].join(' ')
}

/**
 * The `scope` hint of a 401 on /mcp, which clients use for their first authorization request: the least
 * that works for everyday use, i.e. the scopes of every tool that destroys nothing. The delete scopes come
 * by step-up when a delete tool is first called (the 403 challenge names what the client holds plus what
 * is missing). No `offline_access`: a refresh token is a long-lived credential a client should ask for on
 * its own, and MCP SDK clients (1.32) holding one answer a 403 by refreshing, which cannot widen a grant,
 * and then give up (typescript-sdk #2255), so they could never step up.
 * @see docs/mcp.md#scopes-and-step-up
 */
export const MCP_DEFAULT_SCOPE = [
  ...new Set(TOOLS.filter((tool) => !tool.annotations.destructiveHint).map((tool) => tool.scope as string)),
].join(' ')
