import { parseScopeList } from '../auth/scopes.ts'
import { oauthEndpoints, resourceIdentifiers } from './metadata.ts'
import type { OAuthErrorCode } from './oauth-error.ts'
import {
  DEFAULT_AUTHORIZATION_SCOPES,
  isOAuthScope,
  OFFLINE_ACCESS,
  sortScopes,
  type OAuthScope,
} from './oauth-scopes.ts'
import { isS256CodeChallenge } from './pkce.ts'
import { matchesRegisteredRedirectUri } from './redirect-uri.ts'

/** What the authorization endpoint needs to know about a registered client. */
export interface RegisteredClient {
  id: string
  name: string
  redirectUris: readonly string[]
  grantTypes: readonly string[]
  /** Space-separated scopes the client registered, or null. */
  scope: string | null
}

/** A checked authorization request: everything the consent page shows and the code is bound to. */
export interface AuthorizationRequest {
  clientId: string
  redirectUri: string
  scopes: OAuthScope[]
  codeChallenge: string
  state: string | null
  /** The RFC 8707 resource: the `aud` of every access token issued under the grant. */
  resource: string
}

export type AuthorizationCheck =
  /** The redirect URI cannot be trusted, so the person sees the problem instead of being sent anywhere. */
  | { kind: 'error-page'; message: string }
  | { kind: 'error-redirect'; location: string }
  | { kind: 'valid'; request: AuthorizationRequest }

const SINGLE_VALUED = ['response_type', 'code_challenge', 'code_challenge_method', 'scope', 'state', 'prompt'] as const

/**
 * The redirect back to the client, RFC 6749 §4.1.2 style: the given parameters added to the redirect
 * URI's own query, plus `iss` so the client can tell which server answered (RFC 9207 §2).
 */
export function authorizationResponseLocation(
  redirectUri: string,
  baseUrl: string,
  params: Record<string, string | null>,
): string {
  const url = new URL(redirectUri)
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.append(name, value)
  url.searchParams.append('iss', oauthEndpoints(baseUrl).issuer)
  return url.href
}

/**
 * Checks an authorization request in the order docs/oauth.md#authorize-and-consent gives: client and redirect URI first (a
 * problem there is shown, never redirected: RFC 6749 §4.1.2.1), then response type, PKCE, scope and
 * resource, each reported to the client by redirect with `state` and `iss`. An empty `scope` means the
 * client's registered scope, else `saved-items:read folders:read`.
 * @see docs/oauth.md#authorize-and-consent
 */
export function checkAuthorizationRequest(
  params: URLSearchParams,
  client: RegisteredClient | null,
  baseUrl: string,
): AuthorizationCheck {
  const clientIds = params.getAll('client_id')
  if (clientIds.length !== 1 || clientIds[0] === '')
    return { kind: 'error-page', message: 'The request names no client (client_id is missing or repeated).' }
  if (!client)
    return { kind: 'error-page', message: 'The application that sent you here is not registered with this service.' }
  const redirectUris = params.getAll('redirect_uri')
  if (redirectUris.length !== 1 || redirectUris[0] === '')
    return { kind: 'error-page', message: 'The request names no redirect URI (redirect_uri is missing or repeated).' }
  const redirectUri = redirectUris[0]!
  if (!matchesRegisteredRedirectUri(client.redirectUris, redirectUri)) {
    return {
      kind: 'error-page',
      message: `The redirect URI does not match any the application registered, so you were not sent back to it.`,
    }
  }

  const state = params.get('state')
  const fail = (error: OAuthErrorCode, description: string): AuthorizationCheck => ({
    kind: 'error-redirect',
    location: authorizationResponseLocation(redirectUri, baseUrl, { error, error_description: description, state }),
  })

  const repeated = SINGLE_VALUED.find((name) => params.getAll(name).length > 1)
  if (repeated) return fail('invalid_request', `${repeated} must not be repeated`)

  const responseType = params.get('response_type')
  if (responseType === null || responseType === '') return fail('invalid_request', 'response_type is required')
  if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported')

  const challenge = params.get('code_challenge')
  const method = params.get('code_challenge_method')
  if (challenge === null || challenge === '')
    return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256')
  // A missing method means "plain" (RFC 7636 §4.3), which OAuth 2.1 clients must not use.
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256')
  if (!isS256CodeChallenge(challenge))
    return fail('invalid_request', 'code_challenge must be 43 base64url characters (BASE64URL(SHA256(code_verifier)))')

  const requested = parseScopeList(params.get('scope') ?? '')
  const unknown = requested.filter((scope) => !isOAuthScope(scope))
  if (unknown.length > 0) return fail('invalid_scope', `Unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}`)
  const fallback = client.scope ? parseScopeList(client.scope).filter(isOAuthScope) : DEFAULT_AUTHORIZATION_SCOPES
  const scopes = sortScopes((requested.length > 0 ? requested : fallback) as OAuthScope[])
  if (scopes.includes(OFFLINE_ACCESS) && !client.grantTypes.includes('refresh_token')) {
    return fail('invalid_scope', 'offline_access needs the refresh_token grant, which this client did not register')
  }

  const resources = params.getAll('resource')
  if (resources.length > 1) return fail('invalid_target', 'Only one resource per request is supported')
  const resource = resources[0] ?? baseUrl
  if (!resourceIdentifiers(baseUrl).includes(resource)) {
    return fail('invalid_target', `Unknown resource; use ${resourceIdentifiers(baseUrl).join(' or ')}`)
  }

  // Consent is asked every time, so "ask nothing" cannot be honoured (OpenID Connect Core §3.1.2.1).
  if ((params.get('prompt') ?? '').split(' ').includes('none'))
    return fail('consent_required', 'This server always asks the person for consent')

  return {
    kind: 'valid',
    request: { clientId: client.id, redirectUri, scopes, codeChallenge: challenge, state, resource },
  }
}
