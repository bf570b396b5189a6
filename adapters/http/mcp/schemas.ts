import { Type } from '@sinclair/typebox'
import { t, type TSchema } from 'elysia'
import { MAX_PAGE_SIZE } from '../../../core/items/list-order.ts'
import { SORTS } from '../../../core/types.ts'
import { MAX_FOLDER_NAME_LENGTH } from '../../../core/folders/folder-name.ts'
import { MAX_URL_LENGTH } from '../../../core/url/normalize-url.ts'
import { MAX_EXACT_LENGTH, MAX_NOTE_LENGTH } from '../../../core/highlights/highlight.ts'
import {
  ChangesPage,
  Fields,
  Folder,
  HighlightedItem,
  highlightFields,
  HighlightResponse,
  literals,
  nullable,
  SavedItem,
} from '../schemas.ts'

// One schema source for REST and MCP (docs/mcp.md#tools): the tools' outputs ARE the REST response schemas
// of adapters/http/schemas.ts (TypeBox, which is JSON Schema), and their inputs are the REST request
// fields (built by the same `Fields` builders) with ids as arguments instead of path segments. Optional inputs are plain optional (no null);
// the only nullable one is move_to_folder's folderId: `anyOf` in tool inputs trips up some clients.

const id = (what: string) =>
  t.String({ minLength: 1, maxLength: 100, description: `The ${what} id (as returned by the other tools)` })
const args = <P extends Record<string, TSchema>>(properties: P) => t.Object(properties)

export const Inputs = {
  save_url: args({
    url: Fields.url(
      `The page to save: an absolute http or https URL, at most ${MAX_URL_LENGTH} characters (longer is InvalidUrlError)`,
    ),
    sourceName: t.Optional(Fields.sourceName('Where the link was found, e.g. a newsletter name')),
    tags: t.Optional(Fields.tags('Tags to add; kept alongside any the item already has')),
    folderId: t.Optional(Fields.folderId('Put the item in this folder (id from list_folders)')),
    captureChannel: t.Optional(Fields.captureChannel('The channel to record; default "api"')),
    html: t.Optional(
      Fields.html(
        'The page as the browser rendered it: its article is kept from this instead of fetching the URL (pages over 2 MiB are cut)',
      ),
    ),
  }),
  search_saved_items: args({
    query: t.String({
      minLength: 1,
      maxLength: 1000,
      description: 'What to look for: words, "a phrase", -word, OR, and filters such as is:unread or site:example.com',
    }),
    limit: t.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Results, 1 to 100; default 20' })),
    cursor: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 2000,
        description: 'nextCursor from the previous page, with the same query',
      }),
    ),
  }),
  read_saved_item: args({
    id: id('saved item'),
    format: t.Optional(literals(['markdown', 'text'] as const, 'markdown (default) or text')),
  }),
  list_saved_items: args({
    sort: t.Optional(literals(SORTS, 'newest (default), oldest, title, or unread (unread first)')),
    folder: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only items in this folder id, or "none" for items in no folder',
      }),
    ),
    limit: t.Optional(
      // TypeBox's own integer: Elysia's `t.Integer` also takes numeric strings, as query strings need.
      Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: `Page size, 1 to ${MAX_PAGE_SIZE}; default 50` }),
    ),
    cursor: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 2000,
        description: 'nextCursor from the previous page, with the same sort',
      }),
    ),
  }),
  list_changes: args({
    since: t.Optional(
      t.String({ minLength: 1, maxLength: 512, description: 'cursor from the previous result; absent the first time' }),
    ),
  }),
  list_highlights: args({
    savedItemId: t.Optional(id('saved item')),
    limit: t.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        description: `Highlights, 1 to ${MAX_PAGE_SIZE}; default 20 (all of an item's with savedItemId)`,
      }),
    ),
    cursor: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 2000,
        description: 'nextCursor from the previous page (without savedItemId)',
      }),
    ),
  }),
  add_highlight: args({
    savedItemId: id('saved item'),
    exact: Fields.highlightExact(
      `The passage to highlight, exactly as in the article's text, 1 to ${MAX_EXACT_LENGTH.toLocaleString('en-US')} characters`,
    ),
    note: t.Optional(Fields.highlightNote(`A note on it, up to ${MAX_NOTE_LENGTH.toLocaleString('en-US')} characters`)),
  }),
  mark_read: args({ id: id('saved item') }),
  mark_unread: args({ id: id('saved item') }),
  open_saved_item: args({ id: id('saved item') }),
  move_to_folder: args({
    id: id('saved item'),
    folderId: t.Union([Fields.folderId(), t.Null()], {
      description: 'The folder id, or null to take the item out of its folder',
    }),
  }),
  delete_saved_item: args({ id: id('saved item') }),
  list_folders: args({}),
  create_folder: args({
    name: Fields.folderName(`The folder name: 1 to ${MAX_FOLDER_NAME_LENGTH} characters after trimming`),
  }),
  rename_folder: args({
    id: id('folder'),
    name: Fields.folderName(`The new name: 1 to ${MAX_FOLDER_NAME_LENGTH} characters after trimming`),
  }),
  delete_folder: args({ id: id('folder') }),
  whoami: args({}),
} as const

