import { generateSecret } from '../../core/auth/secrets.ts'
import { hashSecret } from '../app/secret-hash.ts'
import { OAuthError } from '../../core/oauth/oauth-error.ts'
import {
  redeemAuthorizationCode,
  requireClient,
  rotateRefreshToken,
  type TokenIssue,
} from '../../core/oauth/token-grants.ts'
import type { AppDeps } from '../app/deps.ts'
import { endGrant, grantOfRefreshToken, keepRefreshToken, oauthTokenStore } from '../app/oauth-grants.ts'
import { ACCESS_TOKEN_TTL_SECONDS, issueAccessToken, readAccessTokenGrant } from './access-tokens.ts'

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

/** The token endpoint (RFC 6749 §3.2) for public clients: the two grants we support (docs/oauth.md#tokens). */
export async function handleTokenRequest(deps: AppDeps, form: URLSearchParams): Promise<TokenResponse> {
  const grantType = required(form, 'grant_type')
  if (grantType === 'authorization_code') {
    const request = {
      codeHash: hashSecret(required(form, 'code')),
      redirectUri: required(form, 'redirect_uri'),
      clientId: required(form, 'client_id'),
      verifier: required(form, 'code_verifier'),
      resource: param(form, 'resource'),
    }
    return issueTokens(deps, await redeemAuthorizationCode(oauthTokenStore(deps), request, deps.clock.now()))
  }
  if (grantType === 'refresh_token') {
    const request = {
      tokenHash: hashSecret(required(form, 'refresh_token')),
      clientId: required(form, 'client_id'),
      scope: param(form, 'scope'),
      resource: param(form, 'resource'),
    }
    return issueTokens(deps, await rotateRefreshToken(oauthTokenStore(deps), request, deps.clock.now()))
  }
  throw new OAuthError(
    'unsupported_grant_type',
    `grant_type "${grantType}" is not supported; use authorization_code or refresh_token`,
  )
}

/** Signs the access token and mints the refresh token that the grant rules allowed. */
async function issueTokens(deps: AppDeps, { grant, scopes, withRefresh }: TokenIssue): Promise<TokenResponse> {
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
    await keepRefreshToken(deps, { tokenHash: hashSecret(refreshToken), grantId: grant.id })
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
  const client = await requireClient(oauthTokenStore(deps), clientId)
  let grantId: string | null = null
  if (token.includes('.')) {
    const owner = await readAccessTokenGrant(deps, token)
    if (owner && owner.clientId === client.id) grantId = owner.grantId
  } else {
    const grant = await grantOfRefreshToken(deps, hashSecret(token))
    if (grant && grant.clientId === client.id) grantId = grant.id
  }
  if (grantId !== null) await endGrant(deps, grantId)
}
