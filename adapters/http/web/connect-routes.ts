import { Elysia } from 'elysia'
import {
  type ConnectPageCheck,
  checkConnectPageRequest,
  connectResponseLocation,
} from '../../../core/connect/connect-page-request.ts'
import { SCOPES } from '../../../core/types.ts'
import { issueConnectCode } from '../../app/connect.ts'
import type { RouteContext } from '../route-context.ts'
import { pageReplies, type PageVisitor, type Posted } from './page-replies.ts'
import { signInPath } from './forms.ts'
import { connectConsentPage } from './pages/connect.ts'
import { cspSourceOf, pageCsp } from './pages/layout.ts'
import { sessionPrincipal } from './reader.ts'
import { formRoute, hidden } from './route-options.ts'

/**
 * Longest query the page reads: a valid request, every value at its limit and percent-encoded, stays well
 * under it; a longer one would only make a sign-in redirect (its `next`) too long to send.
 */
const MAX_QUERY_LENGTH = 16 * 1024

/**
 * A query's parameters, or a problem: too long, or a part of it not valid percent-encoding of UTF-8 (`%zz`,
 * `%ff`): URLSearchParams would turn those into U+FFFD, and a value nobody sent must not become a label or
 * a redirect URI.
 */
function strictQuery(url: string): URLSearchParams | { problem: string } {
  const start = url.indexOf('?')
  const search = start < 0 ? '' : url.slice(start + 1)
  if (search.length > MAX_QUERY_LENGTH)
    return { problem: `The address of this request is over ${MAX_QUERY_LENGTH / 1024} KiB long.` }
  for (const part of search.split('&')) {
    try {
      decodeURIComponent(part.replace(/\+/g, ' '))
    } catch {
      return { problem: 'The address of this request is not valid percent-encoding.' }
    }
  }
  return new URLSearchParams(search)
}

/**
 * The connect page (docs/oauth.md#the-connect-page): the web page a capture client opens (a browser
 * extension through `identity.launchWebAuthFlow`, Raycast) to get a connect code from a signed-in person,
 * who sees what is asked and answers "Allow" or "Deny". The code is issued as POST /connect/authorize
 * issues it, for the web session: the key the client trades it for is a personal key
 * (docs/security.md#connect-issued-keys).
 */
export function connectPageRoutes({ deps, guard }: RouteContext) {
  const replies = pageReplies(deps.config)
  const { page, message } = replies

  // A request whose client, redirect URI or state cannot be trusted is shown, never sent back (RFC 6749
  // §4.1.2.1).
  const cannotBeUsed = (c: PageVisitor, text: string): Response =>
    message(c, 400, 'This connection request cannot be used', text, { href: '/', label: 'Go to the start page' })

  /** The 303 back to the client, with `params` added to its redirect URI. */
  const toClient = (c: PageVisitor, redirectUri: string, params: Record<string, string | null>): Response => {
    const response = replies.redirect(c, connectResponseLocation(redirectUri, params))
    // The page the person leaves is no business of the client's.
    response.headers.set('referrer-policy', 'no-referrer')
    return response
  }
  const errorToClient = (c: PageVisitor, check: ConnectPageCheck & { kind: 'error-redirect' }): Response =>
    toClient(c, check.redirectUri, { error: check.error, state: check.state })

  // GET: request problems that go back to the client are found here, before the person is asked to agree
  // to a request that could not succeed; but only a signed-in person is sent back to the client with one
  // (a stranger is never redirected: docs/oauth.md#the-connect-page), so a signed-out visitor signs in first.
  const show = async (c: PageVisitor): Promise<Response> => {
    const query = strictQuery(c.request.url)
    if (!(query instanceof URLSearchParams)) return cannotBeUsed(c, query.problem)
    // A web session holds every scope (sessionPrincipal), so the scopes are checked against all of them.
    const check = checkConnectPageRequest(query, SCOPES)
    if (check.kind === 'error-page') return cannotBeUsed(c, check.message)
    if (!c.session) {
      // To {app}/sign-in, as the OAuth authorization page does, and back here after it (forms.ts's safeNext).
      const url = new URL(c.request.url)
      return replies.redirect(c, `${deps.config.appUrl}${signInPath(url.pathname + url.search)}`)
    }
    if (check.kind === 'error-redirect') return errorToClient(c, check)
    // Chromium applies form-action to the redirect that follows the form's POST: the policy names the client.
    const csp = pageCsp([cspSourceOf(check.grant.redirectUri)])
    return page(c, 200, 'Connect', connectConsentPage({ grant: check.grant, state: check.state, csrf: c.csrf }), {
      csp,
    })
  }

  // POST: the CSRF field was checked by the guard (the 403 "Form expired" page); the request, carried in
  // hidden fields, is checked again as it came back.
  const answer = async (c: Posted): Promise<Response> => {
    if (!c.session)
      return message(
        c,
        401,
        'Signed out',
        'You are no longer signed in, so nothing was connected. Go back to the application and start connecting again.',
        { href: '/sign-in', label: 'Sign in' },
      )
    const check = checkConnectPageRequest(c.form, SCOPES)
    if (check.kind === 'error-page') return cannotBeUsed(c, check.message)
    const decision = c.form.get('decision')
    const { state } = check
    const redirectUri = check.kind === 'valid' ? check.grant.redirectUri : check.redirectUri
    if (decision === 'deny') return toClient(c, redirectUri, { error: 'access_denied', state })
    if (decision !== 'allow') return message(c, 400, 'No decision', 'Choose "Allow" or "Deny".')
    if (check.kind === 'error-redirect') return errorToClient(c, check)
    const code = await issueConnectCode(deps, sessionPrincipal(c.session), check.input)
    return toClient(c, redirectUri, { code, state })
  }

  // Limited per IP and refused with a page, like the OAuth authorization pages; a bucket is a path's, so the
  // page and its form share one (docs/api.md#rate-limits).
  return new Elysia()
    .use(guard)
    .get('/connect', show, { ...hidden, session: true, ipLimit: 'page' })
    .post('/connect', answer, { ...formRoute, session: true, ipLimit: 'page' })
}
