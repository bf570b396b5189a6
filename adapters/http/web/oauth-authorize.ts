import { logUnexpected } from '../../app/unexpected.ts'
import { Elysia } from 'elysia'
import { findOAuthClient, grantConsent } from '../../app/oauth-consent.ts'
import { isAppError } from '../../../core/errors.ts'
import {
  authorizationResponseLocation,
  checkAuthorizationRequest,
  type RegisteredClient,
} from '../../../core/oauth/authorization-request.ts'
import { readConsentTicket, signConsentTicket } from '../../oauth/consent-ticket.ts'
import type { ClientRow } from '../../storage/oauth.ts'
import { resolveMetadataClient } from '../../oauth/client-metadata-documents.ts'
import { isClientIdMetadataUrl } from '../../../core/oauth/client-id-metadata.ts'
import type { SafeHtml } from './pages/html.ts'
import { cspSourceOf, HTML_HEADERS, layout, pageCsp } from './pages/layout.ts'
import { consentPage } from './pages/consent.ts'
import { messagePage } from './pages/message.ts'
import type { WebSession } from '../browser-session.ts'
import { readForm } from './forms.ts'
import { STATUS_BY_TAG } from '../errors.ts'

import type { RouteContext } from '../route-context.ts'

const registered = (client: ClientRow): RegisteredClient => ({
  id: client.id,
  name: client.name,
  redirectUris: client.redirectUris,
  grantTypes: client.grantTypes,
  scope: client.scope,
})

function redirect(location: string): Response {
  return new Response(null, {
    status: 303,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  })
}

/**
 * The person-facing half of the authorization server: GET authorize (checks, sign-in, the consent page)
 * and the consent form's POST, which creates the grant and its code. HTML, never JSON; an error that
 * cannot be trusted to go back to the client is shown here instead (RFC 6749 §4.1.2.1).
 * @see docs/oauth.md#authorize-and-consent
 */
export const oauthAuthorizeRoutes = ({ deps, guard, browser }: RouteContext) => {
  const { config } = deps

  function page(
    status: number,
    title: string,
    body: SafeHtml,
    options: { session?: WebSession | null; csrf?: string; setCookie?: string | null; formTarget?: string } = {},
  ): Response {
    const headers = new Headers(HTML_HEADERS)
    if (options.setCookie) headers.append('set-cookie', options.setCookie)
    if (options.formTarget) headers.set('content-security-policy', pageCsp([options.formTarget]))
    return new Response(layout({ title, body, signedInAs: options.session?.email ?? null, csrfToken: options.csrf }), {
      status,
      headers,
    })
  }
  const problem = (status: number, heading: string, text: string): Response =>
    page(status, heading, messagePage({ heading, text }))

  const guarded =
    (handler: (request: Request) => Promise<Response>) =>
    async ({ request }: { request: Request }): Promise<Response> => {
      try {
        return await handler(request)
      } catch (error) {
        if (isAppError(error)) return problem(STATUS_BY_TAG[error._tag], 'Request refused', error.message)
        logUnexpected(deps.log, 'authorization page failed', error)
        return problem(
          500,
          'Something went wrong',
          'The server could not handle this authorization request. Please try again.',
        )
      }
    }

  // The authorization page and the consent form do real work per request (a client lookup or metadata
  // document fetch, a grant) for anyone who asks: each has its own per-IP bucket, refused with a page.
  return new Elysia()
    .use(guard)
    .get(
      '/api/auth/oauth2/authorize',
      guarded(async (request) => {
        const url = new URL(request.url)
        const clientIds = url.searchParams.getAll('client_id')
        const clientId = clientIds.length === 1 && clientIds[0] ? clientIds[0] : null
        const session = await browser.sessionOf(request)
        const signIn = () => redirect(`${config.appUrl}/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`)
        let client: ClientRow | null = null
        if (clientId !== null && isClientIdMetadataUrl(clientId)) {
          // A metadata-document client is fetched from its URL only for a signed-in person, so strangers
          // cannot make this server fetch URLs for them.
          if (!session) return signIn()
          const resolved = await resolveMetadataClient(deps, clientId)
          if (resolved.kind === 'problem')
            return problem(400, 'This authorization request cannot be used', resolved.message)
          client = resolved.client
        } else if (clientId !== null) {
          client = await findOAuthClient(deps, clientId)
        }
        const check = checkAuthorizationRequest(url.searchParams, client && registered(client), config.baseUrl)
        if (check.kind === 'error-page') return problem(400, 'This authorization request cannot be used', check.message)
        if (check.kind === 'error-redirect') {
          // Only a signed-in person's request errors go back to the client: anyone can register a client with
          // their own redirect URI, and redirecting strangers there would make this an open redirector
          // (RFC 9700 §4.11.2; docs/oauth.md#authorize-and-consent).
          if (session) return redirect(check.location)
          const params = new URL(check.location).searchParams
          return problem(
            400,
            'This authorization request cannot be used',
            params.get('error_description') ?? params.get('error') ?? 'The request is invalid.',
          )
        }
        if (!session) return signIn()
        const csrf = browser.csrfOf(request)
        const ticket = await signConsentTicket(deps, session.userId, check.request)
        const body = consentPage({
          clientName: client!.name,
          scopes: check.request.scopes,
          redirectUri: check.request.redirectUri,
          publishedBy: isClientIdMetadataUrl(client!.id) ? new URL(client!.id).host : null,
          forMcp: check.request.resource !== config.baseUrl,
          ticket,
          csrf: csrf.token,
        })
        return page(200, 'Authorize access', body, {
          session,
          csrf: csrf.token,
          setCookie: csrf.setCookie,
          formTarget: cspSourceOf(check.request.redirectUri),
        })
      }),
      { detail: { hide: true }, ipLimit: 'page' },
    )

    .post(
      '/api/auth/oauth2/consent',
      guarded(async (request) => {
        const form = await readForm(request)
        const session = await browser.sessionOf(request)
        if (!session)
          return problem(
            401,
            'Signed out',
            'You are no longer signed in. Go back to the application and start the connection again.',
          )
        if (!browser.isValidCsrf(request, form.get('csrf'))) {
          return problem(
            403,
            'Form expired',
            'This form could not be verified (its security token is missing or stale). Go back to the application and start again.',
          )
        }
        const authorization = await readConsentTicket(deps, form.get('ticket') ?? '', session.userId)
        if (!authorization)
          return problem(
            400,
            'Form expired',
            'This consent form has expired or was changed. Go back to the application and start again.',
          )
        const client = await findOAuthClient(deps, authorization.clientId)
        if (!client)
          return problem(400, 'Unknown application', 'The application that asked for access is no longer registered.')

        const decision = form.get('decision')
        const respond = (params: Record<string, string | null>): Response =>
          redirect(
            authorizationResponseLocation(authorization.redirectUri, config.baseUrl, {
              ...params,
              state: authorization.state,
            }),
          )
        if (decision === 'deny')
          return respond({ error: 'access_denied', error_description: 'The person denied the request' })
        if (decision !== 'allow') return problem(400, 'No decision', 'Choose "Allow" or "Deny".')

        const code = await grantConsent(deps, session.userId, client, authorization)
        return respond({ code })
      }),
      { detail: { hide: true }, parse: 'none', ipLimit: 'page' },
    )
}
