import { ValidationError } from '../../core/errors.ts'
import { normalizeFolderName } from '../../core/folders/folder-name.ts'
import { decodeSearchCursor, encodeSearchCursor } from '../../core/search/cursor.ts'
import { parseQuery } from '../../core/search/query.ts'
import type { Principal } from '../../core/types.ts'
import { findFolderByKey } from '../storage/folders.ts'
import { searchSavedItems, type ResolvedSearch } from '../storage/search.ts'
import { catchUpSearchIndex } from '../storage/search-index.ts'
import type { AppDeps } from './deps.ts'
import { toSavedItemDto, type SavedItemDto } from '../../core/items/saved-item-dto.ts'

export interface SearchInput {
  q: string
  limit: number
  cursor: string | null
}

export interface SearchPage {
  results: { savedItem: SavedItemDto; snippet: string | null }[]
  nextCursor: string | null
}

/**
 * The person's items matching a query (docs/search.md), best first, one page at a time. The query is
 * parsed in core; a `folder:` filter names one of the person's folders (a name naming none is a 400).
 */
export async function searchItems(deps: AppDeps, principal: Principal, input: SearchInput): Promise<SearchPage> {
  const query = parseQuery(input.q)
  const offset = input.cursor === null ? 0 : decodeSearchCursor(input.cursor, input.q)
  const search: ResolvedSearch = { query }
  const folder = query.filters.find((filter) => filter.kind === 'folder')
  if (folder?.kind === 'folder') {
    let key: string
    try {
      key = normalizeFolderName(folder.name).key
    } catch {
      throw new ValidationError(`q: folder:${JSON.stringify(folder.name)} names no folder`)
    }
    const found = await findFolderByKey(deps.db, principal.userId, key)
    if (!found) throw new ValidationError(`q: folder:${JSON.stringify(folder.name)} names no folder`)
    search.folderId = found.id
  }
  // Every committed change is in the index before it is read (docs/search.md#index).
  await catchUpSearchIndex(deps.db)
  const { hits, more } = await searchSavedItems(deps.db, principal.userId, search, input.limit, offset)
  return {
    results: hits.map((hit) => ({ savedItem: toSavedItemDto(hit.item), snippet: hit.snippet })),
    nextCursor: more ? encodeSearchCursor(input.q, offset + hits.length) : null,
  }
}