const closed = { additionalProperties: false } as const
const Deleted = t.Object({ deleted: t.Literal(true), id: t.String() }, closed)

export const Outputs = {
  save_url: t.Object({ savedItem: SavedItem, captureResult: literals(['created', 'updated'] as const) }, closed),
  list_saved_items: t.Object(
    {
      savedItems: t.Array(SavedItem),
      nextCursor: nullable(
        t.String({ minLength: 1, description: 'Pass as cursor for the next page; null on the last page' }),
      ),
    },
    closed,
  ),
  search_saved_items: t.Object(
    {
      results: t.Array(t.Object({ savedItem: SavedItem, snippet: nullable(t.String({ maxLength: 200 })) }, closed)),
      nextCursor: nullable(
        t.String({ minLength: 1, description: 'Pass as cursor for the next page; null on the last page' }),
      ),
    },
    closed,
  ),
  list_changes: ChangesPage,
  read_saved_item: t.Object(
    {
      savedItemId: t.String(),
      title: nullable(t.String()),
      byline: nullable(t.String()),
      siteName: nullable(t.String()),
      lang: nullable(t.String()),
      wordCount: Type.Integer({ minimum: 0 }),
      readingMinutes: Type.Integer({ minimum: 1 }),
      progress: t.Number({ minimum: 0, maximum: 1 }),
      extractedAt: t.String(),
      markdown: t.Optional(t.String({ description: 'The article as Markdown (format markdown)' })),
      text: t.Optional(t.String({ description: 'The article as plain text (format text)' })),
      truncated: t.Boolean({ description: 'True when the article was cut at 100,000 characters' }),
    },
    closed,
  ),
  list_highlights: t.Object(
    {
      highlights: t.Array(
        t.Object(
          {
            ...highlightFields,
            // Absent when savedItemId was given: every highlight is on that item.
            savedItem: t.Optional(HighlightedItem),
          },
          closed,
        ),
      ),
      nextCursor: nullable(
        t.String({ minLength: 1, description: 'Pass as cursor for the next page; null on the last page' }),
      ),
    },
    closed,
  ),
  add_highlight: HighlightResponse,
  mark_read: SavedItem,
  mark_unread: SavedItem,
  open_saved_item: SavedItem,
  move_to_folder: SavedItem,
  delete_saved_item: Deleted,
  list_folders: t.Object({ folders: t.Array(Folder) }, closed),
  create_folder: Folder,
  rename_folder: Folder,
  delete_folder: Deleted,
  whoami: t.Object({ id: t.String(), email: t.String() }, closed),
} as const

/**
 * A schema as tools/list advertises it: plain JSON (TypeBox's symbols dropped), and a union of string
 * constants written as `{ type: 'string', enum }`, the form every MCP client reads.
 */
export function advertised(schema: TSchema): Record<string, unknown> {
  return simplify(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>
}

function simplify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplify)
  if (node === null || typeof node !== 'object') return node
  const object = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, simplify(value)]))
  const branches = object.anyOf as { const?: unknown; type?: string }[] | undefined
  if (branches?.length && branches.every((branch) => typeof branch.const === 'string')) {
    const { anyOf: _, ...rest } = object
    return { ...rest, type: 'string', enum: branches.map((branch) => branch.const) }
  }
  return object
}
