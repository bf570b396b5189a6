import { parseScopeList } from '../auth/scopes.ts'
import { OAuthError } from './oauth-error.ts'
import { isOAuthScope, OFFLINE_ACCESS, sortScopes } from './oauth-scopes.ts'
import { verifyPkceS256 } from './pkce.ts'

/** A refresh token lapses after this long unused; each rotation starts a fresh one. */
export const REFRESH_TOKEN_IDLE_DAYS = 30

export interface TokenClient {
  id: string
  grantTypes: readonly string[]
}

/** A person's authorization of a client: what its tokens act on and for. */
export interface TokenGrant {
  id: string
  userId: string
  clientId: string
  scopes: readonly string[]
  resource: string
  revokedAt: string | null
}

export interface StoredAuthorizationCode {
  codeHash: string
  grantId: string
  clientId: string
  redirectUri: string
  codeChallenge: string
  expiresAt: string
  usedAt: string | null
}

export interface StoredRefreshToken {
  tokenHash: string
  grantId: string
  createdAt: string
  usedAt: string | null
}

/**
 * What the token endpoint's rules need from storage; `adapters/storage/token-store.ts` implements it on
 * every driver, and test/storage/token-store.test.ts holds each driver to it. Secrets arrive hashed.
 */
export interface TokenStore {
  findClient(id: string): Promise<TokenClient | null>
  findGrant(id: string): Promise<TokenGrant | null>
  findCode(codeHash: string): Promise<StoredAuthorizationCode | null>
  /** Marks an unused code used; true for exactly one caller however many race (on any process). */
  spendCode(codeHash: string, at: string): Promise<boolean>
  findRefreshToken(tokenHash: string): Promise<StoredRefreshToken | null>
  /** Marks an unused refresh token used; true for exactly one caller however many race. */
  spendRefreshToken(tokenHash: string, at: string): Promise<boolean>
  /** Revokes the grant and everything issued under it. */
  revokeGrant(id: string, at: string): Promise<void>
}

/** What a successful exchange allows: tokens for this grant, with these scopes, and maybe a refresh token. */
export interface TokenIssue {
  grant: TokenGrant
  scopes: readonly string[]
  withRefresh: boolean
}

export async function requireClient(store: TokenStore, clientId: string): Promise<TokenClient> {
  const client = await store.findClient(clientId)
  if (!client) throw new OAuthError('invalid_client', 'Unknown client_id: register the client first')
  return client
}

/**
 * authorization_code with PKCE (docs/oauth.md#tokens). The verifier is checked before anything else about
 * the code, so someone holding only a stolen code can neither spend it nor, by replaying it, revoke the
 * person's grant. A replay with the right verifier means the code leaked after use: what it issued is
 * revoked (RFC 9700 §4.2.1). Another client's code is treated as unknown: it learns nothing, changes nothing.
 */
export async function redeemAuthorizationCode(
  store: TokenStore,
  request: { codeHash: string; redirectUri: string; clientId: string; verifier: string; resource: string | null },
  now: Date,
): Promise<TokenIssue> {
  const client = await requireClient(store, request.clientId)
  const at = now.toISOString()
  const code = await store.findCode(request.codeHash)
  if (!code || code.clientId !== client.id)
    throw new OAuthError('invalid_grant', 'The authorization code is unknown, expired or already used')
  if (code.redirectUri !== request.redirectUri)
    throw new OAuthError('invalid_grant', 'redirect_uri differs from the one in the authorization request')
  if (!verifyPkceS256(request.verifier, code.codeChallenge))
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge')
  const replayed = 'The authorization code was already used; the tokens issued with it are revoked'
  if (code.usedAt !== null) return revokeAndRefuse(store, code.grantId, at, replayed)
  if (at >= code.expiresAt) throw new OAuthError('invalid_grant', 'The authorization code has expired')
  const grant = await store.findGrant(code.grantId)
  if (!grant || grant.revokedAt !== null) throw new OAuthError('invalid_grant', 'The authorization was revoked')
  if (request.resource !== null && request.resource !== grant.resource)
    throw new OAuthError('invalid_target', 'resource differs from the one in the authorization request')
  if (!(await store.spendCode(code.codeHash, at))) return revokeAndRefuse(store, code.grantId, at, replayed)
  const withRefresh = grant.scopes.includes(OFFLINE_ACCESS) && client.grantTypes.includes('refresh_token')
  return { grant, scopes: grant.scopes, withRefresh }
}

/**
 * refresh_token with rotation (docs/oauth.md#tokens): each use spends the token and a new one is issued. A
 * spent token coming back means it was copied: the whole grant is revoked (RFC 9700 §4.14.2). `scope` may
 * narrow the new access token, never widen it; the refresh token keeps the grant's scope (RFC 6749 §6).
 */
export async function rotateRefreshToken(
  store: TokenStore,
  request: { tokenHash: string; clientId: string; scope: string | null; resource: string | null },
  now: Date,
): Promise<TokenIssue> {
  const client = await requireClient(store, request.clientId)
  const at = now.toISOString()
  const token = await store.findRefreshToken(request.tokenHash)
  const grant = token ? await store.findGrant(token.grantId) : null
  if (!token || !grant || grant.clientId !== client.id)
    throw new OAuthError('invalid_grant', 'The refresh token is unknown, expired or revoked')
  if (grant.revokedAt !== null) throw new OAuthError('invalid_grant', 'The authorization was revoked')
  const replayed = 'The refresh token was already used; the authorization is revoked'
  if (token.usedAt !== null) return revokeAndRefuse(store, grant.id, at, replayed)
  if (now.getTime() - Date.parse(token.createdAt) >= REFRESH_TOKEN_IDLE_DAYS * 86_400_000)
    throw new OAuthError('invalid_grant', 'The refresh token has expired; authorize again')
  if (!client.grantTypes.includes('refresh_token'))
    throw new OAuthError('unauthorized_client', 'This client did not register the refresh_token grant')
  const scopes = request.scope === null ? grant.scopes : narrowedScopes(grant, request.scope)
  if (request.resource !== null && request.resource !== grant.resource)
    throw new OAuthError('invalid_target', 'resource differs from the one this authorization was granted for')
  if (!(await store.spendRefreshToken(token.tokenHash, at))) return revokeAndRefuse(store, grant.id, at, replayed)
  return { grant, scopes, withRefresh: true }
}

function narrowedScopes(grant: TokenGrant, scope: string): readonly string[] {
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
  return requested.length > 0 ? sortScopes(requested) : grant.scopes
}

async function revokeAndRefuse(store: TokenStore, grantId: string, at: string, description: string): Promise<never> {
  await store.revokeGrant(grantId, at)
  throw new OAuthError('invalid_grant', description)
}
