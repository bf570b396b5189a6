import {
  HighlightAnchorError,
  HighlightNotFoundError,
  SavedItemNotFoundError,
  ValidationError,
} from '../../core/errors.ts'
import { anchorQuote } from '../../core/highlights/anchor.ts'
import {
  checkHighlightInput,
  checkHighlightPatch,
  MAX_HIGHLIGHTS_PER_ITEM,
  toHighlightDto,
  type HighlightDto,
  type HighlightInput,
  type HighlightPatch,
} from '../../core/highlights/highlight.ts'
import { decodeHighlightCursor, encodeHighlightCursor } from '../../core/highlights/list-cursor.ts'
import { uuidv7 } from '../../core/ids.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal } from '../../core/types.ts'
import type { AppDeps } from './deps.ts'
import { PageCache } from './page-cache.ts'
import { highlightListVersionOf } from '../storage/users.ts'
import {
  changeHighlight,
  highlightsPage,
  insertHighlight,
  itemHighlights,
  itemHighlightsVersion as storedHighlightsVersion,
  removeHighlight,
  type ListedHighlight,
} from '../storage/highlights.ts'

/**
 * The highlight use cases (docs/highlights.md), shared by every surface that reads or writes highlights
 * (REST now; MCP tools and web pages call the same functions) so each answers with the same rules and
 * DTOs. Inputs arrive validated in shape (the REST schema); the value rules (lengths, well-formed text,
 * the note, the per-item limit, the anchor) are checked here and in core/highlights, for every caller.
 * Every function acts for `principal` alone: another person's item or highlight is answered exactly like a
 * missing one. Errors thrown are the typed errors of core/errors.ts (docs/highlights.md#errors).
 *
 * Re-anchoring after an article is extracted again needs no call from here: it is part of the article's
 * own write (`storeArticle` in adapters/storage/reading.ts), whatever path extracts it.
 */

export type { HighlightDto, HighlightInput, HighlightPatch } from '../../core/highlights/highlight.ts'

/** A highlight in the list of all of a person's highlights: the DTO and the item it is on. */
export type ListedHighlightDto = HighlightDto & {
  savedItem: { id: string; title: string | null; normalizedUrl: string }
}

export interface HighlightListInput {
  /** Page size 1–500 (checked by the caller, as `parseLimit` does), or null for every highlight. */
  limit: number | null
  /** The previous page's `nextCursor`, or null for the first page. */
  cursor: string | null
}

export interface HighlightPage {
  highlights: ListedHighlightDto[]
  /** The cursor of the next page, or null on the last one (always null without a limit). */
  nextCursor: string | null
}

/**
 * Highlights a passage of the caller's item's article (docs/highlights.md#anchoring): found at
 * `input.position` when the text there is `quote.exact`, else by the quote; stored with the `prefix` and
 * `suffix` read from the text around it. Throws ValidationError (a value rule, or the item already has
 * MAX_HIGHLIGHTS_PER_ITEM), SavedItemNotFoundError, ContentNotFoundError (no article), HighlightAnchorError
 * (the text does not contain the quote); nothing is written then.
 */
export async function createHighlight(
  deps: AppDeps,
  principal: Principal,
  savedItemId: string,
  input: HighlightInput,
): Promise<HighlightDto> {
  const checked = checkHighlightInput(input)
  const now = deps.clock.now()
  const id = uuidv7(now.getTime(), deps.random)
  const at = toTimestamp(now)
  const stored = await insertHighlight(deps.db, principal.userId, savedItemId, (article) => {
    if (article.highlights >= MAX_HIGHLIGHTS_PER_ITEM)
      throw new ValidationError(
        `savedItemId: an item has at most ${MAX_HIGHLIGHTS_PER_ITEM.toLocaleString('en-US')} highlights`,
      )
    const anchored = anchorQuote(article.text, checked.quote, checked.position)
    if (anchored === null) throw new HighlightAnchorError(savedItemId)
    return {
      id,
      userId: principal.userId,
      savedItemId,
      quote: anchored.quote,
      position: anchored.position,
      color: checked.color,
      note: checked.note,
      createdAt: at,
      updatedAt: at,
    }
  })
  return toHighlightDto(stored)
}

/**
 * The caller's item's highlights in text order: by `position.start`, then `end`, then creation; those with
 * `position: null` last, by creation. SavedItemNotFoundError when the caller has no such item (an item
 * without an article still lists its highlights).
 */
export async function listItemHighlights(
  deps: AppDeps,
  principal: Principal,
  savedItemId: string,
): Promise<HighlightDto[]> {
  const found = await itemHighlights(deps.db, principal.userId, savedItemId)
  if (found === null) throw new SavedItemNotFoundError(savedItemId)
  return found.map(toHighlightDto)
}

