import { t } from 'elysia'
import type { AppDeps } from '../../app/deps.ts'
import { logUnexpected } from '../../app/unexpected.ts'
import { isAppError } from '../../../core/errors.ts'
import { captureUrl } from '../../app/saved-items.ts'
import { sessionPrincipal } from './reader.ts'
import { uuidv7 } from '../../../core/ids.ts'
import { toTimestamp } from '../../../core/time.ts'
import { STATUS_BY_TAG } from '../errors.ts'
import { readForm, safeNext, signInPath } from './forms.ts'
import { type SafeHtml } from './html.ts'
import { HTML_HEADERS, layout, type PageOptions } from './layout.ts'
import { messagePage } from './pages/message.ts'
import {
  cookieHeader,
  csrfTokenFor,
  isValidCsrf,
  newCsrfToken,
  readWebSession,
  sessionCookieName,
  type WebSession,
} from '../browser-session.ts'

/** One page request: who is signed in, the CSRF token for its forms, and cookies to set on the way out. */
export interface Visit {
  request: Request
  url: URL
  session: WebSession | null
  csrf: string
  cookies: string[]
}

export type SignedInVisit = Visit & { session: WebSession }
export type Handler = (visit: Visit) => Promise<Response>
export type FormHandler = (visit: Visit, form: URLSearchParams) => Promise<Response>

/** What a page handler may read of Elysia's context besides the visit: the request and its declared params. */
export interface PageContext {
  request: Request
}

/** A page at an address with an `:id` (route option {@link idParam}). */
export type WithId = PageContext & { params: { id: string } }

/**
 * What every page of the web app is made with (docs/web.md#pages): the visit (session, CSRF token, cookies),
 * a page in the layout, a redirect, a message page, and the wrappers that turn a failure into a page
 * (`run`), check a POST's CSRF field first (`posted`) and send a signed-out visitor to sign in (`signedIn`).
 */
