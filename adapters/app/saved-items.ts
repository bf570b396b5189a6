import { FolderNotFoundError, SavedItemNotFoundError } from '../../core/errors.ts'
import { normalizeUrl } from '../../core/url/normalize-url.ts'
import { uuidv7 } from '../../core/ids.ts'
import { prepareCapture, type CaptureInput } from '../../core/items/capture.ts'
import { capPage } from '../../core/reading/page-limits.ts'
import { decodeCursor, encodeCursor } from '../../core/items/list-order.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal, SavedItem, Sort } from '../../core/types.ts'
import type { AppDeps } from './deps.ts'
import { PageCache } from './page-cache.ts'
import { andThen, type MaybePromise } from '../../core/at-once.ts'
import { itemsVersionOf } from '../storage/users.ts'
import { toSavedItemDto, type SavedItemDto } from '../../core/items/saved-item-dto.ts'
import { deleteItemKeepingUndo, restoreDeletedItem, type RestoreOutcome } from '../storage/deleted-items.ts'
import {
  changeSavedItem,
  deleteSavedItem,
  findSavedItem,
  findSavedItemByUrl,
  folderExists,
  listSavedItemsJson,
  upsertCapture,
  type ItemChange,
} from '../storage/saved-items.ts'

/**
 * The saved-item operations, shared by the REST routes and the MCP tools so both answer with the same
 * rules and the same DTOs. Inputs arrive validated in shape; value rules (URL, cursor, folder) are here.
 */

export async function captureUrl(
  deps: AppDeps,
  principal: Principal,
  input: CaptureInput,
): Promise<{ created: boolean; savedItem: SavedItemDto }> {
  const now = deps.clock.now()
  const prepared = prepareCapture(input, {
    id: uuidv7(now.getTime(), deps.random),
    userId: principal.userId,
    now,
    connectClient: principal.connectClient,
  })
  if (prepared.row.folderId !== null && !(await folderExists(deps.db, principal.userId, prepared.row.folderId))) {
    throw new FolderNotFoundError(prepared.row.folderId)
  }
  const page = input.html === undefined ? null : capPage(input.html)
  const { created, item } = await upsertCapture(deps.db, prepared, page)
  return { created, savedItem: toSavedItemDto(item) }
}

export interface ListInput {
  sort: Sort
  /** A folder id, `none`, or null for every item. */
  folder: string | null
  /** Page size, or null for every item. */
  limit: number | null
  cursor: string | null
}

/**
 * A page as the list answers it and its cache holds it: the JSON SQLite wrote for it (`listSavedItemsJson`),
 * which REST sends as it is and MCP answers with, and for MCP each item's line of its text.
 */
export interface ListedPage {
  /**
   * The REST body `{"savedItems":[…]}`: UTF-8 bytes when the page is kept (each hit sends them as they
   * are), text for a page read for one answer (`LIST_CACHE_MB=0`; encoding it here would only copy it once
   * more before the server does).
   */
  json: Uint8Array | string
  /** Read `withLines` (MCP's list): each item's line of its text as a JSON string, joined by line breaks. */
  lines: string | null
  /** How many items the page holds. */
  count: number
  nextCursor: string | null
}

/** The JSON text of a listed page's body. */
export function pageText(listed: ListedPage): string {
  return typeof listed.json === 'string' ? listed.json : decoder.decode(listed.json)
}

