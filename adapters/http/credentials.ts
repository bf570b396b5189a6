import { hashApiKey, looksLikeApiKey } from '../../core/auth/api-keys.ts'
import type { Principal } from '../../core/types.ts'
import { isScope } from '../../core/auth/scopes.ts'
import type { ConnectClient } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import { findActiveApiKey, touchApiKey } from '../storage/api-keys.ts'

export type BearerResult = { kind: 'none' } | { kind: 'invalid' } | { kind: 'ok'; principal: Principal }

/** Reads `Authorization: Bearer <credential>` (scheme case-insensitive, RFC 7235). */
export function bearerToken(header: string | null): string | null {
  if (!header) return null
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(header)
  return match ? match[1]! : ''
}

/**
 * Resolves any credential to the person and the scopes it grants. Every lookup goes to the database, so a
 * revocation made by any process takes effect on the very next request.
 */
export async function resolveBearer(db: Database, header: string | null, now: Date): Promise<BearerResult> {
  const token = bearerToken(header)
  if (token === null) return { kind: 'none' }
  if (!looksLikeApiKey(token)) return { kind: 'invalid' }
  const key = await findActiveApiKey(db, hashApiKey(token))
  if (!key) return { kind: 'invalid' }
  // Skip the write when the recorded use is recent: an UPDATE takes the write lock even if it changes nothing.
  if (!key.lastUsedAt || now.getTime() - Date.parse(key.lastUsedAt) >= 60_000) await touchApiKey(db, key.id, now)
  return {
    kind: 'ok',
    principal: {
      userId: key.userId,
      scopes: key.scopes.filter(isScope),
      credentialId: `key:${key.id}`,
      kind: 'api-key',
      connectClient: (key.connectClient as ConnectClient | null) ?? null,
    },
  }
}

export function resourceMetadataUrl(baseUrl: string, path: string): string {
  const mcp = path === '/mcp' || path.startsWith('/mcp/')
  return `${baseUrl}/.well-known/oauth-protected-resource${mcp ? '/mcp' : ''}`
}

/** RFC 6750 §3 challenge; RFC 9728 §5.1 `resource_metadata` points clients at discovery. */
export function unauthorizedChallenge(metadataUrl: string, credentialSent: boolean): string {
  return credentialSent
    ? `Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", resource_metadata="${metadataUrl}"`
    : `Bearer resource_metadata="${metadataUrl}"`
}

export function insufficientScopeChallenge(metadataUrl: string, scope: string): string {
  return `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadataUrl}"`
}
