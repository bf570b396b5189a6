import { type PageVisitor, sendHeldCookie, type WebSession } from '../browser-session.ts'
import { signInPath } from './forms.ts'
import { offlineUserKey } from '../../app/offline.ts'
import { OFFLINE_USER_HEADER } from './pages/offline-asset.ts'
import type { SafeHtml } from './pages/html.ts'
import { HTML_HEADERS, layout, type PageOptions } from './pages/layout.ts'
import { messagePage } from './pages/message.ts'

export { holdCookie, type PageVisitor, sendHeldCookie, setCookie } from '../browser-session.ts'

/** A signed-in person's page (the guard's `signedIn` option). */
export type SignedIn = PageVisitor & { session: WebSession }
/** A form post (the guard's `form` option). */
export type Posted = PageVisitor & { form: URLSearchParams }
/** A signed-in person's form post (`signedIn` and `form`). */
export type SignedInForm = SignedIn & Posted

export type Link = { href: string; label: string }
export type PageExtra = Pick<PageOptions, 'styles' | 'script' | 'mainClass' | 'refreshSeconds' | 'offline'> & {
  csp?: string
}

/** The web app's answers (docs/web.md#pages): a page in the layout, a message page, a redirect. */
export function pageReplies(config: { signup: string }) {
  const signupOpen = config.signup === 'open'

  function page(visitor: PageVisitor, status: number, title: string, body: SafeHtml, extra: PageExtra = {}): Response {
    sendHeldCookie(visitor)
    const headers = new Headers(HTML_HEADERS)
    if (extra.csp) headers.set('content-security-policy', extra.csp)
    const { csp: _, ...options } = extra
    const signedInAs = visitor.session?.email ?? null
    const text = layout({ title, body, signedInAs, csrfToken: visitor.csrf, signupOpen, ...options })
    // Whose page this is, for the offline service worker: it keeps a signed-in person's pages only, and
    // drops what it kept when another person's arrive (docs/web.md#offline).
    if (visitor.session) headers.set(OFFLINE_USER_HEADER, offlineUserKey(visitor.session.userId))
    return new Response(text, { status, headers })
  }

  const message = (visitor: PageVisitor, status: number, heading: string, text: string, link?: Link): Response =>
    page(visitor, status, heading, messagePage({ heading, text, link }))

  return {
    signupOpen,
    page,
    message,
    /** A 303 to `location`, never cached. */
    redirect(visitor: Pick<PageVisitor, 'request' | 'set'>, location: string): Response {
      sendHeldCookie(visitor)
      return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } })
    },
    /** A form whose CSRF field is missing or wrong: 403, with a link back to the page the form was on. */
    formExpired(visitor: PageVisitor, back: string): Response {
      return message(
        visitor,
        403,
        'Form expired',
        'This form could not be verified (its security token is missing or stale). Reload the page and try again.',
        { href: back, label: 'Reload the form' },
      )
    },
    /** A signed-out visitor of a signed-in page: to sign in, and back here after it (a GET; `/` otherwise). */
    toSignIn(visitor: PageVisitor): Response {
      const url = new URL(visitor.request.url)
      const next = visitor.request.method === 'GET' ? url.pathname + url.search : '/'
      sendHeldCookie(visitor)
      return new Response(null, { status: 303, headers: { location: signInPath(next), 'cache-control': 'no-store' } })
    },
    /** A refused request (an app error) on a page: its message and status. */
    refused: (visitor: PageVisitor, status: number, text: string): Response =>
      message(visitor, status, 'Request refused', text, { href: '/', label: 'Back' }),
    /** An unexpected failure on a page (logged by the caller). */
    failed: (visitor: PageVisitor): Response =>
      message(visitor, 500, 'Something went wrong', 'The server could not handle this request. Please try again.', {
        href: '/',
        label: 'Back',
      }),
  }
}

export type PageReplies = ReturnType<typeof pageReplies>

/** Where a refused form's "Reload the form" leads: the page the form was on. */
export function formPageOf(path: string): string {
  return path.startsWith('/settings')
    ? '/settings'
    : path.startsWith('/items/')
      ? path.replace(/^(\/items\/[^/]+).*$/, '$1')
      : path.startsWith('/queue')
        ? '/'
        : path
}
