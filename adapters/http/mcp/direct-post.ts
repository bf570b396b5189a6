import { isAppError, RateLimitExceededError } from '../../../core/errors.ts'
import type { Principal } from '../../../core/types.ts'
import { PAGE_BODY_MAX_BYTES } from '../../../core/reading/page-limits.ts'
import { andThen, settle, type MaybePromise } from '../../../core/at-once.ts'
import type { AppDeps } from '../../app/deps.ts'
import { readBodyCapped } from '../body.ts'
import { bearerToken, resolveBearer } from '../credentials.ts'
import { errorResponse } from '../errors.ts'
import { mcpMessage } from '../guard.ts'
import { limitsFor, overLimitMessage, rateLimitHeaders } from '../limits.ts'
import { MCP_CORS_HEADERS } from '../mcp-origin.ts'
import { answerMcpMessage } from './endpoint.ts'
import { noteCaller } from '../pipeline.ts'
import type { DirectPath } from '../request-handler.ts'

const MCP_PATH = '/mcp'

/**
 * `POST /mcp` answered without Elysia's request lifecycle: every call an agent makes comes this way, and the
 * framework's per-request work (its context, its hooks, the body handed through its parse step) was about a
 * tenth of an uncached `list_saved_items` in one process (docs/benchmarks.md#mcps-list). It runs the steps the route and its guard
 * run, in the same order, with the same functions: the CORS headers, the credential (an API key or an OAuth
 * access token for `{base}/mcp`), the per-credential count, the body (capped, its content type, nesting
 * limit, JSON and the tools' scopes: the guard's own `mcpMessage`), the route's own answer
 * (`answerMcpMessage`), and the same typed error answers; the pipeline around it (request id, default
 * headers, log line) is the one every request passes through.
 *
 * Only a request the route would take exactly as it is comes this way: a POST of the path without an
 * `Origin` header (a browser's request, whose Origin the guard checks first, goes through the app), with a
 * bearer token that resolves. Anything else, and a credential that does not resolve, returns null before
 * anything is counted or read, and goes through the app, which stays the reference:
 * test/http/direct-mcp.test.ts sends the same requests both ways and compares the answers. A speed twin
 * (docs/benchmarks.md#speed-twins).
 */
export function directMcp(deps: AppDeps): DirectPath {
  const baseUrl = deps.config.baseUrl
  const audience = `${baseUrl}${MCP_PATH}`
  const limits = limitsFor(deps)

  /** The rest of the route once the credential resolved: inside the request's pipeline (its log line names the caller). */
  const answer =
    (principal: Principal) =>
    (request: Request): MaybePromise<Response> =>
      andThen(limits.credential(principal), (limit) => {
        const headers: Record<string, string> = { ...MCP_CORS_HEADERS, ...rateLimitHeaders(limit) }
        noteCaller(request, { userId: principal.userId, kind: principal.kind })
        return settle(
          () => {
            if (!limit.allowed)
              throw new RateLimitExceededError(overLimitMessage(limit, deps.config.rateLimitWindowSeconds))
            return readBodyCapped(request, PAGE_BODY_MAX_BYTES).then((raw) =>
              answerMcpMessage(deps, principal, request, mcpMessage(request, raw, principal, baseUrl, headers)),
            )
          },
          (response) => withHeaders(response, headers),
          (error) => {
            if (isAppError(error)) return withHeaders(errorResponse(error), headers)
            throw error
          },
        )
      })

  return (request, path) => {
    if (path !== MCP_PATH || request.method !== 'POST' || request.headers.has('origin')) return null
    const token = bearerToken(request.headers.get('authorization'))
    if (!token) return null
    // Refused credentials are answered by the app (the 401 and its challenge); nothing was counted yet.
    return andThen(resolveBearer(deps, token, audience), (credential) =>
      credential.kind === 'ok' ? answer(credential.principal) : null,
    )
  }
}

/** Elysia's way with a route's headers on the Response it answers: each set, over what the Response had. */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const name in headers) response.headers.set(name, headers[name]!)
  return response
}
