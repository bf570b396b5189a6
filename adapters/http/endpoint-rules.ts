import type { Scope } from '../../core/types.ts'

/** Who may call an endpoint: holders of one scope, any valid credential, or anyone. */
export type EndpointAccess = Scope | 'any-credential' | 'public'

export interface EndpointRule {
  method: string
  /** Path with `:id` standing for exactly one non-empty segment. */
  pattern: string
  access: EndpointAccess
  /** Whether the endpoint takes a JSON body (415 for another content type). */
  jsonBody: boolean
}

/**
 * How a route outside the OpenAPI document (the MCP endpoint) declares its access to the guard, in its
 * `detail`: `{ hide: true, [GUARD]: { access, jsonBody } }`. Documented routes declare theirs once, with
 * `docs(scope, …)`, which writes `security` and `x-required-scopes`.
 */
export const GUARD = 'x-guard'

interface RouteLike {
  method: string
  path: string
  hooks?: { body?: unknown; detail?: Record<string, unknown> }
}

/**
 * The guard's access table, read off the routes themselves, so each route states its scope once, next to
 * its handler (docs/security.md#scopes). Routes that declare nothing (pages, OAuth endpoints, documents)
 * are not guarded here: they handle their own callers.
 */
export function endpointRulesOf(routes: readonly RouteLike[]): EndpointRule[] {
  const rules: EndpointRule[] = []
  for (const route of routes) {
    const detail = route.hooks?.detail ?? {}
    const declared = detail[GUARD] as { access: EndpointAccess; jsonBody?: boolean } | undefined
    const security = detail.security as unknown[] | undefined
    if (!declared && !Array.isArray(security)) continue
    const scopes = (detail['x-required-scopes'] as Scope[] | undefined) ?? []
    const access: EndpointAccess =
      declared?.access ?? (security!.length === 0 ? 'public' : (scopes[0] ?? 'any-credential'))
    rules.push({
      method: route.method,
      pattern: route.path,
      access,
      jsonBody: declared?.jsonBody ?? Boolean(route.hooks?.body),
    })
  }
  return rules
}

/**
 * The rule for a request, or undefined when no row matches. `path` excludes the query string.
 * Matching is exact: methods are case-sensitive as RFC 9110 §9.1 says, a trailing `/` is a different path,
 * and HEAD is answered by the GET rule.
 */
export function matchEndpoint(rules: readonly EndpointRule[], method: string, path: string): EndpointRule | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method
  const segments = path.split('/')
  return rules.find(
    (candidate) => candidate.method === wanted && matchesPattern(patternSegments(candidate.pattern), segments),
  )
}

// Patterns are few and fixed: split once, not on every request.
const splitPatterns = new Map<string, readonly string[]>()
function patternSegments(pattern: string): readonly string[] {
  let segments = splitPatterns.get(pattern)
  if (!segments) splitPatterns.set(pattern, (segments = pattern.split('/')))
  return segments
}

function matchesPattern(pattern: readonly string[], segments: readonly string[]): boolean {
  if (pattern.length !== segments.length) return false
  return pattern.every((part, i) => {
    const segment = segments[i] ?? ''
    return part === ':id' ? segment !== '' : part === segment
  })
}
