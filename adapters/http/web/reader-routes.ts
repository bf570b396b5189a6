import { Elysia } from 'elysia'
import { isAppError } from '../../../core/errors.ts'
import { itemHighlightsVersion, listItemHighlights } from '../../app/highlights.ts'
import { findItem } from '../../app/saved-items.ts'
import { readContent, saveProgress } from '../../app/reading.ts'
import { READER_CSP } from './pages/layout.ts'
import { readerPage, readerTitle } from './pages/reader.ts'
import { progressOf, sessionPrincipal } from './reader.ts'
import { readerMarks } from './reader-marks.ts'
import { READER_SCRIPT_ASSET, READER_SCRIPT_PATH } from './reader-script.ts'
import { READER_STYLES } from './pages/styles.ts'
import type { RouteContext } from '../route-context.ts'
import { pageReplies, sendHeldCookie, type PageVisitor, type Posted, type SignedIn } from './page-replies.ts'
import { formRoute, hidden, idParam, imageParams, type WithId, type WithImage } from './route-options.ts'
import { readItemImage } from '../../app/item-images.ts'
import { imageResponse } from '../image-response.ts'

/** The reader view, its reading position and its script (docs/web.md#reader-view). */
export function readerRoutes({ deps, guard }: RouteContext) {
  const { page, message } = pageReplies(deps.config)
  const marked = readerMarks()
  // ── Reader view ─────────────────────────────────────────────────────────────────────────────────

  // Another person's item answers exactly as an id that does not exist, and as any unknown page.
  const notFound = (c: PageVisitor): Response =>
    message(c, 404, 'Page not found', 'There is nothing at this address.', {
      href: '/',
      label: 'Go to your queue',
    })

  const showItem = async (c: SignedIn & WithId) => {
    const id = c.params.id
    const item = await findItem(deps, sessionPrincipal(c.session), id)
    if (!item) return notFound(c)
    let content = null
    let marks = null
    try {
      const principal = sessionPrincipal(c.session)
      content = await readContent(deps, principal, id, 'html')
      // The marks and the list under the article (docs/highlights.md#web), kept while the highlights are the
      // same; an item without an article shows none.
      const version = await itemHighlightsVersion(deps, principal, id)
      marks = await marked(id, content, version, () => listItemHighlights(deps, principal, id))
    } catch (error) {
      if (!isAppError(error)) throw error
      // Deleted since the line above.
      if (error._tag === 'SavedItemNotFoundError') return notFound(c)
      if (error._tag !== 'ContentNotFoundError') throw error
    }
    const view = { csrf: c.csrf, item, content, marked: marks }
    return page(c, 200, readerTitle(view), readerPage(view), {
      csp: READER_CSP,
      styles: READER_STYLES,
      mainClass: 'reader-main',
      // With an article, kept for reading offline (docs/web.md#offline).
      ...(content ? { script: READER_SCRIPT_ASSET.src, offline: true } : {}),
    })
  }

  /**
   * An archived image of the article (docs/reading.md#archived-images): what the stored article's `<img>`
   * points at. Another person's item, or no such image: the same 404 page as any unknown address.
   */
  const showImage = async (c: SignedIn & WithImage): Promise<Response> => {
    try {
      return imageResponse(await readItemImage(deps, sessionPrincipal(c.session), c.params.id, c.params.n))
    } catch (error) {
      if (isAppError(error) && (error._tag === 'SavedItemNotFoundError' || error._tag === 'ImageNotFoundError'))
        return notFound(c)
      throw error
    }
  }

  /** An answer for the reader's script, which reads only the status: never a page, never a redirect. */
  const scriptAnswer = (c: PageVisitor, status: number, text?: string): Response => {
    sendHeldCookie(c)
    const headers = new Headers({ 'cache-control': 'no-store' })
    if (text) headers.set('content-type', 'text/plain; charset=utf-8')
    return new Response(text ?? null, { status, headers })
  }

  const recordProgress = async (c: Posted & WithId): Promise<Response> => {
    if (!c.session) return scriptAnswer(c, 401, 'Sign in again to save your place.')
    const progress = progressOf(c.form.get('progress'))
    if (progress === null) return scriptAnswer(c, 400, 'progress must be a number from 0 to 1.')
    try {
      await saveProgress(deps, sessionPrincipal(c.session), c.params.id, progress)
    } catch (error) {
      if (isAppError(error) && error._tag === 'SavedItemNotFoundError') return scriptAnswer(c, 404, 'No such item.')
      throw error
    }
    return scriptAnswer(c, 204)
  }

  return (
    new Elysia()
      .use(guard)
      .get('/items/:id', showItem, { ...hidden, ...idParam, signedIn: true })
      .get('/items/:id/images/:n', showImage, { ...hidden, ...imageParams, signedIn: true })
      // Signed out, the script gets 401, never a redirect.
      // Idempotent: the offline worker replays it with an Idempotency-Key (docs/web.md#offline).
      .post('/items/:id/progress', recordProgress, { ...formRoute, ...idParam, session: true, idempotent: true })
      .get(READER_SCRIPT_PATH, ({ request, query }) => READER_SCRIPT_ASSET.respond(request, query.v), hidden)
  )
}
