import { FolderNotFoundError, SavedItemNotFoundError, ValidationError } from '../../core/errors.ts'
import {
  chapterTitle,
  EPUB_CONTENT_TYPE,
  type EpubChapter,
  epubChunks,
  epubFileName,
  type EpubOptions,
} from '../../core/export/epub/epub.ts'
import { normalizeFolderName } from '../../core/folders/folder-name.ts'
import { rebaseArchivedImages } from '../../core/reading/archived-image-url.ts'
import { isUuid, uuidv7 } from '../../core/ids.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal, SavedItem } from '../../core/types.ts'
import { epubArticle } from '../storage/epub.ts'
import { readArchivedImage } from '../storage/item-images.ts'
import { findFolderByKey, listFolders } from '../storage/folders.ts'
import { collectGarbage } from '../reading/memory.ts'
import { findSavedItem, listSavedItems } from '../storage/saved-items.ts'
import type { AppDeps } from './deps.ts'
import type { Download } from './download.ts'

/**
 * Saved items as EPUB books for e-readers (docs/import-export.md#epub): one item's article
 * (`GET /v1/saved-items/{id}/epub`, the reader view's "Download EPUB") or a set, a folder's or every
 * folder's unread or saved items (`GET /v1/export?format=epub`, the queue's and Settings' links, the CLI).
 * What is asked for is checked before anything is sent (an unknown item or folder is its 404); then the
 * book is made as it is sent, its items read a page at a time and their articles one at a time.
 */

/** The most items a book holds: the newest saved. A book is for reading, not for keeping a library. */
export const EPUB_MAX_ITEMS = 500
/** Items read from the database at once while making a book (their articles are read one at a time). */
const EPUB_PAGE = 100
/**
 * Bytes of articles and images read between two full collections on Bun (adapters/reading/memory.ts): each
 * chapter leaves its article, its tree, its images and its deflated bytes behind, much of it outside the
 * JavaScript heap, where the collector's heuristics do not see it; without these collections a book of 500
 * large articles peaked 124 MiB over an idle server (docs/benchmarks.md#epub).
 */
const EPUB_BYTES_PER_COLLECTION = 16 * 1024 * 1024

/** Counts the bytes a book has read, and collects garbage each time another EPUB_BYTES_PER_COLLECTION were. */
function readCounter(): (bytes: number) => void {
  let since = 0
  return (bytes) => {
    since += bytes
    if (since < EPUB_BYTES_PER_COLLECTION) return
    since = 0
    collectGarbage()
  }
}

export const EPUB_STATES = ['unread', 'all'] as const
export type EpubState = (typeof EPUB_STATES)[number]

/** Which items a book holds: a folder id, `none` (items in no folder) or null (every folder); unread or all. */
export interface EpubSelection {
  folder: string | null
  state: EpubState
}

/** `state` as the export takes it: absent is `unread` (what is left to read); ValidationError otherwise. */
export function epubStateOf(value: string | null | undefined): EpubState {
  if (value === undefined || value === null || value === '') return 'unread'
  if ((EPUB_STATES as readonly string[]).includes(value)) return value as EpubState
  throw new ValidationError(`state: "${value.slice(0, 40)}" is not one of ${EPUB_STATES.join(', ')}`)
}

/** `folder` as the export takes it: absent is every folder, `none` the items in none, else a folder id. */
export function epubFolderOf(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value
}

/**
 * The id of the person's folder with this name, as the CLI names it (any case, any Unicode form: a folder
 * name's key), or null.
 */
export async function folderIdByName(deps: AppDeps, principal: Principal, name: string): Promise<string | null> {
  let key: string
  try {
    key = normalizeFolderName(name).key
  } catch {
    return null
  }
  return (await findFolderByKey(deps.db, principal.userId, key))?.id ?? null
}

/**
 * The book's options: the app's address, and the port through which it reads the person's archived images
 * (docs/import-export.md#epub-images): their item's image `n` as the archive serves it, null for another
 * person's item or a number it has no image of; each counted as it is read.
 */
function bookOptions(deps: AppDeps, principal: Principal, read: (bytes: number) => void): EpubOptions {
  return {
    appUrl: deps.config.appUrl,
    readArchivedImage: async (itemId, n) => {
      const found = await readArchivedImage(deps.db, principal.userId, itemId, n)
      const image = found === 'no item' ? null : found
      read(image?.bytes.byteLength ?? 0)
      return image
    },
  }
}

/** An item as a chapter: its archived images at the service's address now, where the book finds them. */
function chapterOf(item: SavedItem, article: EpubChapter['article'], appUrl: string): EpubChapter {
  return {
    itemId: item.id,
    url: item.originalUrl,
    title: item.title,
    siteName: item.siteName,
    description: item.description,
    article: article && { ...article, html: rebaseArchivedImages(article.html, item.id, appUrl) },
  }
}