export function webKit(deps: AppDeps) {
  const { db, config } = deps
  const secure = config.appUrl.startsWith('https:')
  const signupOpen = config.signup === 'open'
  const now = (): string => toTimestamp(deps.clock.now())
  const newId = (): string => uuidv7(deps.clock.now().getTime(), deps.random)

  async function visitOf(request: Request): Promise<Visit> {
    const csrf = csrfTokenFor(request, deps, secure)
    return {
      request,
      url: new URL(request.url),
      session: await readWebSession(deps, request, secure),
      csrf: csrf.token,
      cookies: csrf.setCookie ? [csrf.setCookie] : [],
    }
  }

  function page(
    visit: Visit,
    status: number,
    title: string,
    body: SafeHtml,
    extra: Pick<PageOptions, 'styles' | 'script' | 'mainClass' | 'refreshSeconds'> & { csp?: string } = {},
  ): Response {
    const headers = new Headers(HTML_HEADERS)
    if (extra.csp) headers.set('content-security-policy', extra.csp)
    for (const cookie of visit.cookies) headers.append('set-cookie', cookie)
    const { csp: _, ...options } = extra
    const signedInAs = visit.session?.email ?? null
    const text = layout({ title, body, signedInAs, csrfToken: visit.csrf, signupOpen, ...options })
    return new Response(text, { status, headers })
  }

  function redirect(visit: Visit, location: string): Response {
    const headers = new Headers({ location, 'cache-control': 'no-store' })
    for (const cookie of visit.cookies) headers.append('set-cookie', cookie)
    return new Response(null, { status: 303, headers })
  }

  const message = (
    visit: Visit,
    status: number,
    heading: string,
    text: string,
    link?: { href: string; label: string },
  ): Response => page(visit, status, heading, messagePage({ heading, text, link }))

  const sessionCookie = (token: string, maxAgeSeconds: number): string =>
    cookieHeader(sessionCookieName(secure), token, { secure, maxAgeSeconds })

  /** Every failure becomes a page, never the API's JSON: a too-large form (413) or an unexpected error (500). */
  function run<C extends PageContext>(handler: (visit: Visit, context: C) => Promise<Response>) {
    return async (context: C): Promise<Response> => {
      const visit = await visitOf(context.request)
      try {
        return await handler(visit, context)
      } catch (error) {
        if (isAppError(error))
          return message(visit, STATUS_BY_TAG[error._tag], 'Request refused', error.message, {
            href: '/',
            label: 'Back',
          })
        logUnexpected(deps.log, 'web page failed', error, { path: visit.url.pathname })
        return message(
          visit,
          500,
          'Something went wrong',
          'The server could not handle this request. Please try again.',
          { href: '/', label: 'Back' },
        )
      }
    }
  }

  /** A POST: the form is read (capped), and refused with 403 before anything else when its CSRF field is wrong. */
  const posted = <C extends PageContext>(
    handler: (visit: Visit, form: URLSearchParams, context: C) => Promise<Response>,
  ) =>
    run<C>(async (visit, context) => {
      const form = await readForm(visit.request)
      if (!isValidCsrf(visit.request, form.get('csrf'), secure)) {
        const path = visit.url.pathname
        const back = path.startsWith('/settings')
          ? '/settings'
          : path.startsWith('/items/')
            ? path.replace(/^(\/items\/[^/]+).*$/, '$1')
            : path.startsWith('/queue')
              ? '/'
              : path
        return message(
          visit,
          403,
          'Form expired',
          'This form could not be verified (its security token is missing or stale). Reload the page and try again.',
          { href: back, label: 'Reload the form' },
        )
      }
      return handler(visit, form, context)
    })

  /** A signed-in person's page or action; others are sent to sign in and brought back. */
  const signedIn =
    (handler: (visit: Visit & { session: WebSession }) => Promise<Response>): Handler =>
    async (visit) =>
      visit.session
        ? handler(visit as Visit & { session: WebSession })
        : redirect(visit, signInPath(visit.request.method === 'GET' ? visit.url.pathname + visit.url.search : '/'))

  const nextOf = (value: string | null | undefined): string => safeNext(value, config.appUrl)

  /** A new CSRF token at sign-in and sign-out: one read before cannot be used with the new session. */
  function rotateCsrf(visit: Visit): void {
    const fresh = newCsrfToken(deps, secure)
    visit.csrf = fresh.token
    visit.cookies.push(fresh.setCookie)
  }

  /**
   * A URL captured from a page (the queue's field, /save): through the capture rules with channel
   * web-companion; null when it is no URL that can be saved (the page says so, nothing is written).
   */
  async function captureFromPage(session: WebSession, url: string): Promise<{ created: boolean; url: string } | null> {
    try {
      const { created, savedItem } = await captureUrl(deps, sessionPrincipal(session), {
        url,
        captureChannel: 'web-companion',
      })
      return { created, url: savedItem.originalUrl }
    } catch (error) {
      if (isAppError(error) && error._tag === 'InvalidUrlError') return null
      throw error
    }
  }

  return {
    deps,
    captureFromPage,
    db,
    config,
    secure,
    signupOpen,
    now,
    newId,
    visitOf,
    page,
    redirect,
    message,
    sessionCookie,
    run,
    posted,
    signedIn,
    nextOf,
    rotateCsrf,
  }
}

export type WebKit = ReturnType<typeof webKit>

/** Route options of a page (kept out of OpenAPI) and of a form post (its body read by the handler). */
export const hidden = { detail: { hide: true } }
export const formRoute = { ...hidden, parse: 'none' as const }

/**
 * A page's `:id` (params are declared, not sliced from the path). An id that is not valid percent-encoding
 * (`%zz`) reaches Elysia undecoded as null; it is '' here, which no item, key or webhook has, so the page
 * answers its own not-found, never a validation error.
 */
export const idParam = {
  params: t.Object({ id: t.String() }),
  transform({ params }: { params: Record<string, unknown> }) {
    if (typeof params.id !== 'string') params.id = ''
  },
}
