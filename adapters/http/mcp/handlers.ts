import { parseSort } from '../../../core/items/list-order.ts'
import type { ToolName } from '../../../core/mcp/tools.ts'
import type { Principal, Sort } from '../../../core/types.ts'
import type { AppDeps } from '../../app/deps.ts'
import type { SavedItemDto } from '../../../core/items/saved-item-dto.ts'
import { whoAmI } from '../../app/account.ts'
import { folderCreate, folderDelete, folderList, folderRename } from '../../app/folders.ts'
import { captureUrl, changeItem, deleteItem, listPage, pageText, type ListedPage } from '../../app/saved-items.ts'
import { readContent } from '../../app/reading.ts'
import { searchItems } from '../../app/search.ts'
import { changesSince } from '../../app/changes.ts'
import { createHighlight, listHighlights, listItemHighlights, type HighlightDto } from '../../app/highlights.ts'
import { ValidationError } from '../../../core/errors.ts'
import { SEARCH_DEFAULT_LIMIT } from '../../../core/search/cursor.ts'
import { cutAtParagraph } from '../../../core/reading/cut-text.ts'
import { describeItem } from '../../../core/mcp/item-line.ts'
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
    }
  | PageResult
>

/**
 * A list page's result as SQLite wrote it: its text as a JSON string and its `structuredContent` as JSON text,
 * each made when asked (not at all for a page whose answer is kept: server.ts `runToolHead`), and the page it
 * shows. Its items keep the output schema because the database refuses a value outside it
 * (docs/api.md#data-rules), as REST's list relies on.
 */
export interface PageResult {
  summaryJson: () => string
  structuredJson: () => string
  page: object
}

/**
 * list_saved_items' text as a JSON string: how many, the sort, one numbered line per item (`describeItem`'s
 * words, as SQLite wrote them into the page: ITEM_LINE), and how to ask for more. Made from the lines as they
 * are, with no JSON read back and none written again (docs/benchmarks.md#mcps-list).
 */
export function pageSummaryJson(sort: Sort, listed: ListedPage): string {
  const count = listed.count
  const lines = listed.lines ?? ''
  let text = count === 0 ? '"No saved items match.' : `"${count} saved item${count === 1 ? '' : 's'} (sort ${sort}):`
  let at = 0
  for (let number = 1; number <= count; number++) {
    const end = lines.indexOf('\n', at)
    const stop = end < 0 ? lines.length : end
    // Each line is a JSON string: its text is inside its quotes.
    text += `\\n${number}. ${lines.slice(at + 1, stop - 1)}`
    at = stop + 1
  }
  // A cursor is base64url: nothing in it needs escaping.
  if (listed.nextCursor) text += `\\nMore items: call again with cursor \\"${listed.nextCursor}\\".`
  return `${text}"`
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
      // The page SQLite wrote, with each item's line of the text: the answer carries both as SQLite wrote
      // them, with no objects made and nothing serialized again (docs/benchmarks.md#mcps-list).
      const listed = await listPage(
        deps,
        principal,
        { sort, folder: args.folder ?? null, limit: args.limit ?? MCP_DEFAULT_PAGE_SIZE, cursor: args.cursor ?? null },
        true,
      )
      return {
        summaryJson: () => pageSummaryJson(sort, listed),
        structuredJson: () => `${pageText(listed).slice(0, -1)},"nextCursor":${JSON.stringify(listed.nextCursor)}}`,
        page: listed,
      }
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
