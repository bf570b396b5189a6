import { Elysia } from 'elysia'
import { isAppError } from '../../../core/errors.ts'
import { folderCreate, folderDelete, folderList, folderRename } from '../../app/folders.ts'
import { folderOverview, readQueue } from '../../app/queue-view.ts'
import { articleWordCountsOf } from '../../app/reading.ts'
import { changeStoredItem, deleteItemWithUndo, findItem, undoDelete } from '../../app/saved-items.ts'
import { signInPath } from './forms.ts'
import { formRoute, hidden, idParam, type SignedInVisit, type Visit, type WebKit, type WithId } from './kit.ts'
import { landingPage } from './pages/landing.ts'
import { foldersPage, type FoldersView } from './pages/folders.ts'
import { movePage, queuePage, type QueueView } from './pages/queue.ts'
import { filtersOf, queueReturn } from './pages/queue-filters.ts'
import { QUEUE_SCRIPT_ASSET, QUEUE_SCRIPT_PATH } from './queue-script.ts'
import { sessionPrincipal } from './reader.ts'
import { searchFor } from './search.ts'

/** Cards on one page of the queue. */
export const QUEUE_PAGE_SIZE = 50

const NOTICES: Record<string, string> = {
  saved: 'Saved.',
  restored: 'Restored.',
  'undo-expired': 'That delete can no longer be undone.',
  'saved-again': 'That link was saved again since it was deleted; the new one stays.',
  moved: 'Moved.',
}

/** `href` with one more query parameter. */
const withParam = (href: string, key: string, value: string): string =>
  `${href}${href.includes('?') ? '&' : '?'}${key}=${encodeURIComponent(value)}`

