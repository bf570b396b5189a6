import { Parser } from 'htmlparser2'
import type { ExportItem } from '../../../core/export/export-item.ts'

// Shared by the export tests: items to export, sources to read them from, and a reader for the HTML.

export const EXPORTED_AT = '2026-11-25T10:04:05.123Z'

/** An item with every field set to something plain; `changes` overrides any of them. */
export function exportItem(changes: Partial<ExportItem> = {}): ExportItem {
  return {
    id: 'itm_01',
    originalUrl: 'https://example.com/posts/streams?utm_source=feed',
    normalizedUrl: 'https://example.com/posts/streams',
    host: 'example.com',
    title: 'Streams',
    description: null,
    siteName: 'Example',
    faviconUrl: null,
    faviconLightUrl: null,
    faviconDarkUrl: null,
    imageUrl: null,
    canonicalUrl: null,
    previewSummary: null,
    type: 'article',
    tags: [],
    enrichmentStatus: 'enriched',
    sourceName: null,
    captureChannel: 'api',
    folder: null,
    isRead: false,
    lastSavedAt: '2026-11-20T08:00:00.000Z',
    createdAt: '2026-11-20T08:00:00.000Z',
    updatedAt: '2026-11-20T08:00:00.000Z',
    ...changes,
  }
}

const READING = { id: 'fld_reading', name: 'Reading' }

/** Three items, newest first: two in a folder (one unread with tags and a description, one read without a title), one unfiled. */
export const THREE_ITEMS: ExportItem[] = [
  exportItem({
    id: 'itm_03',
    originalUrl: 'https://example.com/typed?a=1&b=2',
    normalizedUrl: 'https://example.com/typed?a=1&b=2',
    title: 'Typed streams',
    description: 'How to stream a library',
    tags: ['typescript', 'tools'],
    folder: READING,
    isRead: false,
    createdAt: '2026-11-20T08:00:00.000Z',
    lastSavedAt: '2026-11-24T18:30:15.500Z',
    updatedAt: '2026-11-24T18:30:15.500Z',
  }),
  exportItem({
    id: 'itm_02',
    originalUrl: 'https://video.example.org/watch?v=42',
    normalizedUrl: 'https://video.example.org/watch?v=42',
    host: 'video.example.org',
    title: null,
    siteName: null,
    type: 'video',
    enrichmentStatus: 'failed',
    folder: READING,
    isRead: true,
    captureChannel: null,
    createdAt: '2026-10-01T12:00:00.000Z',
    lastSavedAt: '2026-11-23T21:45:59.999Z',
    updatedAt: '2026-11-23T21:45:59.999Z',
  }),
  exportItem({
    id: 'itm_01',
    title: 'Plain',
    tags: ['ai'],
    sourceName: 'Hacker News',
    isRead: true,
    createdAt: '2026-09-03T07:00:00.000Z',
    lastSavedAt: '2026-11-02T09:15:00.000Z',
    updatedAt: '2026-11-02T09:15:00.000Z',
  }),
]

/** Text that breaks any serializer that forgets to escape: markup, entities, quotes, separators, line breaks, non-ASCII. */
export const HOSTILE = `"><script>alert('x')</script> &amp; &lt; 'single' "double", a,b|c;d\ttab\nline two\r\nline three\rend É 日本語 🎉👩‍👩‍👧 =SUM(A1)`

/** An item whose every free-text field is {@link HOSTILE} (the URL too: the serializers must not trust it). */
export const HOSTILE_ITEM: ExportItem = exportItem({
  id: 'itm_hostile',
  originalUrl: `https://example.com/?q="><script>alert(1)</script>&amp;x=1,2'3`,
  title: HOSTILE,
  description: `${HOSTILE}  `,
  siteName: HOSTILE,
  sourceName: `=HYPERLINK("https://evil.example","x")`,
  folder: { id: 'fld_hostile', name: `Tom & "Jerry's" <Folder>, 🎉` },
  tags: ['front-end', 'security'],
})

/** An async iterable over `items`. */
export async function* fromArray(items: readonly ExportItem[]): AsyncGenerator<ExportItem> {
  for (const item of items) yield item
}

/** Every chunk of a generator, in order. */
export async function collect<T = string>(chunks: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = []
  for await (const chunk of chunks) all.push(chunk)
  return all
}

/**
 * `count` items read the way the server reads them: in pages, with a wait between pages, counting how
 * many items have been handed out so far (`source.pulled`).
 */
