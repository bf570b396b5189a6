import { parseSort } from '../../../core/items/list-order.ts'
import type { ToolName } from '../../../core/mcp/tools.ts'
import type { Principal, Sort } from '../../../core/types.ts'
import type { AppDeps } from '../../app/deps.ts'
import type { SavedItemDto } from '../../../core/items/saved-item-dto.ts'
import { whoAmI } from '../../app/account.ts'
import { folderCreate, folderDelete, folderList, folderRename } from '../../app/folders.ts'
import {
  captureUrl,
  changeItem,
  deleteItem,
  listPage,
  pageItems,
  pageText,
  type ListedPage,
} from '../../app/saved-items.ts'
import { readContent } from '../../app/reading.ts'
import { searchItems } from '../../app/search.ts'
import { changesSince } from '../../app/changes.ts'
import { createHighlight, listHighlights, listItemHighlights, type HighlightDto } from '../../app/highlights.ts'
import { ValidationError } from '../../../core/errors.ts'
import { SEARCH_DEFAULT_LIMIT } from '../../../core/search/cursor.ts'
import { cutAtParagraph } from '../../../core/reading/cut-text.ts'
import { pageSchemaFailure } from '../page-check.ts'
import type { Static } from 'elysia'
import type { Inputs, Outputs } from './schemas.ts'

/** Without a limit the REST list returns everything; a model's context is not that big. */
export const MCP_DEFAULT_PAGE_SIZE = 50
/** The most article text one read_saved_item answer carries (docs/mcp.md#tools). */
export const MCP_READ_MAX_CHARS = 100_000
/** list_highlights across items without a limit: the newest 20 (docs/mcp.md#tools). */
export const MCP_HIGHLIGHTS_DEFAULT = 20
/**
 * How much of a quote or a note one line of list_highlights' and add_highlight's text shows: a model that
 * reads only the text still gets every highlight of a page, and `structuredContent` has them whole.
 */
export const MCP_HIGHLIGHT_TEXT_CHARS = 1_000

type Args<N extends ToolName> = Static<(typeof Inputs)[N]>
/** Typed against the output schema, so a DTO that drifts from it fails to compile. */
type Handler<N extends ToolName> = (args: Args<N>) => Promise<
  | {
      structured: Static<(typeof Outputs)[N]>
      summary: string
      /** Set when the result was already checked against its schema (a cached page): the server skips it. */
      checked?: boolean
    }
  | PageResult
>

/**
 * A list page's result as SQLite wrote it: its `structuredContent` as JSON text (the items in it checked
 * against the output schema once read into objects, `pageSchemaFailure`), and the page it shows (whose
 * answer's head is kept with it).
 */
export interface PageResult {
  structuredJson: () => string
  summary: string
  page: object
}

/** The summary of a cached page, made once per page (it depends only on the page and its sort). */
const pageSummaries = new WeakMap<ListedPage, string>()

/** list_saved_items' text: how many, the sort, one numbered line per item, and how to ask for more. */
function pageSummary(sort: Sort, lines: string[], nextCursor: string | null): string {
  const head =
    lines.length === 0
      ? 'No saved items match.'
      : `${lines.length} saved item${lines.length === 1 ? '' : 's'} (sort ${sort}):`
  const more = nextCursor ? `\nMore items: call again with cursor "${nextCursor}".` : ''
  return [head, ...lines.map((line, index) => `${index + 1}. ${line}`)].join('\n') + more
}

/** One line per item: what a model needs to refer back to it (its id) and to tell items apart. */
function describeItem(item: SavedItemDto): string {
  const state = [
    item.isRead ? 'read' : 'unread',
    item.folder ? `folder "${item.folder.name}"` : null,
    item.enrichmentStatus === 'pending' ? 'details pending' : null,
  ]
  return `${item.title ? `${item.title} ` : ''}<${item.originalUrl}> (${state.filter(Boolean).join(', ')}; id ${item.id})`
}

const clip = (text: string) =>
  text.length > MCP_HIGHLIGHT_TEXT_CHARS ? `${text.slice(0, MCP_HIGHLIGHT_TEXT_CHARS)}…` : text

/**
 * One line per highlight: the quote (and note), quoted as JSON strings so line breaks and quotes in them stay
 * on the line, its colour, where it is (or that the current text no longer has it), and its id and item's.
 */
