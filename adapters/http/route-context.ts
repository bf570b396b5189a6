import { UnauthorizedError } from '../../core/errors.ts'
import type { Principal, Scope } from '../../core/types.ts'
import type { AppDeps } from '../app/deps.ts'

export interface OperationDocs {
  summary: string
  description?: string
  tags: string[]
}

/** What every route module gets: dependencies, the caller, and the OpenAPI detail builder. */
export interface RouteContext {
  deps: AppDeps
  principalOf(request: Request): Principal
  docs(scope: Scope | 'any-credential' | 'public', detail: OperationDocs): Record<string, unknown>
}

export function createRouteContext(deps: AppDeps, principals: WeakMap<Request, Principal>): RouteContext {
  return {
    deps,
    principalOf(request) {
      const principal = principals.get(request)
      // Only reachable if a route is served without the guard in front of it.
      if (!principal) throw new UnauthorizedError('This call needs a credential', false)
      return principal
    },
    docs(scope, detail) {
      if (scope === 'public') return { ...detail, security: [] }
      const scopes = scope === 'any-credential' ? [] : [scope]
      return {
        ...detail,
        description: [
          detail.description,
          scope === 'any-credential' ? 'Needs any valid credential.' : `Needs scope \`${scope}\`.`,
        ]
          .filter(Boolean)
          .join('\n\n'),
        // Either scheme: an API key or OAuth access token as a bearer, or an OAuth client asking for the scope.
        security: [{ bearer: scopes }, { oauth2: scopes }],
        'x-required-scopes': scopes,
      }
    },
  }
}