/**
 * One item as a book: its article, or (an item without one) its title, link and "No article was
 * extracted". The book's identifier is the item's id, so a reader that keeps books by identifier sees a
 * second download as the same book. SavedItemNotFoundError when the person has no such item.
 */
export async function itemEpub(deps: AppDeps, principal: Principal, id: string): Promise<Download> {
  const item = await findSavedItem(deps.db, principal.userId, id)
  if (!item) throw new SavedItemNotFoundError(id)
  // Read now, not as the book is sent: an item deleted in between is a 404, never a broken download.
  const chapter = chapterOf(item, await epubArticle(deps.db, principal.userId, id), deps.config.appUrl)
  const now = deps.clock.now()
  const title = chapterTitle(chapter)
  // Named after the title; an item known only by its address is named after that, without the scheme.
  const { name, ascii } = epubFileName(title === item.originalUrl ? null : title, item.originalUrl)
  const one = async function* () {
    yield chapter
  }
  const chunks = epubChunks(
    {
      uuid: isUuid(item.id) ? item.id.toLowerCase() : uuidv7(now.getTime(), deps.random),
      title,
      modifiedAt: toTimestamp(now),
      kind: 'item',
      notes: [],
      emptyMessage: '',
    },
    one(),
    bookOptions(deps, principal, () => {}),
  )
  return { filename: name, asciiFilename: ascii, contentType: EPUB_CONTENT_TYPE, chunks }
}

/**
 * A set of items as one book, titled "Readlater: <folder or Unread>, <day>": the newest saved first
 * (`lastSavedAt`), at most EPUB_MAX_ITEMS (the contents page then says so), one chapter each.
 * FolderNotFoundError for a folder that is not the person's.
 */
export async function collectionEpub(deps: AppDeps, principal: Principal, selection: EpubSelection): Promise<Download> {
  const userId = principal.userId
  let folderName: string | null = null
  if (selection.folder !== null && selection.folder !== 'none') {
    const folder = (await listFolders(deps.db, userId)).find((f) => f.id === selection.folder)
    if (!folder) throw new FolderNotFoundError(selection.folder)
    folderName = folder.name
  }
  const now = deps.clock.now()
  const day = toTimestamp(now).slice(0, 10)
  const unread = selection.state === 'unread'
  const label =
    selection.folder === null
      ? unread
        ? 'Unread'
        : 'All items'
      : `${folderName ?? 'No folder'}${unread ? ' (unread)' : ''}`
  const title = `Readlater: ${label}, ${day}`
  // Filled in once the items are read, before the contents page is written (epubChunks reads it last).
  const notes: string[] = []
  const read = readCounter()
  const chunks = epubChunks(
    {
      uuid: uuidv7(now.getTime(), deps.random),
      title,
      modifiedAt: toTimestamp(now),
      kind: 'collection',
      notes,
      emptyMessage: unread ? 'There are no unread items here.' : 'There are no saved items here.',
    },
    chaptersOf(deps, userId, selection, read, () =>
      notes.push(`This book holds the ${EPUB_MAX_ITEMS} most recently saved of these items; older ones are not in it.`),
    ),
    bookOptions(deps, principal, read),
  )
  const { name, ascii } = epubFileName(title, '')
  return { filename: name, asciiFilename: ascii, contentType: EPUB_CONTENT_TYPE, chunks }
}

/**
 * The selection's items as chapters, newest saved first, a page at a time, each article counted by `read`;
 * `capped` when more were left out.
 */
async function* chaptersOf(
  deps: AppDeps,
  userId: string,
  selection: EpubSelection,
  read: (bytes: number) => void,
  capped: () => void,
): AsyncGenerator<EpubChapter> {
  let after = null
  let taken = 0
  for (;;) {
    const { items, nextCursorValues } = await listSavedItems(deps.db, userId, {
      sort: 'newest',
      folder: selection.folder,
      state: selection.state,
      limit: Math.min(EPUB_PAGE, EPUB_MAX_ITEMS - taken),
      after,
    })
    for (const item of items) {
      // One article at a time, as the book takes it; an item deleted meanwhile is a chapter without one.
      const article = await epubArticle(deps.db, userId, item.id)
      read(article?.html.length ?? 0)
      yield chapterOf(item, article, deps.config.appUrl)
      taken++
    }
    if (!nextCursorValues) return
    if (taken >= EPUB_MAX_ITEMS) {
      capped()
      return
    }
    after = nextCursorValues
  }
}
