import { Elysia } from 'elysia'
import { isAppError, ValidationError, type AppError } from '../../../core/errors.ts'
import { MAX_EXACT_LENGTH, MAX_HIGHLIGHTS_PER_ITEM, MAX_NOTE_LENGTH } from '../../../core/highlights/highlight.ts'
import {
  createHighlight,
  deleteHighlight,
  listHighlights,
  updateHighlight,
  type HighlightInput,
  type HighlightPatch,
} from '../../app/highlights.ts'
import { STATUS_BY_TAG } from '../errors.ts'
import type { RouteContext } from '../route-context.ts'
import { pageReplies, sendHeldCookie, type PageVisitor, type Posted, type SignedIn } from './page-replies.ts'
import { HIGHLIGHTS_PAGE_SIZE, highlightsPage } from './pages/highlights.ts'
import { sessionPrincipal } from './reader.ts'
import { formRoute, hidden, highlightParams, idParam, type WithHighlight, type WithId } from './route-options.ts'

/**
 * Highlights in the web app (docs/web.md#highlights, docs/highlights.md#web): the page of all of a person's
 * highlights, and the forms of the reader view. Creating needs the reader's script (it reads the selection's
 * offsets); deleting works from a plain form too. Each calls the app layer's use case, as REST does.
 *
 * The reader's script asks for JSON (`Accept: application/json`) and gets the highlight, or the error's
 * `_tag` and a message to show, with its status; a plain form gets a redirect back to the item (303), or
 * the "Request refused" page.
 */
export function highlightRoutes({ deps, guard }: RouteContext) {
  const { page, redirect, toSignIn } = pageReplies(deps.config)

  const wantsJson = (c: PageVisitor): boolean => (c.request.headers.get('accept') ?? '').includes('application/json')

  const json = (c: PageVisitor, status: number, body?: unknown): Response => {
    sendHeldCookie(c)
    const headers = new Headers({ 'cache-control': 'no-store' })
    if (body === undefined) return new Response(null, { status, headers })
    headers.set('content-type', 'application/json; charset=utf-8')
    return new Response(JSON.stringify(body), { status, headers })
  }

  /** What the reader shows for a refused change: the person's words, not the API's field paths. */
  const messageOf = (error: AppError): string => {
    switch (error._tag) {
      case 'HighlightAnchorError':
        return 'This passage is not in the saved text of the article, so it cannot be highlighted. Reload the page and try again.'
      case 'HighlightNotFoundError':
        return 'This highlight no longer exists. Reload the page.'
      case 'SavedItemNotFoundError':
        return 'This item is not in your queue any more.'
      case 'ContentNotFoundError':
        return 'This item has no article to highlight.'
      case 'ValidationError':
        if (/highlights$/.test(error.message))
          return `This article already has ${MAX_HIGHLIGHTS_PER_ITEM.toLocaleString('en-US')} highlights, the most one item can have.`
        if (error.message.startsWith('body.quote.exact'))
          return `A highlight is at most ${MAX_EXACT_LENGTH.toLocaleString('en-US')} characters: select a shorter passage.`
        if (error.message.startsWith('body.note'))
          return `A note is at most ${MAX_NOTE_LENGTH.toLocaleString('en-US')} characters.`
        return error.message
      default:
        return error.message
    }
  }

  /**
   * Runs a change for a signed-in person: JSON for the script (401 signed out, an app error as its status
   * and message), else `plain` (a redirect), with an app error left to the guard's "Request refused" page.
   */
  const change = async (
    c: Posted,
    run: (principal: ReturnType<typeof sessionPrincipal>) => Promise<Response>,
  ): Promise<Response> => {
    const script = wantsJson(c)
    if (!c.session)
      return script
        ? json(c, 401, { _tag: 'UnauthorizedError', message: 'Your session has ended: sign in again.' })
        : toSignIn(c)
    try {
      return await run(sessionPrincipal(c.session))
    } catch (error) {
      if (script && isAppError(error))
        return json(c, STATUS_BY_TAG[error._tag], { _tag: error._tag, message: messageOf(error) })
      throw error
    }
  }

  /** A form's offset: a plain non-negative integer, absent as null. */
  const offsetOf = (value: string | null): number | null => {
    if (value === null || value === '') return null
    if (!/^\d{1,15}$/.test(value)) throw new ValidationError('body.position: start and end must be integers')
    return Number(value)
  }

  const create = (c: Posted & WithId) =>
    change(c, async (principal) => {
      const { form } = c
      const start = offsetOf(form.get('start'))
      const end = offsetOf(form.get('end'))
      const color = form.get('color')
      const input: HighlightInput = {
        quote: { exact: form.get('exact') ?? '', prefix: form.get('prefix') ?? '', suffix: form.get('suffix') ?? '' },
        position: start === null || end === null ? null : { start, end },
        ...(color ? { color: color as HighlightInput['color'] } : {}),
        ...(form.has('note') ? { note: form.get('note') } : {}),
      }
      const highlight = await createHighlight(deps, principal, c.params.id, input)
      if (wantsJson(c)) return json(c, 201, { highlight })
      return redirect(c, `/items/${encodeURIComponent(c.params.id)}#highlight-${encodeURIComponent(highlight.id)}`)
    })

  // A colour and/or a note (a field that is sent is set; a blank note clears it).
  const update = (c: Posted & WithHighlight) =>
    change(c, async (principal) => {
      const { form } = c
      const patch: HighlightPatch = {}
      const color = form.get('color')
      if (color !== null) patch.color = color as HighlightPatch['color']
      if (form.has('note')) patch.note = form.get('note')
      const highlight = await updateHighlight(deps, principal, c.params.highlightId, patch)
      if (wantsJson(c)) return json(c, 200, { highlight })
      return redirect(c, `/items/${encodeURIComponent(c.params.id)}#highlight-${encodeURIComponent(highlight.id)}`)
    })

  const remove = (c: Posted & WithHighlight) =>
    change(c, async (principal) => {
      await deleteHighlight(deps, principal, c.params.highlightId)
      if (wantsJson(c)) return json(c, 204)
      return redirect(c, `/items/${encodeURIComponent(c.params.id)}#highlights`)
    })

  const all = async (c: SignedIn) => {
    const principal = sessionPrincipal(c.session)
    const cursor = new URL(c.request.url).searchParams.get('cursor')
    const read = (from: string | null) => listHighlights(deps, principal, { limit: HIGHLIGHTS_PAGE_SIZE, cursor: from })
    let found: Awaited<ReturnType<typeof read>>
    try {
      found = await read(cursor)
    } catch (error) {
      // A cursor this page did not make (edited, or from another list) is the first page, as on the queue.
      if (!(isAppError(error) && error._tag === 'ValidationError')) throw error
      found = await read(null)
    }
    return page(c, 200, 'Highlights', highlightsPage(found))
  }

  // Signed out, the script gets 401 (never a redirect it would follow to a sign-in page).
  const scriptForm = { ...formRoute, session: true } as const
  return new Elysia()
    .use(guard)
    .get('/highlights', all, { ...hidden, signedIn: true })
    .post('/items/:id/highlights', create, { ...scriptForm, ...idParam })
    .post('/items/:id/highlights/:highlightId', update, { ...scriptForm, ...highlightParams })
    .post('/items/:id/highlights/:highlightId/delete', remove, { ...scriptForm, ...highlightParams })
}
