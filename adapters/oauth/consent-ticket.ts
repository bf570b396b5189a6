import { jwtVerify, SignJWT } from 'jose'
import type { AuthorizationRequest } from '../../core/oauth/authorization-request.ts'
import { oauthEndpoints } from '../../core/oauth/metadata.ts'
import { isOAuthScope } from '../../core/oauth/oauth-scopes.ts'
import type { AppDeps } from '../app/deps.ts'
import { loadSigningKeys, SIGNING_ALG, signingKeyResolver } from './signing-keys.ts'

// The consent form carries the checked authorization request as a short-lived token signed with our key
// and bound to the signed-in person. The POST trusts only that token, so a replayed or edited form
// cannot change the client, redirect URI, scopes, challenge or resource the person saw.

export const CONSENT_TICKET_TTL_SECONDS = 600
const TICKET_TYP = 'consent+jwt'

const audienceOf = (deps: AppDeps): string => `${oauthEndpoints(deps.config.baseUrl).issuer}/oauth2/consent`

export async function signConsentTicket(deps: AppDeps, userId: string, request: AuthorizationRequest): Promise<string> {
  const keys = await loadSigningKeys(deps.db, deps.clock, deps.config.encryptionKey)
  const iat = Math.floor(deps.clock.now().getTime() / 1000)
  return new SignJWT({ req: request })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: keys.active.kid, typ: TICKET_TYP })
    .setIssuer(oauthEndpoints(deps.config.baseUrl).issuer)
    .setAudience(audienceOf(deps))
    .setSubject(userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + CONSENT_TICKET_TTL_SECONDS)
    .sign(keys.active.privateKey)
}

/** The authorization request in a ticket issued to `userId`, or null if forged, expired or someone else's. */
export async function readConsentTicket(
  deps: AppDeps,
  ticket: string,
  userId: string,
): Promise<AuthorizationRequest | null> {
  try {
    const { payload } = await jwtVerify(ticket, signingKeyResolver(deps.db, deps.clock, deps.config.encryptionKey), {
      algorithms: [SIGNING_ALG],
      typ: TICKET_TYP,
      issuer: oauthEndpoints(deps.config.baseUrl).issuer,
      audience: audienceOf(deps),
      subject: userId,
      currentDate: deps.clock.now(),
    })
    const request = payload.req as AuthorizationRequest | undefined
    if (
      !request ||
      typeof request.clientId !== 'string' ||
      typeof request.redirectUri !== 'string' ||
      typeof request.codeChallenge !== 'string' ||
      typeof request.resource !== 'string' ||
      !Array.isArray(request.scopes) ||
      !request.scopes.every((s) => typeof s === 'string' && isOAuthScope(s)) ||
      (request.state !== null && typeof request.state !== 'string')
    )
      return null
    return request
  } catch {
    return null
  }
}