const listCaches = new WeakMap<object, PageCache<ListedPage>>()
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * A page of the person's list, from this process's page cache while their item version is unchanged
 * (docs/benchmarks.md#list-page-cache). The version is read before the rows: a write landing in between
 * makes the page newer than its version, which only costs the next request a miss. A speed twin of reading
 * the rows every time, as `LIST_CACHE_MB=0` does (docs/benchmarks.md#speed-twins).
 */
export function listPage(
  deps: AppDeps,
  principal: Principal,
  input: ListInput,
  withLines = false,
): MaybePromise<ListedPage> {
  // At once on an embedded file (core/at-once.ts); a value error (cursor, folder) is thrown as it is found.
  if (deps.config.listCacheBytes === 0) return readPage(deps, principal, input, withLines)
  const pages = listCacheOf(deps)
  // MCP's pages (with their lines) are kept apart from REST's.
  const key = `${withLines ? 'l' : 'j'} ${principal.userId} ${input.sort} ${input.folder ?? ''} ${input.limit ?? ''} ${input.cursor ?? ''}`
  return andThen(itemsVersionOf(deps.db, principal.userId), (version) => {
    const cached = pages.get(key, version)
    if (cached) return cached
    return andThen(readPage(deps, principal, input, withLines), (listed) => {
      listed.json = encoder.encode(listed.json as string)
      pages.set(key, version, listed, listed.json.byteLength)
      return listed
    })
  })
}

/** This process's page cache of the database's lists, made on first use. */
function listCacheOf(deps: AppDeps): PageCache<ListedPage> {
  let cache = listCaches.get(deps.db)
  if (!cache) listCaches.set(deps.db, (cache = new PageCache(deps.config.listCacheBytes)))
  return cache
}

function readPage(deps: AppDeps, principal: Principal, input: ListInput, withLines: boolean): MaybePromise<ListedPage> {
  const after = input.cursor !== null ? decodeCursor(input.cursor, input.sort) : null
  const folder = input.folder
  const exists = folder !== null && folder !== 'none' ? folderExists(deps.db, principal.userId, folder) : true
  return andThen(exists, (found) => {
    if (!found) throw new FolderNotFoundError(folder!)
    const query = { sort: input.sort, folder, limit: input.limit, after }
    return andThen(
      listSavedItemsJson(deps.db, principal.userId, query, withLines),
      (page): ListedPage => ({
        json: `{"savedItems":[${page.items}]}`,
        lines: page.lines,
        count: page.count,
        nextCursor: page.nextCursorValues ? encodeCursor(input.sort, page.nextCursorValues) : null,
      }),
    )
  })
}

export async function changeItem(
  deps: AppDeps,
  principal: Principal,
  id: string,
  change: ItemChange,
): Promise<SavedItemDto> {
  return toSavedItemDto(await changeSavedItem(deps.db, principal.userId, id, change, toTimestamp(deps.clock.now())))
}

/**
 * "Is this page saved?" (docs/api.md#lookup): the caller's item whose normalizedUrl is the URL's
 * normalization. InvalidUrlError for what a capture would refuse; SavedItemNotFoundError, carrying the
 * normalized URL where an id would be, when there is none.
 */
export async function lookupItem(deps: AppDeps, principal: Principal, url: string): Promise<SavedItemDto> {
  const { normalizedUrl } = normalizeUrl(url)
  const item = await findSavedItemByUrl(deps.db, principal.userId, normalizedUrl)
  if (!item) throw new SavedItemNotFoundError(normalizedUrl, `No saved item for ${normalizedUrl}`)
  return toSavedItemDto(item)
}

/** Idempotent: deleting an id that is not there (or not the caller's) changes nothing and does not fail. */
export async function deleteItem(deps: AppDeps, principal: Principal, id: string): Promise<void> {
  await deleteSavedItem(deps.db, principal.userId, id)
}

// The web pages' item operations (docs/web.md#queue): they show the item as stored, not its wire form.

/** The caller's item as stored, or null when they have none with that id. */
export function findItem(deps: AppDeps, principal: Principal, id: string): Promise<SavedItem | null> {
  return findSavedItem(deps.db, principal.userId, id)
}

/** `changeItem`, answering with the item as stored. */
export function changeStoredItem(
  deps: AppDeps,
  principal: Principal,
  id: string,
  change: ItemChange,
): Promise<SavedItem> {
  return changeSavedItem(deps.db, principal.userId, id, change, toTimestamp(deps.clock.now()))
}

/**
 * Deletes the caller's item, keeping a copy for the page's "Undo" (docs/web.md#queue); null when they have
 * no such item.
 */
export function deleteItemWithUndo(deps: AppDeps, principal: Principal, id: string): Promise<{ label: string } | null> {
  return deleteItemKeepingUndo(deps.db, principal.userId, id, deps.clock.now().getTime())
}

/** Puts an item deleted from the page back, within the undo window. */
export function undoDelete(deps: AppDeps, principal: Principal, id: string): Promise<RestoreOutcome> {
  return restoreDeletedItem(deps.db, principal.userId, id, deps.clock.now().getTime())
}
