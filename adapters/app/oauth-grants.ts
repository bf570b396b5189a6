import type { TokenStore } from '../../core/oauth/token-grants.ts'
import type { Clock } from '../../core/types.ts'
import { findActiveGrant, revokeGrant, touchGrant, type GrantRow } from '../storage/oauth-grants.ts'
import { findGrant, findRefreshToken, insertRefreshToken } from '../storage/oauth.ts'
import type { Database } from '../storage/open-database.ts'
import { tokenStore } from '../storage/token-store.ts'

// The grants behind OAuth tokens, as the protocol modules in adapters/oauth use them (docs/oauth.md#tokens):
// the token endpoint's storage port, refresh tokens, a token's grant checked on use, and revocation.

/** The token endpoint's storage port (core/oauth/token-grants.ts) over the database. */
export function oauthTokenStore(deps: { db: Database }): TokenStore {
  return tokenStore(deps.db)
}

/**
 * The grant in force that an access token names, with its use recorded (at most once a minute); null when
 * it was revoked or never existed, or is not the token's user, client and resource. Every check goes to
 * the database, so a revocation by any process ends the token at once.
 */
export async function useGrant(
  deps: { db: Database; clock: Clock },
  token: { grantId: string; userId: string; clientId: string; resource: string },
): Promise<GrantRow | null> {
  const grant = await findActiveGrant(deps.db, token.grantId)
  if (!grant || grant.userId !== token.userId || grant.clientId !== token.clientId || grant.resource !== token.resource)
    return null
  await touchGrant(deps.db, grant, deps.clock.now())
  return grant
}

/** Stores a new refresh token (by its hash) under a grant. */
export async function keepRefreshToken(
  deps: { db: Database; clock: Clock },
  token: { tokenHash: string; grantId: string },
): Promise<void> {
  await insertRefreshToken(deps.db, {
    tokenHash: token.tokenHash,
    grantId: token.grantId,
    createdAt: deps.clock.now().toISOString(),
  })
}

/** The grant a refresh token (by its hash) was issued under, whatever the state of either; null when unknown. */
export async function grantOfRefreshToken(deps: { db: Database }, tokenHash: string): Promise<GrantRow | null> {
  const row = await findRefreshToken(deps.db, tokenHash)
  return row ? await findGrant(deps.db, row.grantId) : null
}

/** Ends a grant and everything issued under it (RFC 7009 revocation); nothing when it is not in force. */
export async function endGrant(deps: { db: Database; clock: Clock }, grantId: string): Promise<void> {
  await revokeGrant(deps.db, grantId, deps.clock.now().toISOString())
}
