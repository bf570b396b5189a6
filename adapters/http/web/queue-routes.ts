import { Elysia } from 'elysia'
import { isAppError } from '../../../core/errors.ts'
import { prepareCapture } from '../../../core/items/capture.ts'
import { MAX_PAGE_SIZE } from '../../../core/items/list-order.ts'
import { listFolders } from '../../storage/folders.ts'
import { changeSavedItem, listSavedItems, upsertCapture } from '../../storage/saved-items.ts'
import { itemsWithContent } from '../../storage/reading.ts'
import { signInPath } from './forms.ts'
import { landingPage } from './pages/landing.ts'
import { queuePage, type QueueView } from './pages/queue.ts'
import { searchFor } from './search.ts'
import { type WebSession } from './session.ts'
import { formRoute, hidden, type Visit, type WebKit } from './kit.ts'

/** The queue: the start page, capture and the item actions (docs/web.md#pages). */
export function queueRoutes(kit: WebKit) {
  const { deps, db, signupOpen, now, newId, page, redirect, message, run, posted, signedIn, paramOf } = kit
  // ── Queue ───────────────────────────────────────────────────────────────────────────────────────

  async function queue(
    visit: Visit & { session: WebSession },
    status: number,
    extra: Partial<QueueView> = {},
  ): Promise<Response> {
    const userId = visit.session.userId
    // A search replaces the list, so the queue itself is not read for it.
    const search = await searchFor(deps, visit.session, visit.url.searchParams)
    if (search) {
      const view = {
        csrf: visit.csrf,
        items: [],
        folders: [],
        folder: '',
        readable: new Set<string>(),
        truncated: false,
      }
      const body = queuePage({ ...view, ...extra, search })
      return page(visit, search.error ? 400 : status, 'Search', body)
    }
    const folders = await listFolders(db, userId)
    const wanted = visit.url.searchParams.get('folder') ?? ''
    // An unknown folder id shows everything rather than an empty list that looks like data loss.
    const folder = wanted === 'none' || folders.some((f) => f.id === wanted) ? wanted : ''
    const { items, nextCursorValues } = await listSavedItems(db, userId, {
      sort: 'newest',
      folder: folder || null,
      limit: MAX_PAGE_SIZE,
      after: null,
    })
    // One query for the page, not one per item.
    const readable = await itemsWithContent(
      db,
      items.map((item) => item.id),
    )
    return page(
      visit,
      status,
      'Your queue',
      queuePage({ csrf: visit.csrf, items, folders, folder, readable, truncated: nextCursorValues !== null, ...extra }),
    )
  }

  const home = async (visit: Visit): Promise<Response> => {
    if (visit.session)
      return queue(visit as Visit & { session: WebSession }, 200, {
        notice: visit.url.searchParams.get('done') === 'saved' ? 'Saved.' : null,
      })
    // A search link (a bookmark, another tab signed out) is a signed-in page: sign in and come back to it.
    if ((visit.url.searchParams.get('q') ?? '').trim() !== '')
      return redirect(visit, signInPath(visit.url.pathname + visit.url.search))
    return page(visit, 200, 'Readlater', landingPage({ signupOpen }))
  }

  const capture = (visit: Visit, form: URLSearchParams) =>
    signedIn(async (visit) => {
      const url = (form.get('url') ?? '').trim()
      let prepared
      try {
        prepared = prepareCapture(
          { url, captureChannel: 'web-companion' },
          { id: newId(), userId: visit.session.userId, now: deps.clock.now(), connectClient: null },
        )
      } catch (error) {
        if (isAppError(error) && error._tag === 'InvalidUrlError')
          return queue(visit, 400, {
            capture: { url, error: 'Enter a full web address starting with http:// or https://.' },
          })
        throw error
      }
      await upsertCapture(db, prepared)
      return redirect(visit, '/?done=saved')
    })(visit)

  const setReadState = (visit: Visit, form: URLSearchParams, id: string) =>
    signedIn(async (visit) => {
      const isRead = form.get('isRead')
      if (isRead !== 'true' && isRead !== 'false')
        return message(visit, 400, 'Request refused', 'isRead must be true or false.', { href: '/', label: 'Back' })
      try {
        await changeSavedItem(db, visit.session.userId, id, { kind: 'read-state', isRead: isRead === 'true' }, now())
      } catch (error) {
        if (isAppError(error) && error._tag === 'SavedItemNotFoundError')
          return message(visit, 404, 'No such item', 'That item is not in your queue.', {
            href: '/',
            label: 'Back to the queue',
          })
        throw error
      }
      // The reader view's button comes back to the item; the queue's to the queue as it was filtered.
      if (form.get('return') === 'reader') return redirect(visit, `/items/${encodeURIComponent(id)}`)
      const folder = form.get('folder') ?? ''
      return redirect(visit, folder ? `/?folder=${encodeURIComponent(folder)}` : '/')
    })(visit)

  return new Elysia()
    .get('/', run(home), hidden)
    .post('/queue/capture', posted(capture), formRoute)
    .post(
      '/queue/items/:id/read-state',
      posted((visit, form) => setReadState(visit, form, paramOf(visit, 3))),
      formRoute,
    )
}
