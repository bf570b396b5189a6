import type { Elysia } from 'elysia'
import type { AppDeps } from '../app/deps.ts'
import { socketAddressOf, type ServingHandler } from '../runtime/connection.ts'
import { andThen, settle, type MaybePromise } from '../../core/at-once.ts'
import { handOverSocketAddress, lastResort, pathOf, throughPipeline } from './pipeline.ts'

/**
 * A path answered past the framework (direct-list.ts, mcp/direct-post.ts): null for a request it does not
 * take, or (once its credential resolved, at once or later) the rest of its answer, or null after all.
 */
export type DirectPath = (
  request: Request,
  path: string,
) => MaybePromise<((request: Request) => MaybePromise<Response>) | null> | null

/**
 * The service as a fetch handler: hands the socket address (which only the host has) in beside the
 * request, for the per-IP limits, and lets the Elysia app answer (its pipeline gives every answer a request
 * id, the default headers and one log line: pipeline.ts). A failure past the app is the typed 500.
 *
 * The paths in `direct` are tried first, in order (app.ts hands in the list with an API key and every POST of
 * `/mcp` with a resolving bearer token). The direct list answers at once on an embedded file, and then so
 * does this: the host gets the Response itself, without a promise turn (docs/benchmarks.md#answered-at-once).
 */
export function createRequestHandler(deps: AppDeps, app: Elysia, direct: readonly DirectPath[]): ServingHandler {
  return (request, connection) =>
    // The try/catch of the whole request, thrown at once or rejected later: a failure past the app is the typed 500.
    settle(
      () => {
        // The list with an API key and MCP's calls, past the framework, when the request is one they take.
        // Neither has a per-IP limit, so the socket address is handed over only to what goes to the app: asking
        // the host for it is native work on every request.
        const started = performance.now()
        const viaApp = (): Promise<Response> => {
          handOverSocketAddress(request, socketAddressOf(request, connection))
          return app.handle(request)
        }
        const path = pathOf(request.url)
        let taking: ReturnType<DirectPath> = null
        for (let i = 0; taking === null && i < direct.length; i++) taking = direct[i]!(request, path)
        if (taking === null) return viaApp()
        return andThen(taking, (rest) => (rest ? throughPipeline(deps, request, rest, started) : viaApp()))
      },
      (response) => response,
      (error) => lastResort(deps, request, error),
    )
}
