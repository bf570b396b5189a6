import { AUTHORIZATION_CODE_TTL_MS } from '../../core/auth/lifetimes.ts'
import { generateSecret } from '../../core/auth/secrets.ts'
import { uuidv7 } from '../../core/ids.ts'
import { toTimestamp } from '../../core/time.ts'
import type { AuthorizationRequest } from '../../core/oauth/authorization-request.ts'
import { revokeGrant } from '../storage/oauth-grants.ts'
import { findClient, insertGrantWithCode, type ClientRow } from '../storage/oauth.ts'
import type { AppDeps } from './deps.ts'
import { hashSecret } from './secret-hash.ts'

/**
 * The OAuth client an authorization request or a consent form names: a registered one, or one stored from
 * its metadata document; null when there is none.
 */
export function findOAuthClient(deps: AppDeps, clientId: string): Promise<ClientRow | null> {
  return findClient(deps.db, clientId)
}

/**
 * Records a person's consent (docs/oauth.md#authorize-and-consent): the grant and its first authorization
 * code at once, the code bound to the client, the redirect URI and the PKCE challenge, single use and
 * valid for 5 minutes. Returns the code; only its hash is stored.
 */
export async function grantConsent(
  deps: AppDeps,
  userId: string,
  client: Pick<ClientRow, 'id'>,
  authorization: AuthorizationRequest,
): Promise<string> {
  const now = deps.clock.now()
  const grantId = uuidv7(now.getTime(), deps.random)
  const code = generateSecret(deps.random)
  await insertGrantWithCode(
    deps.db,
    {
      id: grantId,
      userId,
      clientId: client.id,
      scopes: authorization.scopes,
      resource: authorization.resource,
      createdAt: now.toISOString(),
    },
    {
      codeHash: hashSecret(code),
      grantId,
      clientId: client.id,
      redirectUri: authorization.redirectUri,
      codeChallenge: authorization.codeChallenge,
      expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS).toISOString(),
    },
  )
  return code
}

/**
 * Disconnects one of the person's agents: ends the grant with every code and token under it and every
 * key issued through it (docs/security.md#connect-issued-keys). False when they have no such grant in force.
 */
export function revokeConsent(deps: AppDeps, userId: string, grantId: string): Promise<boolean> {
  return revokeGrant(deps.db, grantId, toTimestamp(deps.clock.now()), userId)
}
