import type { ExportContext, ExportItem } from './export-item.ts'

/**
 * The head of a Netscape bookmark file, as browsers write it. The DOCTYPE line is what importers (browsers,
 * Pinboard, Raindrop) look for to recognise the format; the META line makes a browser read the file as UTF-8.
 */
export const NETSCAPE_HEAD = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<!-- This is an automatically generated file. It will be read and overwritten. DO NOT EDIT! -->
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
`
const NETSCAPE_TAIL = '</DL><p>\n'
/** Four spaces per level, as Chrome and Firefox indent their exports: only for people reading the file. */
const INDENT = '    '

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  // Line breaks are written as references so that each bookmark stays on one line (and its description on
  // the next): importers that read the file line by line, as many do, then never see half an entry. An HTML
  // parser turns them back into the same characters (and `&#13;` keeps a CR that a raw CR would lose: HTML
  // parsing turns a raw CR into LF).
  '\n': '&#10;',
  '\r': '&#13;',
}
const NEEDS_ESCAPE = /[&<>"'\r\n]/g

/** Text that is safe both as an element's content and inside a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(NEEDS_ESCAPE, (character) => ESCAPES[character]!)
}

/**
 * Unix time in milliseconds, the unit of `ADD_DATE_MS`. Throws a RangeError for a timestamp that cannot be
 * read, rather than write `NaN` into the file.
 */
export function unixMilliseconds(timestamp: string): number {
  const milliseconds = Date.parse(timestamp)
  if (Number.isNaN(milliseconds)) throw new RangeError(`Cannot export timestamp: "${timestamp}" is not a date`)
  return milliseconds
}

/** Unix time in whole seconds, the unit of `ADD_DATE` and `LAST_MODIFIED`; a RangeError as above. */
export function unixSeconds(timestamp: string): number {
  return Math.floor(unixMilliseconds(timestamp) / 1000)
}

/** One bookmark (and its description line), indented for its depth. */
function bookmark(item: ExportItem, indent: string): string {
  const attributes = [
    `HREF="${escapeHtml(item.originalUrl)}"`,
    `ADD_DATE="${unixSeconds(item.createdAt)}"`,
    // The same to the millisecond, which browsers ignore and our import reads: a round trip keeps createdAt.
    `ADD_DATE_MS="${unixMilliseconds(item.createdAt)}"`,
    `LAST_MODIFIED="${unixSeconds(item.lastSavedAt)}"`,
    `TAGS="${escapeHtml(item.tags.join(','))}"`,
    // Pinboard's convention, which other importers follow: 1 is "to read" (unread), 0 is read.
    `TOREAD="${item.isRead ? '0' : '1'}"`,
  ]
  // An empty link is invisible in a browser's bookmarks, so an item without a title shows its URL.
  const text = item.title === null || item.title === '' ? item.originalUrl : item.title
  const line = `${indent}<DT><A ${attributes.join(' ')}>${escapeHtml(text)}</A>\n`
  if (item.description === null || item.description === '') return line
  return `${line}${indent}<DD>${escapeHtml(item.description)}\n`
}

/**
 * The Netscape bookmark file export (docs/import-export.md#export), streamed: the head, then one chunk per
 * item, then the tail. Each bookmark carries `ADD_DATE` (created) and `LAST_MODIFIED` (last saved) in Unix
 * seconds, `TAGS` joined with `,`, and `TOREAD` (`1` unread, `0` read); the title is the link text (the URL
 * when there is none) and a description follows on a `<DD>` line.
 *
 * **Folders.** An item in a folder is written inside that folder's block (`<DT><H3>name</H3>` then `<DL><p>` …
 * `</DL><p>`); an item in no folder at the top level. Nothing is buffered to group them, so memory stays
 * constant: a block opens whenever an item's folder differs from the previous item's, and closes when the
 * folder changes again or the file ends. So the file is right for items in any order, and the order decides
 * the grouping:
 * - ordered by folder, then newest first within each folder, each folder is one block. This is the order
 *   the caller should use (the index on `(user, folder, last saved, id)` serves it as it stands).
 * - in plain newest-first order, a folder whose items interleave with others' appears as several blocks of
 *   the same name. An import that finds folders by name (this server's: an entry names its folder) merges
 *   them again, but a browser makes one folder per block, hence the order above.
 *
 * The folder's `ADD_DATE` is the export's time: an item does not carry when its folder was made.
 *
 * Every attribute and text is escaped (`&`, `<`, `>`, `"`, `'`, and CR and LF as references, so one
 * bookmark is one line). Each item is read only when the chunk before it has been taken, so memory holds
 * one item, not the library.
 */
export async function* netscapeExportChunks(
  items: AsyncIterable<ExportItem>,
  context: ExportContext,
): AsyncGenerator<string, void, undefined> {
  // Read before the head is written, so a bad context fails before the first byte rather than mid-file.
  const folderAddDate = unixSeconds(context.exportedAt)
  yield NETSCAPE_HEAD
  /** The id of the folder whose block is open, or null at the top level. */
  let openFolder: string | null = null
  for await (const item of items) {
    const folder = item.folder
    let chunk = ''
    if ((folder?.id ?? null) !== openFolder) {
      if (openFolder !== null) chunk += `${INDENT}</DL><p>\n`
      if (folder !== null) {
        chunk += `${INDENT}<DT><H3 ADD_DATE="${folderAddDate}">${escapeHtml(folder.name)}</H3>\n${INDENT}<DL><p>\n`
      }
      openFolder = folder?.id ?? null
    }
    yield chunk + bookmark(item, openFolder === null ? INDENT : INDENT + INDENT)
  }
  yield (openFolder === null ? '' : `${INDENT}</DL><p>\n`) + NETSCAPE_TAIL
}
