import type { TokenStore } from '../../core/oauth/token-grants.ts'
import type { Database } from './open-database.ts'
import { revokeGrant } from './oauth-grants.ts'
import { findClient, findCode, findGrant, findRefreshToken, spendCode, spendRefreshToken } from './oauth.ts'

/** The token endpoint's storage port (core/oauth/token-grants.ts) on a database, whatever its driver. */
export function tokenStore(db: Database): TokenStore {
  return {
    findClient: (id) => findClient(db, id),
    findGrant: (id) => findGrant(db, id),
    findCode: (codeHash) => findCode(db, codeHash),
    spendCode: (codeHash, at) => spendCode(db, codeHash, at),
    findRefreshToken: (tokenHash) => findRefreshToken(db, tokenHash),
    spendRefreshToken: (tokenHash, at) => spendRefreshToken(db, tokenHash, at),
    revokeGrant: async (id, at) => {
      await revokeGrant(db, id, at)
    },
  }
}
