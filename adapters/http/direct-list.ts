import { TypeCompiler } from '@sinclair/typebox/compiler'
import { looksLikeApiKey } from '../../core/auth/api-keys.ts'
import { requireScope } from '../../core/auth/scopes.ts'
import { InsufficientScopeError, isAppError, RateLimitExceededError } from '../../core/errors.ts'
import type { AppDeps } from '../app/deps.ts'
import type { Principal } from '../../core/types.ts'
import { andThen, settle, type MaybePromise } from '../../core/at-once.ts'
import { bearerToken, insufficientScopeChallenge, resolveApiKey } from './credentials.ts'
import { errorResponse } from './errors.ts'
import { limitsFor, overLimitMessage, rateLimitHeaders } from './limits.ts'
import { noteCaller } from './pipeline.ts'
import { LIST_PATH, listResponse, listUrlOf } from './list-response.ts'
import { ListQuery } from './schemas.ts'
import type { DirectPath } from './request-handler.ts'

const queryCheck = TypeCompiler.Compile(ListQuery)
const QUERY_KEYS = new Set(['sort', 'folder', 'limit', 'cursor'])

/**
 * `GET /v1/saved-items` with an API key, answered without Elysia's request lifecycle: the most frequent read
 * of every client, where the framework's per-request work (its context, hooks, header and cookie parsing,
 * several promise turns) was a third of an uncached list (docs/benchmarks.md#the-uncached-list). It runs the
 * same steps the route and its guard run, in the same order, with the same functions: the credential, the
 * per-credential count, the scope, the route's own answer (`listResponse`), and the same typed error
 * answers; the pipeline around it (request id, default headers, log line) is the one every request passes
 * through.
 *
 * Only a request the route would take exactly as it is comes this way: a GET of the path with an API key
 * (not a JWT, not a session) and a plain query (sort, folder, limit and cursor, each at most once, with no
 * escapes, valid by the route's own schema). Anything else, and a credential that does not resolve, returns
 * null before anything is counted, and goes through the app, which stays the reference:
 * test/http/direct-list.test.ts sends the same requests both ways and compares the answers. A speed twin
 * (docs/benchmarks.md#speed-twins).
 *
 * On an embedded file every step answers at once (core/at-once.ts), so the whole request is answered
 * without a promise turn: the host gets the Response itself, not a promise of it
 * (docs/benchmarks.md#answered-at-once). Only the key's once-a-minute use stamp and the count's sync with
 * the database (every 250 ms) wait.
 */
export function directList(deps: AppDeps): DirectPath {
  const listUrl = listUrlOf(deps.config.baseUrl)
  const metadataUrl = `${deps.config.baseUrl}/.well-known/oauth-protected-resource`
  const limits = limitsFor(deps)

  /** The rest of the route once the credential resolved: inside the request's pipeline (its log line names the caller). */
  const answer =
    (principal: Principal, query: Record<string, string>) =>
    (request: Request): MaybePromise<Response> =>
      andThen(limits.credential(principal), (limit) => {
        const headers: Record<string, string> = rateLimitHeaders(limit)
        noteCaller(request, { userId: principal.userId, kind: principal.kind })
        const refused = (error: unknown): Response => {
          if (isAppError(error)) return withHeaders(errorResponse(error), headers)
          throw error
        }
        return settle(
          () => {
            if (!limit.allowed)
              throw new RateLimitExceededError(overLimitMessage(limit, deps.config.rateLimitWindowSeconds))
            try {
              requireScope(principal.scopes, 'saved-items:read')
            } catch (error) {
              if (error instanceof InsufficientScopeError)
                headers['www-authenticate'] = insufficientScopeChallenge(metadataUrl, error.challengeScope)
              throw error
            }
            return listResponse(deps, principal, query, listUrl)
          },
          (response) => withHeaders(response, headers),
          refused,
        )
      })

  return (request, path) => {
    if (path !== LIST_PATH || request.method !== 'GET') return null
    const token = bearerToken(request.headers.get('authorization'))
    if (!token || !looksLikeApiKey(token)) return null
    const url = request.url
    const at = url.indexOf('?')
    const query: Record<string, string> = {}
    if (at >= 0) {
      const raw = url.slice(at + 1)
      if (/[%+#]/.test(raw)) return null
      for (const pair of raw.split('&')) {
        if (pair === '') continue
        const equals = pair.indexOf('=')
        const key = equals < 0 ? pair : pair.slice(0, equals)
        if (!QUERY_KEYS.has(key) || key in query) return null
        query[key] = equals < 0 ? '' : pair.slice(equals + 1)
      }
    }
    if (!queryCheck.Check(query)) return null
    // Refused credentials are answered by the app (the 401 and its challenge); nothing was counted yet.
    return andThen(resolveApiKey(deps, token), (credential) =>
      credential.kind === 'ok' ? answer(credential.principal, query) : null,
    )
  }
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  return response
}