export function pagedSource(count: number, pageSize = 500): { items: AsyncIterable<ExportItem>; pulled: () => number } {
  let pulled = 0
  async function* items(): AsyncGenerator<ExportItem> {
    for (let start = 0; start < count; start += pageSize) {
      await new Promise((resolve) => setTimeout(resolve, 0))
      for (let index = start; index < Math.min(count, start + pageSize); index++) {
        pulled++
        yield numberedItem(index)
      }
    }
  }
  return { items: items(), pulled: () => pulled }
}

const FOLDERS = [
  null,
  { id: 'fld_a', name: 'Alpha' },
  { id: 'fld_b', name: 'Beta' },
  null,
  { id: 'fld_c', name: 'Gamma' },
]

/** The item numbered `index`: its own id and URL, folders changing every few items. */
export function numberedItem(index: number): ExportItem {
  return exportItem({
    id: `itm_${String(index).padStart(6, '0')}`,
    originalUrl: `https://example.com/items/${index}`,
    normalizedUrl: `https://example.com/items/${index}`,
    title: `Item ${index}`,
    description: index % 2 === 0 ? `Description ${index}` : null,
    folder: FOLDERS[Math.floor(index / 3) % FOLDERS.length]!,
    isRead: index % 3 === 0,
  })
}

/**
 * An endless source, as a plain iterator so the test sees `return()`: the serializers must stop reading it
 * (and close it) when their consumer stops. Its items resolve at once, so a serializer that reads ahead
 * would spin without ever letting a timer fire; past `readAheadLimit` items the source throws instead, and
 * such a serializer fails rather than hangs.
 */
export function endlessSource(readAheadLimit = 1000): {
  items: AsyncIterable<ExportItem>
  pulled: () => number
  closed: () => boolean
} {
  let pulled = 0
  let closed = false
  const items: AsyncIterable<ExportItem> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        if (pulled >= readAheadLimit) throw new Error(`read ${pulled} items ahead of the reader`)
        return { done: false, value: numberedItem(pulled++) }
      },
      return: async () => {
        closed = true
        return { done: true, value: undefined }
      },
    }),
  }
  return { items, pulled: () => pulled, closed: () => closed }
}

/** A bookmark as an HTML parser reads it back: attribute values and texts decoded. */
export interface ReadBookmark {
  folder: string | null
  href: string
  addDate: string
  lastModified: string
  tags: string
  toRead: string
  title: string
  description: string | null
}

/**
 * Reads a Netscape bookmark file with htmlparser2 (the way an importer does): every bookmark with the folder
 * it is in, and the folder blocks in order. A `<DD>` runs until the next tag; the line break and indentation
 * that end it are layout, so they are cut (a line break inside a description is written as `&#10;`).
 */
export function readBookmarks(html: string): { folders: string[]; bookmarks: ReadBookmark[] } {
  const folders: string[] = []
  const bookmarks: ReadBookmark[] = []
  const stack: (string | null)[] = []
  let heading: string | null = null
  let pendingFolder: string | null = null
  let link: ReadBookmark | null = null
  let description: { bookmark: ReadBookmark; text: string } | null = null

  const endDescription = () => {
    if (description !== null) description.bookmark.description = description.text.replace(/\n *$/, '')
    description = null
  }
  const parser = new Parser({
    onopentag(name, attributes) {
      endDescription()
      if (name === 'h3') heading = ''
      if (name === 'dl') {
        stack.push(pendingFolder)
        pendingFolder = null
      }
      if (name === 'a') {
        link = {
          folder: stack.at(-1) ?? null,
          href: attributes.href!,
          addDate: attributes.add_date!,
          lastModified: attributes.last_modified!,
          tags: attributes.tags!,
          toRead: attributes.toread!,
          title: '',
          description: null,
        }
        bookmarks.push(link)
      }
      if (name === 'dd') description = { bookmark: bookmarks.at(-1)!, text: '' }
    },
    ontext(text) {
      if (heading !== null) heading += text
      if (link !== null) link.title += text
      if (description !== null) description.text += text
    },
    onclosetag(name) {
      endDescription()
      if (name === 'h3' && heading !== null) {
        folders.push(heading)
        pendingFolder = heading
        heading = null
      }
      if (name === 'a') link = null
      if (name === 'dl') stack.pop()
    },
  })
  parser.write(html)
  parser.end()
  return { folders, bookmarks }
}
