import { generateSecret } from '../../core/auth/secrets.ts'
import { hashSecret } from '../app/secret-hash.ts'
import { parseScopeList } from '../../core/auth/scopes.ts'
import { OAuthError } from '../../core/oauth/oauth-error.ts'
import { isOAuthScope, OFFLINE_ACCESS, sortScopes } from '../../core/oauth/oauth-scopes.ts'
import { verifyPkceS256 } from '../../core/oauth/pkce.ts'
import type { AppDeps } from '../app/deps.ts'
import { revokeGrant, type GrantRow } from '../storage/oauth-grants.ts'
import {
  findClient,
  findCode,
  findGrant,
  findRefreshToken,
  insertRefreshToken,
  spendCode,
  spendRefreshToken,
  type ClientRow,
} from '../storage/oauth.ts'
import { ACCESS_TOKEN_TTL_SECONDS, issueAccessToken, readAccessTokenGrant } from './access-tokens.ts'

/** A refresh token lapses after this long unused; each rotation starts a fresh one. */
export const REFRESH_TOKEN_IDLE_DAYS = 30
const REFRESH_TOKEN_PREFIX = 'rlr_'

export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
  refresh_token?: string
}

/** A form parameter: null when absent or empty (RFC 6749 §3.1), invalid_request when repeated. */
function param(form: URLSearchParams, name: string): string | null {
  const values = form.getAll(name)
  if (values.length > 1) throw new OAuthError('invalid_request', `${name} must not be repeated`)
  return values[0] || null
}

function required(form: URLSearchParams, name: string): string {
  const value = param(form, name)
  if (value === null) throw new OAuthError('invalid_request', `${name} is required`)
  return value
}

async function requireClient(deps: AppDeps, clientId: string): Promise<ClientRow> {
  const client = await findClient(deps.db, clientId)
  if (!client) throw new OAuthError('invalid_client', 'Unknown client_id: register the client first')
  return client
}

/** The token endpoint (RFC 6749 §3.2) for public clients: the two grants we support. */
export function handleTokenRequest(deps: AppDeps, form: URLSearchParams): Promise<TokenResponse> {
  const grantType = required(form, 'grant_type')
  if (grantType === 'authorization_code') return exchangeAuthorizationCode(deps, form)
  if (grantType === 'refresh_token') return exchangeRefreshToken(deps, form)
  throw new OAuthError(
    'unsupported_grant_type',
    `grant_type "${grantType}" is not supported; use authorization_code or refresh_token`,
  )
}

/**
 * authorization_code with PKCE. The verifier is checked before anything else about the code, so someone
 * holding only a stolen code can neither spend it nor, by replaying it, revoke the person's grant. A
 * replay with the right verifier means the code leaked after use: what it issued is revoked.
 * @see docs/oauth.md#tokens and https://www.rfc-editor.org/rfc/rfc9700#section-4.2.1
 */
async function exchangeAuthorizationCode(deps: AppDeps, form: URLSearchParams): Promise<TokenResponse> {
  const code = required(form, 'code')
  const redirectUri = required(form, 'redirect_uri')
  const clientId = required(form, 'client_id')
  const verifier = required(form, 'code_verifier')
  const resource = param(form, 'resource')
  const client = await requireClient(deps, clientId)
  const now = deps.clock.now()

  const row = await findCode(deps.db, hashSecret(code))
  // Another client's code is treated as unknown: it learns nothing and changes nothing.
  if (!row || row.clientId !== client.id)
    throw new OAuthError('invalid_grant', 'The authorization code is unknown, expired or already used')
  if (row.redirectUri !== redirectUri)
    throw new OAuthError('invalid_grant', 'redirect_uri differs from the one in the authorization request')
  if (!verifyPkceS256(verifier, row.codeChallenge))
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge')

  const grant = await findGrant(deps.db, row.grantId)
  if (row.usedAt !== null)
    return replayed(deps, row.grantId, 'The authorization code was already used; the tokens issued with it are revoked')
  if (now.toISOString() >= row.expiresAt) throw new OAuthError('invalid_grant', 'The authorization code has expired')
  if (!grant || grant.revokedAt !== null) throw new OAuthError('invalid_grant', 'The authorization was revoked')
  if (resource !== null && resource !== grant.resource)
    throw new OAuthError('invalid_target', 'resource differs from the one in the authorization request')
  if (!(await spendCode(deps.db, row.codeHash, now.toISOString()))) {
    return replayed(deps, row.grantId, 'The authorization code was already used; the tokens issued with it are revoked')
  }
  const withRefresh = grant.scopes.includes(OFFLINE_ACCESS) && client.grantTypes.includes('refresh_token')
  return issueTokens(deps, grant, grant.scopes, withRefresh)
}

