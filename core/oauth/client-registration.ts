import { parseScopeList } from '../auth/scopes.ts'
import { OAuthError } from './oauth-error.ts'
import { isOAuthScope, sortScopes } from './oauth-scopes.ts'
import { disguisingCharacter, hasVisibleCharacter } from '../text/display-text.ts'
import { redirectUriProblem } from './redirect-uri.ts'

export const MAX_CLIENT_NAME_LENGTH = 100
export const MAX_REDIRECT_URIS = 10
export const DEFAULT_CLIENT_NAME = 'Unnamed client'

export type ClientGrantType = 'authorization_code' | 'refresh_token'
const GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token']

/** The metadata we register for a client, after validation and defaults. */
export interface ClientRegistration {
  clientName: string
  redirectUris: string[]
  grantTypes: ClientGrantType[]
  responseTypes: ['code']
  /** Space-separated scopes the client declared, or null. */
  scope: string | null
}

const invalid = (description: string): OAuthError => new OAuthError('invalid_client_metadata', description)

// RFC 7591 §2: an omitted field takes its default; JSON null is read as omitted too.
const given = (value: unknown): boolean => value !== undefined && value !== null

function stringArray(value: unknown, field: string, error: (description: string) => OAuthError): string[] {
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string'))
    throw error(`${field} must be an array of strings`)
  return [...new Set(value as string[])]
}

/**
 * Checks an RFC 7591 registration request and fills in defaults. Only public clients: no secret is ever
 * issued, so `token_endpoint_auth_method` must be absent or `none`. Throws {@link OAuthError}
 * (`invalid_redirect_uri` or `invalid_client_metadata`).
 * @see docs/oauth.md#registration and https://www.rfc-editor.org/rfc/rfc7591#section-2
 */
export function validateClientRegistration(input: unknown): ClientRegistration {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalid('The body must be a JSON object of client metadata')
  const body = input as Record<string, unknown>

  if (!given(body.redirect_uris)) throw new OAuthError('invalid_redirect_uri', 'redirect_uris is required')
  const redirectUris = stringArray(
    body.redirect_uris,
    'redirect_uris',
    (d) => new OAuthError('invalid_redirect_uri', d),
  )
  if (redirectUris.length === 0)
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must name at least one URI')
  if (redirectUris.length > MAX_REDIRECT_URIS)
    throw new OAuthError('invalid_redirect_uri', `redirect_uris may name at most ${MAX_REDIRECT_URIS} URIs`)
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri)
    if (problem) throw new OAuthError('invalid_redirect_uri', problem)
  }

  if (given(body.token_endpoint_auth_method) && body.token_endpoint_auth_method !== 'none') {
    throw invalid(
      'Only public clients can register: token_endpoint_auth_method must be "none" (PKCE replaces the secret)',
    )
  }

  // Default to both grants rather than RFC 7591's authorization_code alone: a client that asks for
  // offline_access later should be able to use the refresh token it gets.
  const grantTypes = given(body.grant_types)
    ? stringArray(body.grant_types, 'grant_types', invalid)
    : ['authorization_code', 'refresh_token']
  for (const grant of grantTypes)
    if (!GRANT_TYPES.includes(grant))
      throw invalid(`grant_types: "${grant}" is not supported; use authorization_code and refresh_token`)
  if (!grantTypes.includes('authorization_code')) throw invalid('grant_types must include authorization_code')

  const responseTypes = given(body.response_types)
    ? stringArray(body.response_types, 'response_types', invalid)
    : ['code']
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') throw invalid('response_types must be ["code"]')

  let scope: string | null = null
  if (given(body.scope)) {
    if (typeof body.scope !== 'string') throw invalid('scope must be a space-separated string')
    const scopes = parseScopeList(body.scope)
    const unknown = scopes.filter((s) => !isOAuthScope(s))
    if (unknown.length > 0) throw invalid(`scope: unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}`)
    scope = scopes.length > 0 ? sortScopes(scopes).join(' ') : null
  }

  let clientName = DEFAULT_CLIENT_NAME
  if (given(body.client_name)) {
    if (typeof body.client_name !== 'string') throw invalid('client_name must be a string')
    clientName = body.client_name.trim()
    if (clientName.length === 0) throw invalid('client_name must not be blank')
    if (clientName.length > MAX_CLIENT_NAME_LENGTH)
      throw invalid(`client_name must be at most ${MAX_CLIENT_NAME_LENGTH} characters`)
    // The name is shown on the consent page; invisible characters could disguise it.
    const disguising = disguisingCharacter(clientName)
    if (disguising)
      throw invalid(`client_name must not contain control, invisible or bidirectional characters (found ${disguising})`)
    if (!hasVisibleCharacter(clientName)) throw invalid('client_name must contain at least one visible character')
  }

  return { clientName, redirectUris, grantTypes: grantTypes as ClientGrantType[], responseTypes: ['code'], scope }
}
