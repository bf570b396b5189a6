import { appendFolderPart, checkAll, IMPORT_MAX_TITLE_LENGTH, type RawEntry, type RawItem } from './entry-rules.ts'
import { lineCounter, scanHtml } from './html-tokens.ts'
import { splitBookmarkTags } from './tags.ts'
import type { ParsedEntry } from './types.ts'

/** Text kept of one title or folder name while reading; the rules cut it much shorter anyway. */
const MAX_COLLECTED_TEXT = IMPORT_MAX_TITLE_LENGTH * 4

interface Anchor {
  line: number
  href: string | undefined
  addDate: string | undefined
  addDateMs: string | undefined
  tags: string | undefined
  toRead: string | undefined
  folder: string | null
  title: string
}

/**
 * A browser bookmark file (NETSCAPE-Bookmark-file-1) as Chrome, Firefox, Safari, Raindrop and Pinboard
 * write it. Each `<A HREF>` is an entry (an `<A>` without `HREF` is a named anchor, not a bookmark); its
 * folder is the path of `<H3>` names around it, outermost first (browser roots such as "Bookmarks bar"
 * included); `<H1>` and `<DD>` are not read. Entries are handed on as the file is read.
 * @see docs/import-export.md#formats
 */
export function* netscapeEntries(html: string): Generator<RawItem> {
  const lineAt = lineCounter(html)
  // Pinboard marks unread bookmarks TOREAD="1" and read ones TOREAD="0"; a browser writes no TOREAD, and
  // a bookmark is not something read or unread there, so it comes in unread. Whether the file says it is
  // known before the first entry is handed on, from any `<A …>` tag with the attribute.
  const readStateKnown = /<a\s[^>]*?\btoread\s*=/i.test(html)
  // Anchors opened and not yet handed on; the last may still be open (its title still growing).
  const pending: Anchor[] = []
  // One folder path per open <DL>, already joined and cut, so depth costs nothing per bookmark.
  const folders: (string | null)[] = [null]
  let heading: string | null = null
  let headingText: string | null = null
  let anchor: Anchor | null = null

  const scan = scanHtml(html, {
    open(name, attributes, offset) {
      // An anchor left unclosed ends where the next item, heading or list begins.
      if (name === 'dt' || name === 'dd' || name === 'dl' || name === 'h3') anchor = null
      if (name === 'a' && attributes.has('href')) {
        heading = null
        anchor = {
          line: lineAt(offset),
          href: attributes.get('href'),
          addDate: attributes.get('add_date'),
          addDateMs: attributes.get('add_date_ms'),
          tags: attributes.get('tags'),
          toRead: attributes.get('toread'),
          folder: folders[folders.length - 1] ?? null,
          title: '',
        }
        pending.push(anchor)
      } else if (name === 'h3') {
        heading = null
        headingText = ''
      } else if (name === 'dl') {
        // A <DL> right after an <H3> holds that folder; any other (the file's outer list) adds no level.
        const parent = folders[folders.length - 1] ?? null
        folders.push(heading === null ? parent : appendFolderPart(parent, heading))
        heading = null
      }
    },
    close(name) {
      if (name === 'a') anchor = null
      else if (name === 'h3' && headingText !== null) {
        heading = headingText
        headingText = null
      } else if (name === 'dl' && folders.length > 1) folders.pop()
    },
    text(text) {
      if (anchor !== null && anchor.title.length < MAX_COLLECTED_TEXT) anchor.title += text
      else if (headingText !== null && headingText.length < MAX_COLLECTED_TEXT) headingText += text
    },
  })

  const entryOf = (found: Anchor): RawEntry => ({
    line: found.line,
    url: found.href,
    // A bookmark shown by its own URL has no title: browsers (and our export) write the URL as the link
    // text of a page that had none.
    title: found.href !== undefined && found.title.trim() === found.href.trim() ? null : found.title,
    savedAt: { value: addedAt(found), field: 'ADD_DATE' },
    isRead: readStateKnown && found.toRead?.trim() !== '1',
    folder: found.folder,
    tags: splitBookmarkTags(found.tags),
  })
  for (const _ of scan) {
    const done = anchor !== null && pending.at(-1) === anchor ? pending.length - 1 : pending.length
    yield* pending.splice(0, done).map(entryOf)
  }
  yield* pending.map(entryOf)
}

/** A whole bookmark file's entries, checked (tests and small files). */
export function parseNetscape(html: string, now: Date): ParsedEntry[] {
  return checkAll(netscapeEntries(html), now)
}

/**
 * When the bookmark was added: `ADD_DATE` in seconds, or to the millisecond from `ADD_DATE_MS` (which this
 * service's export writes beside it; browsers ignore it) when the two agree, so an exported library comes
 * back with its exact `createdAt` (docs/import-export.md#export). A file edited by hand that changed only
 * `ADD_DATE` is read by `ADD_DATE`.
 */
function addedAt(found: Anchor): string | undefined {
  const ms = found.addDateMs?.trim()
  const seconds = found.addDate?.trim()
  if (ms === undefined || seconds === undefined || !/^\d{1,16}$/.test(ms) || !/^\d{1,13}$/.test(seconds))
    return found.addDate
  const exact = Number(ms)
  // As an ISO timestamp: a bare number's unit is guessed from its size, and milliseconds before 2001 are
  // small enough to read as seconds.
  return Math.floor(exact / 1000) === Number(seconds) ? new Date(exact).toISOString() : found.addDate
}
