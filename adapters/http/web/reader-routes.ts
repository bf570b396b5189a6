import { Elysia } from 'elysia'
import { isAppError } from '../../../core/errors.ts'
import { findItem } from '../../app/saved-items.ts'
import { readContent, saveProgress } from '../../app/reading.ts'
import { READER_CSP } from './layout.ts'
import { readerPage, readerTitle } from './pages/reader.ts'
import { progressOf, sessionPrincipal } from './reader.ts'
import { READER_SCRIPT_ASSET, READER_SCRIPT_PATH } from './reader-script.ts'
import { READER_STYLES } from './styles.ts'
import { formRoute, hidden, idParam, type Visit, type WebKit, type WithId } from './kit.ts'

/** The reader view, its reading position and its script (docs/web.md#reader-view). */
export function readerRoutes(kit: WebKit) {
  const { deps, page, message, run, posted, signedIn } = kit
  // ── Reader view ─────────────────────────────────────────────────────────────────────────────────

  // Another person's item answers exactly as an id that does not exist, and as any unknown page.
  const notFound = (visit: Visit): Response =>
    message(visit, 404, 'Page not found', 'There is nothing at this address.', {
      href: '/',
      label: 'Go to your queue',
    })

  const showItem = (visit: Visit, id: string) =>
    signedIn(async (visit) => {
      const item = await findItem(deps, sessionPrincipal(visit.session), id)
      if (!item) return notFound(visit)
      let content = null
      try {
        content = await readContent(deps, sessionPrincipal(visit.session), id, 'html')
      } catch (error) {
        if (!isAppError(error)) throw error
        // Deleted since the line above.
        if (error._tag === 'SavedItemNotFoundError') return notFound(visit)
        if (error._tag !== 'ContentNotFoundError') throw error
      }
      const view = { csrf: visit.csrf, item, content }
      return page(visit, 200, readerTitle(view), readerPage(view), {
        csp: READER_CSP,
        styles: READER_STYLES,
        mainClass: 'reader-main',
        ...(content ? { script: READER_SCRIPT_ASSET.src } : {}),
      })
    })(visit)

  /** An answer for the reader's script, which reads only the status: never a page, never a redirect. */
  const scriptAnswer = (visit: Visit, status: number, text?: string): Response => {
    const headers = new Headers({ 'cache-control': 'no-store' })
    if (text) headers.set('content-type', 'text/plain; charset=utf-8')
    for (const cookie of visit.cookies) headers.append('set-cookie', cookie)
    return new Response(text ?? null, { status, headers })
  }

  const recordProgress = async (visit: Visit, form: URLSearchParams, id: string): Promise<Response> => {
    if (!visit.session) return scriptAnswer(visit, 401, 'Sign in again to save your place.')
    const progress = progressOf(form.get('progress'))
    if (progress === null) return scriptAnswer(visit, 400, 'progress must be a number from 0 to 1.')
    try {
      await saveProgress(deps, sessionPrincipal(visit.session), id, progress)
    } catch (error) {
      if (isAppError(error) && error._tag === 'SavedItemNotFoundError') return scriptAnswer(visit, 404, 'No such item.')
      throw error
    }
    return scriptAnswer(visit, 204)
  }

  return new Elysia()
    .get(
      '/items/:id',
      run((visit, { params }: WithId) => showItem(visit, params.id)),
      { ...hidden, ...idParam },
    )
    .post(
      '/items/:id/progress',
      posted((visit, form, { params }: WithId) => recordProgress(visit, form, params.id)),
      { ...formRoute, ...idParam },
    )
    .get(READER_SCRIPT_PATH, ({ request, query }) => READER_SCRIPT_ASSET.respond(request, query.v), hidden)
}