function describeHighlight(highlight: HighlightDto & { savedItem?: { title: string | null; normalizedUrl: string } }) {
  const where = highlight.position
    ? `at ${highlight.position.start}–${highlight.position.end}`
    : 'not found in the current text'
  const item = highlight.savedItem
    ? ` on ${highlight.savedItem.title ? `${JSON.stringify(highlight.savedItem.title)} ` : ''}<${highlight.savedItem.normalizedUrl}> (item id ${highlight.savedItemId})`
    : ''
  const note = highlight.note === null ? '' : ` — note: ${JSON.stringify(clip(highlight.note))}`
  return `${JSON.stringify(clip(highlight.quote.exact))}${note} (${highlight.color}, ${where}; id ${highlight.id})${item}`
}

/** The lines above an article's text in read_saved_item's text answer. */
function describeArticle(
  head: {
    title: string | null
    byline: string | null
    siteName: string | null
    readingMinutes: number
    wordCount: number
  },
  truncated: boolean,
): string {
  const by = [head.byline, head.siteName].filter(Boolean).join(', ')
  const size = `${head.wordCount} words, about ${head.readingMinutes} min${truncated ? '; cut at 100,000 characters' : ''}`
  return `# ${head.title ?? 'Untitled'}\n${by ? `${by} · ` : ''}${size}\n\n`
}

