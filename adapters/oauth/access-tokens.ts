import { compactVerify, jwtVerify, SignJWT, type JWTPayload } from 'jose'
import { uuidv7 } from '../../core/ids.ts'
import { oauthEndpoints } from '../../core/oauth/metadata.ts'
import { apiScopes } from '../../core/oauth/oauth-scopes.ts'
import type { Principal } from '../../core/types.ts'
import type { AppDeps } from '../app/deps.ts'
import { useGrant } from '../app/oauth-grants.ts'
import { loadSigningKeys, SIGNING_ALG, signingKeyResolver } from './signing-keys.ts'
import { ACCESS_TOKEN_TTL_SECONDS } from '../../core/auth/lifetimes.ts'

export { ACCESS_TOKEN_TTL_SECONDS }
// RFC 9068 §2.1: the media type that tells an access token from any other JWT we sign.
const ACCESS_TOKEN_TYP = 'at+jwt'

export interface AccessTokenClaims {
  grantId: string
  userId: string
  clientId: string
  /** Space-separated, as in the token response. */
  scope: string
  /** RFC 8707 resource: `{base}` or `{base}/mcp`. */
  audience: string
}

/**
 * A signed access token (RFC 9068 profile): `iss`, `sub`, `aud`, `client_id`, `scope`, `jti`, `iat`,
 * `exp` one hour later, and `grant_id`, the consent it hangs from. @see docs/oauth.md#tokens
 */
export async function issueAccessToken(deps: AppDeps, claims: AccessTokenClaims): Promise<string> {
  const keys = await loadSigningKeys(deps.db, deps.clock, deps.config.encryptionKey)
  const now = deps.clock.now()
  const iat = Math.floor(now.getTime() / 1000)
  return new SignJWT({ client_id: claims.clientId, scope: claims.scope, grant_id: claims.grantId })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: keys.active.kid, typ: ACCESS_TOKEN_TYP })
    .setIssuer(oauthEndpoints(deps.config.baseUrl).issuer)
    .setSubject(claims.userId)
    .setAudience(claims.audience)
    .setJti(uuidv7(now.getTime(), deps.random))
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
    .sign(keys.active.privateKey)
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

/**
 * Verifies an OAuth access token for `audience` (signature with our keys, `typ`, `iss`, `exp`, `aud`
 * exactly equal), then checks its grant in the database, so a revocation made by any process ends
 * the token at once. The scopes are those of the token that the grant still holds. Null for anything
 * not valid.
 * @see docs/security.md#credentials
 */
export async function verifyAccessToken(deps: AppDeps, token: string, audience: string): Promise<Principal | null> {
  let payload: JWTPayload
  try {
    ;({ payload } = await jwtVerify(token, signingKeyResolver(deps.db, deps.clock, deps.config.encryptionKey), {
      algorithms: [SIGNING_ALG],
      typ: ACCESS_TOKEN_TYP,
      issuer: oauthEndpoints(deps.config.baseUrl).issuer,
      audience,
      currentDate: deps.clock.now(),
      requiredClaims: ['sub', 'exp', 'iat', 'jti'],
    }))
  } catch {
    return null
  }
  // jose accepts `aud` arrays that contain the audience; ours always hold exactly one resource.
  if (payload.aud !== audience) return null
  const userId = text(payload.sub)
  const clientId = text(payload.client_id)
  const grantId = text(payload.grant_id)
  if (!userId || !clientId || !grantId || typeof payload.scope !== 'string') return null

  const grant = await useGrant(deps, { grantId, userId, clientId, resource: audience })
  if (!grant) return null
  const tokenScopes = payload.scope.split(' ')
  return {
    userId,
    scopes: apiScopes(grant.scopes.filter((scope) => tokenScopes.includes(scope))),
    credentialId: `grant:${grant.id}`,
    kind: 'oauth',
    connectClient: null,
    offlineAccess: grant.scopes.includes('offline_access'),
  }
}

/**
 * The grant and client of an access token we signed, expired or not: what revocation (RFC 7009) needs.
 * Null when the signature, `typ` or issuer is not ours.
 */
export async function readAccessTokenGrant(
  deps: AppDeps,
  token: string,
): Promise<{ grantId: string; clientId: string } | null> {
  try {
    const { payload, protectedHeader } = await compactVerify(
      token,
      signingKeyResolver(deps.db, deps.clock, deps.config.encryptionKey),
      { algorithms: [SIGNING_ALG] },
    )
    if (protectedHeader.typ !== ACCESS_TOKEN_TYP) return null
    const claims = JSON.parse(new TextDecoder().decode(payload)) as JWTPayload
    if (claims.iss !== oauthEndpoints(deps.config.baseUrl).issuer) return null
    const grantId = text(claims.grant_id)
    const clientId = text(claims.client_id)
    return grantId && clientId ? { grantId, clientId } : null
  } catch {
    return null
  }
}