async function replayed(deps: AppDeps, grantId: string, description: string): Promise<never> {
  await revokeGrant(deps.db, grantId, deps.clock.now().toISOString())
  throw new OAuthError('invalid_grant', description)
}

/**
 * refresh_token with rotation: each use spends the token and returns a new one. A spent token coming back
 * means it was copied; the whole grant is revoked (RFC 9700 §4.14.2). `scope` may narrow the new
 * access token, never widen it; the refresh token keeps the grant's scope (RFC 6749 §6).
 */
async function exchangeRefreshToken(deps: AppDeps, form: URLSearchParams): Promise<TokenResponse> {
  const refreshToken = required(form, 'refresh_token')
  const clientId = required(form, 'client_id')
  const scope = param(form, 'scope')
  const resource = param(form, 'resource')
  const client = await requireClient(deps, clientId)
  const now = deps.clock.now()

  const row = await findRefreshToken(deps.db, hashSecret(refreshToken))
  const grant = row ? await findGrant(deps.db, row.grantId) : null
  if (!row || !grant || grant.clientId !== client.id)
    throw new OAuthError('invalid_grant', 'The refresh token is unknown, expired or revoked')
  if (grant.revokedAt !== null) throw new OAuthError('invalid_grant', 'The authorization was revoked')
  if (row.usedAt !== null)
    return replayed(deps, grant.id, 'The refresh token was already used; the authorization is revoked')
  if (now.getTime() - Date.parse(row.createdAt) >= REFRESH_TOKEN_IDLE_DAYS * 86_400_000) {
    throw new OAuthError('invalid_grant', 'The refresh token has expired; authorize again')
  }
  if (!client.grantTypes.includes('refresh_token'))
    throw new OAuthError('unauthorized_client', 'This client did not register the refresh_token grant')

  let scopes = grant.scopes
  if (scope !== null) {
    const requested = parseScopeList(scope)
    const unknown = requested.filter((s) => !isOAuthScope(s))
    if (unknown.length > 0)
      throw new OAuthError('invalid_scope', `Unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}`)
    const wider = requested.filter((s) => !grant.scopes.includes(s))
    if (wider.length > 0)
      throw new OAuthError(
        'invalid_scope',
        `A refresh cannot add scopes the person did not grant: ${wider.map((s) => `"${s}"`).join(', ')}`,
      )
    if (requested.length > 0) scopes = sortScopes(requested)
  }
  if (resource !== null && resource !== grant.resource)
    throw new OAuthError('invalid_target', 'resource differs from the one this authorization was granted for')

  if (!(await spendRefreshToken(deps.db, row.tokenHash, now.toISOString()))) {
    return replayed(deps, grant.id, 'The refresh token was already used; the authorization is revoked')
  }
  return issueTokens(deps, grant, scopes, true)
}

async function issueTokens(
  deps: AppDeps,
  grant: GrantRow,
  scopes: readonly string[],
  withRefresh: boolean,
): Promise<TokenResponse> {
  const scope = scopes.join(' ')
  const response: TokenResponse = {
    access_token: await issueAccessToken(deps, {
      grantId: grant.id,
      userId: grant.userId,
      clientId: grant.clientId,
      scope,
      audience: grant.resource,
    }),
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    scope,
  }
  if (withRefresh) {
    const refreshToken = generateSecret(deps.random, REFRESH_TOKEN_PREFIX)
    await insertRefreshToken(deps.db, {
      tokenHash: hashSecret(refreshToken),
      grantId: grant.id,
      createdAt: deps.clock.now().toISOString(),
    })
    response.refresh_token = refreshToken
  }
  return response
}

/**
 * RFC 7009 revocation for public clients: an access or a refresh token ends its whole grant. A token
 * that is unknown, or belongs to another client, changes nothing and still answers 200 (§2.2).
 */
export async function revokeToken(deps: AppDeps, form: URLSearchParams): Promise<void> {
  const token = required(form, 'token')
  const clientId = required(form, 'client_id')
  param(form, 'token_type_hint')
  const client = await requireClient(deps, clientId)
  let grantId: string | null = null
  if (token.includes('.')) {
    const owner = await readAccessTokenGrant(deps, token)
    if (owner && owner.clientId === client.id) grantId = owner.grantId
  } else {
    const row = await findRefreshToken(deps.db, hashSecret(token))
    const grant = row ? await findGrant(deps.db, row.grantId) : null
    if (grant && grant.clientId === client.id) grantId = grant.id
  }
  if (grantId !== null) await revokeGrant(deps.db, grantId, deps.clock.now().toISOString())
}
