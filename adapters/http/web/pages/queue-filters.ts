import { SORTS, type Sort } from '../../../../core/types.ts'
import type { ReadStateFilter } from '../../../storage/saved-items.ts'

/** What the queue shows (docs/web.md#queue): read state, order and folder ('' all, 'none', or an id). */
export interface QueueFilters {
  state: ReadStateFilter
  sort: Sort
  folder: string
}

export const READ_STATES = ['unread', 'all', 'read'] as const satisfies readonly ReadStateFilter[]
export const STATE_LABELS: Record<ReadStateFilter, string> = { unread: 'Unread', all: 'All', read: 'Read' }
export const SORT_LABELS: Record<Sort, string> = {
  newest: 'Newest',
  oldest: 'Oldest',
  title: 'Title',
  unread: 'Unread first',
}

/** The queue opens on the unread items, newest first, in every folder. */
export const DEFAULT_FILTERS: QueueFilters = { state: 'unread', sort: 'newest', folder: '' }

/**
 * The filters a queue URL asks for; an unknown value is the default (a stale link shows the queue, never an
 * error page). The folder is checked against the person's folders by the caller.
 */
export function filtersOf(params: URLSearchParams): QueueFilters {
  const state = params.get('state')
  const sort = params.get('sort')
  return {
    state: (READ_STATES as readonly string[]).includes(state ?? '')
      ? (state as ReadStateFilter)
      : DEFAULT_FILTERS.state,
    sort: (SORTS as readonly string[]).includes(sort ?? '') ? (sort as Sort) : DEFAULT_FILTERS.sort,
    folder: params.get('folder') ?? '',
  }
}

/** The queue's URL for these filters (defaults left out), and a page's cursor. */
export function queueHref(filters: QueueFilters, cursor?: string | null): string {
  const params = new URLSearchParams()
  if (filters.state !== DEFAULT_FILTERS.state) params.set('state', filters.state)
  if (filters.sort !== DEFAULT_FILTERS.sort) params.set('sort', filters.sort)
  if (filters.folder !== '') params.set('folder', filters.folder)
  if (cursor) params.set('cursor', cursor)
  const query = params.toString()
  return query === '' ? '/' : `/?${query}`
}

/** Where an action goes back to: the queue URL it was sent from, if it is one; else the queue. */
export function queueReturn(value: string | null | undefined): string {
  if (!value || !(value === '/' || value.startsWith('/?'))) return '/'
  return queueHref(filtersOf(new URLSearchParams(value.slice(2))))
}
