import { InsufficientScopeError } from '../errors.ts'
import { SCOPES } from '../types.ts'
import type { Scope } from '../types.ts'

const KNOWN_SCOPES: ReadonlySet<string> = new Set(SCOPES)

/** Whether a string is one of the scopes of docs/api.md#endpoints. @see docs/security.md#scopes */
export function isScope(value: string): value is Scope {
  return KNOWN_SCOPES.has(value)
}

/** Whether the granted scopes include `needed`. Scopes are flat: none implies another. @see docs/security.md#scopes */
export function hasScope(granted: readonly string[], needed: Scope): boolean {
  return granted.includes(needed)
}

/** Throws {@link InsufficientScopeError} (403) unless `needed` was granted. @see docs/security.md#scopes */
export function requireScope(granted: readonly string[], needed: Scope): void {
  if (!hasScope(granted, needed)) throw new InsufficientScopeError(needed)
}

/**
 * Every scope of an operation that needs several (an import, an export): the missing ones are named
 * together, and the challenge asks for all of them, so one re-authorization is enough.
 */
export function requireScopes(granted: readonly string[], needed: readonly Scope[]): void {
  const missing = needed.filter((scope) => !hasScope(granted, scope))
  if (missing.length > 0) throw new InsufficientScopeError(missing.join(' '), needed.join(' '))
}

/**
 * Whether every requested scope is among the granted ones; an empty request is a subset.
 * Used so a credential can never hand out more than it holds.
 * @see docs/oauth.md#connect-flow and docs/oauth.md#tokens (refresh cannot widen scope)
 */
export function isSubsetOf(requested: readonly string[], granted: readonly string[]): boolean {
  return requested.every((scope) => granted.includes(scope))
}

/**
 * Splits an OAuth `scope` value into distinct tokens, first occurrence order kept.
 * `+` is treated as a separator too, because clients that hand-build query strings send
 * `saved-items:read+folders:read` and no scope of ours contains `+`.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.3
 */
export function parseScopeList(value: string): string[] {
  return [...new Set(value.split(/[ +]/).filter((token) => token !== ''))]
}
