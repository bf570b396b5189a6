import { Elysia } from 'elysia'
import { isAppError } from '../../../core/errors.ts'
import { folderCreate, folderDelete, folderList, folderRename } from '../../app/folders.ts'
import { folderOverview, readQueue } from '../../app/queue-view.ts'
import { articleWordCountsOf } from '../../app/reading.ts'
import { changeStoredItem, deleteItemWithUndo, findItem, undoDelete } from '../../app/saved-items.ts'
import { signInPath } from './forms.ts'
import type { RouteContext } from '../route-context.ts'
import { captureFromPage } from './capture-from-page.ts'
import { pageReplies, type PageVisitor, type SignedIn, type SignedInForm } from './page-replies.ts'
import { formRoute, hidden, idParam, type WithId } from './route-options.ts'
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
export function queueRoutes({ deps, guard }: RouteContext) {
  const { signupOpen, page, redirect, message } = pageReplies(deps.config)
  const searchOf = (c: PageVisitor) => new URL(c.request.url).searchParams

  // The queue's pages are kept for reading offline (docs/web.md#offline).
  const queueScript = { script: QUEUE_SCRIPT_ASSET.src, offline: true }

  async function queue(c: SignedIn, status: number, extra: Partial<QueueView> = {}): Promise<Response> {
    const userId = c.session.userId
    const params = searchOf(c)
    const filters = filtersOf(params)
    // A search replaces the list, so the queue itself is not read for it.
    const search = await searchFor(deps, c.session, params)
    if (search) {
      const empty = { cards: [], folders: [], counts: { all: 0, byFolder: new Map() }, nextCursor: null }
      const body = queuePage({ csrf: c.csrf, filters, ...empty, ...extra, search })
      return page(c, search.error ? 400 : status, 'Search', body, queueScript)
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
      c,
      status,
      'Your queue',
      queuePage({
        csrf: c.csrf,
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

  const home = async (c: PageVisitor): Promise<Response> => {
    if (c.session) return queue(c as SignedIn, 200)
    // A search link (a bookmark, another tab signed out) is a signed-in page: sign in and come back to it.
    const url = new URL(c.request.url)
    if ((url.searchParams.get('q') ?? '').trim() !== '') return redirect(c, signInPath(url.pathname + url.search))
    return page(c, 200, 'Readlater', landingPage({ signupOpen }))
  }

  const capture = async (c: SignedInForm) => {
    const url = (c.form.get('url') ?? '').trim()
    if (await captureFromPage(deps, c.session, url)) return redirect(c, '/?done=saved')
    return queue(c, 400, {
      capture: { url, error: 'Enter a full web address starting with http:// or https://.' },
    })
  }

  const noSuchItem = (c: PageVisitor) =>
    message(c, 404, 'No such item', 'That item is not in your queue.', { href: '/', label: 'Back to the queue' })

  /** Runs an item action; an item that is not the person's answers 404 and nothing changes. */
  const onItem = async (c: PageVisitor, action: () => Promise<Response>): Promise<Response> => {
    try {
      return await action()
    } catch (error) {
      if (isAppError(error) && error._tag === 'SavedItemNotFoundError') return noSuchItem(c)
      throw error
    }
  }

  const setReadState = async (c: SignedInForm & WithId) => {
    const { form } = c
    const id = c.params.id
    const isRead = form.get('isRead')
    if (isRead !== 'true' && isRead !== 'false')
      return message(c, 400, 'Request refused', 'isRead must be true or false.', { href: '/', label: 'Back' })
    return onItem(c, async () => {
      await changeStoredItem(deps, sessionPrincipal(c.session), id, {
        kind: 'read-state',
        isRead: isRead === 'true',
      })
      // The reader view's button comes back to the item; the queue's to the queue as it was filtered.
      if (form.get('return') === 'reader') return redirect(c, `/items/${encodeURIComponent(id)}`)
      return redirect(c, queueReturn(form.get('return')))
    })
  }

  // Opening records the visit as POST /v1/saved-items/{id}/open does, then goes to the reader view when
  // the item has an article, else to the original (docs/web.md#queue). Only a navigation records it: an
  // image or a fetch of this address (a hostile article naming it, say) is redirected and changes nothing.
  const open = async (c: SignedIn & WithId) =>
    onItem(c, async () => {
      const id = c.params.id
      const mode = c.request.headers.get('sec-fetch-mode')
      const principal = sessionPrincipal(c.session)
      const item =
        mode === null || mode === 'navigate'
          ? await changeStoredItem(deps, principal, id, { kind: 'open' })
          : await findItem(deps, principal, id)
      if (!item) return noSuchItem(c)
      const words = await articleWordCountsOf(deps, [id])
      if (words.has(id)) return redirect(c, `/items/${encodeURIComponent(id)}`)
      // Stored URLs passed capture's http(s) check; this keeps a redirect from ever being another scheme,
      // and sends it serialized (quotes and angle brackets percent-encoded).
      const original = URL.canParse(item.originalUrl) ? new URL(item.originalUrl) : null
      return original && /^https?:$/.test(original.protocol) ? redirect(c, original.href) : redirect(c, '/')
    })

  const showMove = async (c: SignedIn & WithId) => {
    const principal = sessionPrincipal(c.session)
    const [item, folders] = await Promise.all([findItem(deps, principal, c.params.id), folderList(deps, principal)])
    if (!item) return noSuchItem(c)
    const back = queueReturn(searchOf(c).get('return'))
    return page(c, 200, 'Move to folder', movePage({ csrf: c.csrf, item, folders, back }), queueScript)
  }

  const move = async (c: SignedInForm & WithId) => {
    const folderId = c.form.get('folderId') || null
    try {
      await changeStoredItem(deps, sessionPrincipal(c.session), c.params.id, { kind: 'folder', folderId })
    } catch (error) {
      if (isAppError(error) && error._tag === 'SavedItemNotFoundError') return noSuchItem(c)
      if (isAppError(error) && error._tag === 'FolderNotFoundError')
        return message(c, 404, 'No such folder', 'That folder is not one of yours.', {
          href: '/',
          label: 'Back to the queue',
        })
      throw error
    }
    return redirect(c, withParam(queueReturn(c.form.get('return')), 'done', 'moved'))
  }

  const remove = async (c: SignedInForm & WithId) => {
    const deleted = await deleteItemWithUndo(deps, sessionPrincipal(c.session), c.params.id)
    if (!deleted) return noSuchItem(c)
    return redirect(c, withParam(queueReturn(c.form.get('return')), 'deleted', c.params.id))
  }

  const restore = async (c: SignedInForm & WithId) => {
    const outcome = await undoDelete(deps, sessionPrincipal(c.session), c.params.id)
    const done = outcome === 'restored' ? 'restored' : outcome === 'expired' ? 'undo-expired' : 'saved-again'
    return redirect(c, withParam(queueReturn(c.form.get('return')), 'done', done))
  }

  const FOLDER_NOTICES: Record<string, string> = {
    'folder-created': 'Folder created.',
    'folder-renamed': 'Folder renamed.',
    'folder-deleted': 'Folder deleted. Its items are kept, in no folder.',
  }

  async function folders(c: SignedIn, status: number, extra: Partial<FoldersView> = {}): Promise<Response> {
    const { folders: list, counts } = await folderOverview(deps, c.session.userId)
    const done = searchOf(c).get('done') ?? ''
    const view = { csrf: c.csrf, folders: list, counts, notice: FOLDER_NOTICES[done] ?? null, ...extra }
    return page(c, status, 'Manage folders', foldersPage(view), queueScript)
  }

  const showFolders = (c: SignedIn) => folders(c, 200)

  /** A folder action: a refused name (empty, too long, taken) comes back on the page, beside its form. */
  const onFolder = async (
    c: SignedIn,
    done: string,
    form: { id: string; name: string },
    action: () => Promise<unknown>,
  ) => {
    try {
      await action()
    } catch (error) {
      if (!isAppError(error)) throw error
      if (error._tag === 'FolderNotFoundError')
        return message(c, 404, 'No such folder', 'That folder is not one of yours.', {
          href: '/queue/folders',
          label: 'Back to your folders',
        })
      if (error._tag !== 'InvalidFolderNameError' && error._tag !== 'FolderNameConflictError') throw error
      const text =
        error._tag === 'FolderNameConflictError' ? 'You already have a folder with that name.' : error.message
      return folders(c, error._tag === 'InvalidFolderNameError' ? 400 : 409, {
        error: { form: form.id, message: text, name: form.name },
      })
    }
    return redirect(c, `/queue/folders?done=${done}`)
  }

  const createFolder = (c: SignedInForm) => {
    const name = c.form.get('name') ?? ''
    return onFolder(c, 'folder-created', { id: 'new', name }, () =>
      folderCreate(deps, sessionPrincipal(c.session), name),
    )
  }

  const renameFolder = (c: SignedInForm & WithId) => {
    const name = c.form.get('name') ?? ''
    const id = c.params.id
    return onFolder(c, 'folder-renamed', { id, name }, () => folderRename(deps, sessionPrincipal(c.session), id, name))
  }

  const deleteFolder = (c: SignedInForm & WithId) =>
    onFolder(c, 'folder-deleted', { id: c.params.id, name: '' }, () =>
      folderDelete(deps, sessionPrincipal(c.session), c.params.id),
    )

  const signedInForm = { ...formRoute, signedIn: true } as const
  const signedInPage = { ...hidden, signedIn: true } as const
  return (
    new Elysia()
      .use(guard)
      .get('/', home, { ...hidden, session: true })
      .post('/queue/capture', capture, signedInForm)
      // Idempotent: the offline worker replays them with an Idempotency-Key (docs/web.md#offline).
      .post('/queue/items/:id/read-state', setReadState, { ...signedInForm, ...idParam, idempotent: true })
      .get('/queue/items/:id/move', showMove, { ...signedInPage, ...idParam })
      .post('/queue/items/:id/folder', move, { ...signedInForm, ...idParam })
      .post('/queue/items/:id/delete', remove, { ...signedInForm, ...idParam, idempotent: true })
      .post('/queue/items/:id/restore', restore, { ...signedInForm, ...idParam })
      .get('/queue/items/:id/open', open, { ...signedInPage, ...idParam })
      .get('/queue/folders', showFolders, signedInPage)
      .post('/queue/folders', createFolder, signedInForm)
      .post('/queue/folders/:id/rename', renameFolder, { ...signedInForm, ...idParam })
      .post('/queue/folders/:id/delete', deleteFolder, { ...signedInForm, ...idParam })
      .get(QUEUE_SCRIPT_PATH, ({ request, query }) => QUEUE_SCRIPT_ASSET.respond(request, query.v), hidden)
  )
}