/** The tool bodies: argument mapping, the shared operation, a structured result and a short text. */
export function toolHandlers(deps: AppDeps, principal: Principal): { [N in ToolName]: Handler<N> } {
  const item =
    (verb: string) =>
    async (saved: Promise<SavedItemDto>): Promise<{ structured: SavedItemDto; summary: string }> => {
      const dto = await saved
      return { structured: dto, summary: `${verb}: ${describeItem(dto)}` }
    }
  return {
    save_url: async (args) => {
      const { created, savedItem } = await captureUrl(deps, principal, args)
      return {
        structured: { savedItem, captureResult: created ? ('created' as const) : ('updated' as const) },
        summary: `${created ? 'Saved' : 'Already saved; moved back to the top'}: ${describeItem(savedItem)}`,
      }
    },
    list_saved_items: async (args) => {
      const sort: Sort = parseSort(args.sort)
      const listed = await listPage(deps, principal, {
        sort,
        folder: args.folder ?? null,
        limit: args.limit ?? MCP_DEFAULT_PAGE_SIZE,
        cursor: args.cursor ?? null,
      })
      // The page SQLite wrote, read into objects once for its summary and its schema check; the answer carries
      // the JSON as SQLite wrote it, not the objects serialized again (docs/benchmarks.md#the-uncached-list).
      const page = pageItems(listed)
      let summary = pageSummaries.get(listed)
      if (summary === undefined) {
        summary = pageSummary(sort, page.savedItems.map(describeItem), page.nextCursor)
        pageSummaries.set(listed, summary)
      }
      // A page that breaks its schema goes back as objects, for the server to name the failure and refuse it.
      if (pageSchemaFailure(listed) !== null) return { structured: page, summary }
      // Made into the answer only when the page's answer is not kept already (a cached page served again).
      const structuredJson = () => `${pageText(listed).slice(0, -1)},"nextCursor":${JSON.stringify(listed.nextCursor)}}`
      return { structuredJson, summary, page: listed }
    },
    search_saved_items: async (args) => {
      const page = await searchItems(deps, principal, {
        q: args.query,
        limit: args.limit ?? SEARCH_DEFAULT_LIMIT,
        cursor: args.cursor ?? null,
      })
      const lines = page.results.map(
        (result, index) =>
          `${index + 1}. ${describeItem(result.savedItem)}${result.snippet ? `\n   ${result.snippet}` : ''}`,
      )
      const head =
        page.results.length === 0
          ? 'No saved items match.'
          : `${page.results.length} result${page.results.length === 1 ? '' : 's'}, best first:`
      const more = page.nextCursor ? `\nMore results: call again with cursor "${page.nextCursor}".` : ''
      return { structured: page, summary: [head, ...lines].join('\n') + more }
    },
    list_changes: async (args) => {
      const page = await changesSince(deps, principal, args.since)
      const counts = { upsert: 0, delete: 0 }
      for (const change of page.changes) counts[change.op]++
      const head =
        page.changes.length === 0
          ? 'Nothing changed.'
          : `${page.changes.length} change${page.changes.length === 1 ? '' : 's'}: ${counts.upsert} new or changed, ${counts.delete} deleted.`
      const next = page.hasMore
        ? `More are waiting: call again at once with since "${page.cursor}".`
        : `Next time, call with since "${page.cursor}".`
      return { structured: page, summary: `${head}\n${next}` }
    },
    read_saved_item: async (args) => {
      if (args.format === 'text') {
        const { text, ...head } = await readContent(deps, principal, args.id, 'text')
        const cut = cutAtParagraph(text, MCP_READ_MAX_CHARS)
        return {
          structured: { ...head, text: cut.text, truncated: cut.truncated },
          summary: describeArticle(head, cut.truncated) + cut.text,
        }
      }
      const { markdown, ...head } = await readContent(deps, principal, args.id, 'markdown')
      const cut = cutAtParagraph(markdown, MCP_READ_MAX_CHARS)
      return {
        structured: { ...head, markdown: cut.text, truncated: cut.truncated },
        summary: describeArticle(head, cut.truncated) + cut.text,
      }
    },
    list_highlights: async (args) => {
      if (args.savedItemId !== undefined) {
        if (args.cursor !== undefined)
          throw new ValidationError("cursor: an item's highlights come in one list; leave cursor out with savedItemId")
        const all = await listItemHighlights(deps, principal, args.savedItemId)
        const highlights = args.limit === undefined ? all : all.slice(0, args.limit)
        const lines = highlights.map((highlight, index) => `${index + 1}. ${describeHighlight(highlight)}`)
        const head =
          all.length === 0
            ? `Saved item ${args.savedItemId} has no highlights.`
            : `${all.length} highlight${all.length === 1 ? '' : 's'} on saved item ${args.savedItemId}, in text order${highlights.length < all.length ? ` (the first ${highlights.length} shown)` : ''}:`
        return { structured: { highlights, nextCursor: null }, summary: [head, ...lines].join('\n') }
      }
      const page = await listHighlights(deps, principal, {
        limit: args.limit ?? MCP_HIGHLIGHTS_DEFAULT,
        cursor: args.cursor ?? null,
      })
      const lines = page.highlights.map((highlight, index) => `${index + 1}. ${describeHighlight(highlight)}`)
      const head =
        page.highlights.length === 0
          ? 'No highlights.'
          : `${page.highlights.length} highlight${page.highlights.length === 1 ? '' : 's'}, newest first:`
      const more = page.nextCursor ? `\nMore highlights: call again with cursor "${page.nextCursor}".` : ''
      return { structured: page, summary: [head, ...lines].join('\n') + more }
    },
    add_highlight: async (args) => {
      const highlight = await createHighlight(deps, principal, args.savedItemId, {
        quote: { exact: args.exact },
        note: args.note,
      })
      return {
        structured: { highlight },
        summary: `Highlighted in saved item ${highlight.savedItemId}: ${describeHighlight(highlight)}`,
      }
    },
    mark_read: (args) =>
      item('Marked read')(changeItem(deps, principal, args.id, { kind: 'read-state', isRead: true })),
    mark_unread: (args) =>
      item('Marked unread')(changeItem(deps, principal, args.id, { kind: 'read-state', isRead: false })),
    open_saved_item: (args) => item('Opened')(changeItem(deps, principal, args.id, { kind: 'open' })),
    move_to_folder: (args) =>
      item(args.folderId === null ? 'Taken out of its folder' : 'Moved')(
        changeItem(deps, principal, args.id, { kind: 'folder', folderId: args.folderId }),
      ),
    delete_saved_item: async (args) => {
      await deleteItem(deps, principal, args.id)
      return {
        structured: { deleted: true as const, id: args.id },
        summary: `Deleted saved item ${args.id} (if it existed).`,
      }
    },
    list_folders: async () => {
      const folders = await folderList(deps, principal)
      const lines = folders.map((folder) => `- ${folder.name} (id ${folder.id})`)
      return {
        structured: { folders },
        summary:
          folders.length === 0
            ? 'No folders yet.'
            : [`${folders.length} folder${folders.length === 1 ? '' : 's'}:`, ...lines].join('\n'),
      }
    },
    create_folder: async (args) => {
      const folder = await folderCreate(deps, principal, args.name)
      return { structured: folder, summary: `Created folder "${folder.name}" (id ${folder.id}).` }
    },
    rename_folder: async (args) => {
      const folder = await folderRename(deps, principal, args.id, args.name)
      return { structured: folder, summary: `Renamed folder ${folder.id} to "${folder.name}".` }
    },
    delete_folder: async (args) => {
      await folderDelete(deps, principal, args.id)
      return {
        structured: { deleted: true as const, id: args.id },
        summary: `Deleted folder ${args.id}; its items are kept, in no folder.`,
      }
    },
    whoami: async () => {
      const me = await whoAmI(deps, principal)
      return { structured: me, summary: `Signed in as ${me.email} (account ${me.id}).` }
    },
  }
}