/**
 * Whether the caller's item has highlights, and a version of them that changes whenever any of them does
 * (its colour, note or position, one added or deleted, by any process): the reader view keeps its marked
 * article while the version is the same (docs/highlights.md#web). One short read, whatever the number of
 * highlights; an item that is not the caller's has none.
 */
export function itemHighlightsVersion(
  deps: AppDeps,
  principal: Principal,
  savedItemId: string,
): Promise<{ any: boolean; version: string }> {
  return storedHighlightsVersion(deps.db, principal.userId, savedItemId)
}

/** A page of the list as the cache holds it: the DTOs, their JSON, and whether the JSON passed the schema. */
export interface ListedHighlightPage {
  page: HighlightPage
  /** `{"highlights":[…]}`, sent as it is. */
  json: Uint8Array
  /** Set once the response schema has been checked on it (adapters/http/page-check.ts). */
  verified: boolean
}

const encoder = new TextEncoder()
const highlightListCaches = new WeakMap<object, PageCache<ListedHighlightPage>>()

/**
 * A page of all of the caller's highlights, newest first (`createdAt`, then `id`, descending), each with its
 * item's id, title and normalized URL, with its JSON. One query per page, kept per process like the item
 * list's pages (docs/highlights.md#endpoints): valid while the person's highlights and items are unchanged,
 * which a version in the database tells whichever process changed them. ValidationError for a cursor this
 * API did not issue.
 */
export async function listHighlightsPage(
  deps: AppDeps,
  principal: Principal,
  input: HighlightListInput,
): Promise<ListedHighlightPage> {
  const after = input.cursor === null ? null : decodeHighlightCursor(input.cursor)
  if (deps.config.listCacheBytes === 0)
    return encodeHighlightPage(await readHighlightPage(deps, principal, after, input))
  let cache = highlightListCaches.get(deps.db)
  if (!cache) highlightListCaches.set(deps.db, (cache = new PageCache(deps.config.listCacheBytes)))
  const key = `${principal.userId} ${input.limit ?? ''} ${input.cursor ?? ''}`
  const version = await highlightListVersionOf(deps.db, principal.userId)
  const cached = cache.get(key, version)
  if (cached) return cached
  const listed = encodeHighlightPage(await readHighlightPage(deps, principal, after, input))
  cache.set(key, version, listed, listed.json.byteLength)
  return listed
}

/** `listHighlightsPage` without the JSON: the DTOs, for the MCP tool and the web page. */
export async function listHighlights(
  deps: AppDeps,
  principal: Principal,
  input: HighlightListInput,
): Promise<HighlightPage> {
  return (await listHighlightsPage(deps, principal, input)).page
}

async function readHighlightPage(
  deps: AppDeps,
  principal: Principal,
  after: ReturnType<typeof decodeHighlightCursor> | null,
  input: HighlightListInput,
): Promise<HighlightPage> {
  const page = await highlightsPage(deps.db, principal.userId, { limit: input.limit, after })
  const last = page.highlights.at(-1)
  return {
    highlights: page.highlights.map(toListedDto),
    nextCursor: page.hasMore && last ? encodeHighlightCursor(last.createdAt, last.id) : null,
  }
}

function encodeHighlightPage(page: HighlightPage): ListedHighlightPage {
  return { page, json: encoder.encode(JSON.stringify({ highlights: page.highlights })), verified: false }
}

function toListedDto(highlight: ListedHighlight): ListedHighlightDto {
  return { ...toHighlightDto(highlight), savedItem: highlight.savedItem }
}

/**
 * Changes a highlight's colour and/or note (`note: null`, or a blank note, clears it) and answers it as
 * stored. A patch that changes nothing writes nothing: `updatedAt` stays (docs/api.md#no-op-writes).
 * ValidationError when the patch names neither; HighlightNotFoundError when the caller has no such highlight.
 */
export async function updateHighlight(
  deps: AppDeps,
  principal: Principal,
  id: string,
  patch: HighlightPatch,
): Promise<HighlightDto> {
  const change = checkHighlightPatch(patch)
  const stored = await changeHighlight(deps.db, principal.userId, id, change, toTimestamp(deps.clock.now()))
  if (stored === null) throw new HighlightNotFoundError(id)
  return toHighlightDto(stored)
}

/** Deletes one of the caller's highlights. HighlightNotFoundError when they have no such highlight. */
export async function deleteHighlight(deps: AppDeps, principal: Principal, id: string): Promise<void> {
  if (!(await removeHighlight(deps.db, principal.userId, id))) throw new HighlightNotFoundError(id)
}
