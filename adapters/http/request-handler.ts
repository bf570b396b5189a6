import type { Elysia } from 'elysia'
import type { AppDeps } from '../app/deps.ts'
import { socketAddressOf, type ServingHandler } from '../runtime/connection.ts'
import { andThen, settle } from '../../core/at-once.ts'
import { directList } from './direct-list.ts'
import { handOverSocketAddress, lastResort, pathOf, throughPipeline } from './pipeline.ts'

/**
 * The service as a fetch handler: hands the socket address (which only the host has) in beside the
 * request, for the per-IP limits, and lets the Elysia app answer (its pipeline gives every answer a request
 * id, the default headers and one log line: pipeline.ts). A failure past the app is the typed 500.
 *
 * The direct list answers at once on an embedded file (direct-list.ts), and then so does this: the host gets
 * the Response itself, without a promise turn (docs/benchmarks.md#answered-at-once).
 */
export function createRequestHandler(deps: AppDeps, app: Elysia): ServingHandler {
  const direct = directList(deps)
  return (request, connection) =>
    // The try/catch of the whole request, thrown at once or rejected later: a failure past the app is the typed 500.
    settle(
      () => {
        // The list with an API key, past the framework (direct-list.ts), when the request is one it takes.
        // It has no per-IP limit, so the socket address is handed over only to what goes to the app: asking
        // the host for it is native work on every request.
        const started = performance.now()
        const viaApp = (): Promise<Response> => {
          handOverSocketAddress(request, socketAddressOf(request, connection))
          return app.handle(request)
        }
        const taking = direct(request, pathOf(request.url))
        if (taking === null) return viaApp()
        return andThen(taking, (rest) => (rest ? throughPipeline(deps, request, rest, started) : viaApp()))
      },
      (response) => response,
      (error) => lastResort(deps, request, error),
    )
}
