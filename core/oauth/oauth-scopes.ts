import { OFFLINE_ACCESS, SCOPE_DESCRIPTIONS } from '../auth/scope-descriptions.ts'
import { isScope } from '../auth/scopes.ts'
import { SCOPES } from '../types.ts'
import type { Scope } from '../types.ts'

export { OFFLINE_ACCESS, SCOPE_DESCRIPTIONS }

/** What an OAuth client may ask for: the API scopes plus `offline_access` (a refresh token). */
export type OAuthScope = Scope | typeof OFFLINE_ACCESS

/** Every scope an OAuth client may request, in the order the consent page lists them. @see docs/mcp.md#tools */
export const OAUTH_SCOPES: readonly OAuthScope[] = [...SCOPES, OFFLINE_ACCESS]

/** What an authorization request without `scope` gets when the client registered none. @see docs/oauth.md#authorize-and-consent */
export const DEFAULT_AUTHORIZATION_SCOPES: readonly OAuthScope[] = ['saved-items:read', 'folders:read']

export function isOAuthScope(value: string): value is OAuthScope {
  return value === OFFLINE_ACCESS || isScope(value)
}

/** The API scopes among `scopes`, without `offline_access`: what a token may actually use. */
export function apiScopes(scopes: readonly string[]): Scope[] {
  return scopes.filter(isScope)
}

/** Puts scopes in the canonical order of {@link OAUTH_SCOPES}, so equal sets print equally. */
export function sortScopes<T extends string>(scopes: readonly T[]): T[] {
  const rank = (scope: string): number => {
    const index = (OAUTH_SCOPES as readonly string[]).indexOf(scope)
    return index === -1 ? OAUTH_SCOPES.length : index
  }
  return [...scopes].sort((a, b) => rank(a) - rank(b))
}