/** The queue: the start page, capture, the item and folder actions (docs/web.md#queue). */
export function queueRoutes(kit: WebKit) {
  const { deps, signupOpen, page, redirect, message, run, posted, signedIn, captureFromPage } = kit

  const queueScript = { script: QUEUE_SCRIPT_ASSET.src }

  async function queue(visit: SignedInVisit, status: number, extra: Partial<QueueView> = {}): Promise<Response> {
    const userId = visit.session.userId
    const params = visit.url.searchParams
    const filters = filtersOf(params)
    // A search replaces the list, so the queue itself is not read for it.
    const search = await searchFor(deps, visit.session, params)
    if (search) {
      const empty = { cards: [], folders: [], counts: { all: 0, byFolder: new Map() }, nextCursor: null }
      const body = queuePage({ csrf: visit.csrf, filters, ...empty, ...extra, search })
      return page(visit, search.error ? 400 : status, 'Search', body, queueScript)
    }
    const view = await readQueue(deps, userId, {
      ...filters,
      cursor: params.get('cursor'),
      deleted: params.get('deleted'),
      limit: QUEUE_PAGE_SIZE,
    })
    filters.folder = view.folder
    const done = params.get('done')
    return page(
      visit,
      status,
      'Your queue',
      queuePage({
        csrf: visit.csrf,
        filters,
        folders: view.folders,
        counts: view.counts,
        cards: view.cards,
        nextCursor: view.nextCursor,
        undo: view.undo,
        notice: done ? (NOTICES[done] ?? null) : null,
        ...extra,
      }),
      queueScript,
    )
  }

  const home = async (visit: Visit): Promise<Response> => {
    if (visit.session) return queue(visit as SignedInVisit, 200)
    // A search link (a bookmark, another tab signed out) is a signed-in page: sign in and come back to it.
    if ((visit.url.searchParams.get('q') ?? '').trim() !== '')
      return redirect(visit, signInPath(visit.url.pathname + visit.url.search))
    return page(visit, 200, 'Readlater', landingPage({ signupOpen }))
  }

  const capture = (visit: Visit, form: URLSearchParams) =>
    signedIn(async (visit) => {
      const url = (form.get('url') ?? '').trim()
      if (await captureFromPage(visit.session, url)) return redirect(visit, '/?done=saved')
      return queue(visit, 400, {
        capture: { url, error: 'Enter a full web address starting with http:// or https://.' },
      })
    })(visit)

  const noSuchItem = (visit: Visit) =>
    message(visit, 404, 'No such item', 'That item is not in your queue.', { href: '/', label: 'Back to the queue' })

  /** Runs an item action; an item that is not the person's answers 404 and nothing changes. */
  const onItem = async (visit: Visit, action: () => Promise<Response>): Promise<Response> => {
    try {
      return await action()
    } catch (error) {
      if (isAppError(error) && error._tag === 'SavedItemNotFoundError') return noSuchItem(visit)
      throw error
    }
  }

  const setReadState = (visit: Visit, form: URLSearchParams, id: string) =>
    signedIn(async (visit) => {
      const isRead = form.get('isRead')
      if (isRead !== 'true' && isRead !== 'false')
        return message(visit, 400, 'Request refused', 'isRead must be true or false.', { href: '/', label: 'Back' })
      return onItem(visit, async () => {
        await changeStoredItem(deps, sessionPrincipal(visit.session), id, {
          kind: 'read-state',
          isRead: isRead === 'true',
        })
        // The reader view's button comes back to the item; the queue's to the queue as it was filtered.
        if (form.get('return') === 'reader') return redirect(visit, `/items/${encodeURIComponent(id)}`)
        return redirect(visit, queueReturn(form.get('return')))
      })
    })(visit)

  // Opening records the visit as POST /v1/saved-items/{id}/open does, then goes to the reader view when
  // the item has an article, else to the original (docs/web.md#queue). Only a navigation records it: an
  // image or a fetch of this address (a hostile article naming it, say) is redirected and changes nothing.
  const open = (visit: Visit, id: string) =>
    signedIn(async (visit) =>
      onItem(visit, async () => {
        const mode = visit.request.headers.get('sec-fetch-mode')
        const principal = sessionPrincipal(visit.session)
        const item =
          mode === null || mode === 'navigate'
            ? await changeStoredItem(deps, principal, id, { kind: 'open' })
            : await findItem(deps, principal, id)
        if (!item) return noSuchItem(visit)
        const words = await articleWordCountsOf(deps, [id])
        if (words.has(id)) return redirect(visit, `/items/${encodeURIComponent(id)}`)
        // Stored URLs passed capture's http(s) check; this keeps a redirect from ever being another scheme,
        // and sends it serialized (quotes and angle brackets percent-encoded).
        const original = URL.canParse(item.originalUrl) ? new URL(item.originalUrl) : null
        return original && /^https?:$/.test(original.protocol) ? redirect(visit, original.href) : redirect(visit, '/')
      }),
    )(visit)

  const showMove = (visit: Visit, id: string) =>
    signedIn(async (visit) => {
      const principal = sessionPrincipal(visit.session)
      const [item, folders] = await Promise.all([findItem(deps, principal, id), folderList(deps, principal)])
      if (!item) return noSuchItem(visit)
      const back = queueReturn(visit.url.searchParams.get('return'))
      return page(visit, 200, 'Move to folder', movePage({ csrf: visit.csrf, item, folders, back }), queueScript)
    })(visit)

  const move = (visit: Visit, form: URLSearchParams, id: string) =>
    signedIn(async (visit) => {
      const folderId = form.get('folderId') || null
      try {
        await changeStoredItem(deps, sessionPrincipal(visit.session), id, { kind: 'folder', folderId })
      } catch (error) {
        if (isAppError(error) && error._tag === 'SavedItemNotFoundError') return noSuchItem(visit)
        if (isAppError(error) && error._tag === 'FolderNotFoundError')
          return message(visit, 404, 'No such folder', 'That folder is not one of yours.', {
            href: '/',
            label: 'Back to the queue',
          })
        throw error
      }
      return redirect(visit, withParam(queueReturn(form.get('return')), 'done', 'moved'))
    })(visit)

  const remove = (visit: Visit, form: URLSearchParams, id: string) =>
    signedIn(async (visit) => {
      const deleted = await deleteItemWithUndo(deps, sessionPrincipal(visit.session), id)
      if (!deleted) return noSuchItem(visit)
      return redirect(visit, withParam(queueReturn(form.get('return')), 'deleted', id))
    })(visit)

  const restore = (visit: Visit, form: URLSearchParams, id: string) =>
    signedIn(async (visit) => {
      const outcome = await undoDelete(deps, sessionPrincipal(visit.session), id)
      const done = outcome === 'restored' ? 'restored' : outcome === 'expired' ? 'undo-expired' : 'saved-again'
      return redirect(visit, withParam(queueReturn(form.get('return')), 'done', done))
    })(visit)

  const FOLDER_NOTICES: Record<string, string> = {
    'folder-created': 'Folder created.',
    'folder-renamed': 'Folder renamed.',
    'folder-deleted': 'Folder deleted. Its items are kept, in no folder.',
  }

  async function folders(visit: SignedInVisit, status: number, extra: Partial<FoldersView> = {}): Promise<Response> {
    const { folders: list, counts } = await folderOverview(deps, visit.session.userId)
    const done = visit.url.searchParams.get('done') ?? ''
    const view = { csrf: visit.csrf, folders: list, counts, notice: FOLDER_NOTICES[done] ?? null, ...extra }
    return page(visit, status, 'Manage folders', foldersPage(view), queueScript)
  }

  const showFolders = signedIn((visit) => folders(visit, 200))

  /** A folder action: a refused name (empty, too long, taken) comes back on the page, beside its form. */
  const onFolder = async (
    visit: SignedInVisit,
    done: string,
    form: { id: string; name: string },
    action: () => Promise<unknown>,
  ) => {
    try {
      await action()
    } catch (error) {
      if (!isAppError(error)) throw error
      if (error._tag === 'FolderNotFoundError')
        return message(visit, 404, 'No such folder', 'That folder is not one of yours.', {
          href: '/queue/folders',
          label: 'Back to your folders',
        })
      if (error._tag !== 'InvalidFolderNameError' && error._tag !== 'FolderNameConflictError') throw error
      const text =
        error._tag === 'FolderNameConflictError' ? 'You already have a folder with that name.' : error.message
      return folders(visit, error._tag === 'InvalidFolderNameError' ? 400 : 409, {
        error: { form: form.id, message: text, name: form.name },
      })
    }
    return redirect(visit, `/queue/folders?done=${done}`)
  }

  const createFolder = (visit: Visit, form: URLSearchParams) =>
    signedIn((visit) => {
      const name = form.get('name') ?? ''
      return onFolder(visit, 'folder-created', { id: 'new', name }, () =>
        folderCreate(deps, sessionPrincipal(visit.session), name),
      )
    })(visit)

  const renameFolder = (visit: Visit, form: URLSearchParams, id: string) =>
    signedIn((visit) => {
      const name = form.get('name') ?? ''
      return onFolder(visit, 'folder-renamed', { id, name }, () =>
        folderRename(deps, sessionPrincipal(visit.session), id, name),
      )
    })(visit)

  const deleteFolder = (visit: Visit, id: string) =>
    signedIn((visit) =>
      onFolder(visit, 'folder-deleted', { id, name: '' }, () =>
        folderDelete(deps, sessionPrincipal(visit.session), id),
      ),
    )(visit)

  const item = (handler: (visit: Visit, form: URLSearchParams, id: string) => Promise<Response>) =>
    posted((visit, form, { params }: WithId) => handler(visit, form, params.id))

  return new Elysia()
    .get('/', run(home), hidden)
    .post('/queue/capture', posted(capture), formRoute)
    .post('/queue/items/:id/read-state', item(setReadState), { ...formRoute, ...idParam })
    .get(
      '/queue/items/:id/move',
      run((visit, { params }: WithId) => showMove(visit, params.id)),
      { ...hidden, ...idParam },
    )
    .post('/queue/items/:id/folder', item(move), { ...formRoute, ...idParam })
    .post('/queue/items/:id/delete', item(remove), { ...formRoute, ...idParam })
    .post('/queue/items/:id/restore', item(restore), { ...formRoute, ...idParam })
    .get(
      '/queue/items/:id/open',
      run((visit, { params }: WithId) => open(visit, params.id)),
      { ...hidden, ...idParam },
    )
    .get('/queue/folders', run(showFolders), hidden)
    .post('/queue/folders', posted(createFolder), formRoute)
    .post('/queue/folders/:id/rename', item(renameFolder), { ...formRoute, ...idParam })
    .post(
      '/queue/folders/:id/delete',
      posted((visit, _, { params }: WithId) => deleteFolder(visit, params.id)),
      { ...formRoute, ...idParam },
    )
    .get(QUEUE_SCRIPT_PATH, ({ request, query }) => QUEUE_SCRIPT_ASSET.respond(request, query.v), hidden)
}
