import type { Elysia } from 'elysia'
import type { AppDeps } from '../app/deps.ts'
import { socketAddressOf, type RequestHandler } from '../runtime/connection.ts'
import { directList } from './direct-list.ts'
import { handOverSocketAddress, lastResort, pathOf, throughPipeline } from './pipeline.ts'

/**
 * The service as a fetch handler: hands the socket address (which only the host has) in beside the
 * request, for the per-IP limits, and lets the Elysia app answer (its pipeline gives every answer a request
 * id, the default headers and one log line: pipeline.ts). A failure past the app is the typed 500.
 */
export function createRequestHandler(deps: AppDeps, app: Elysia): RequestHandler {
  const direct = directList(deps)
  return async (request, connection) => {
    try {
      // The list with an API key, past the framework (direct-list.ts), when the request is one it takes.
      // It has no per-IP limit, so the socket address is handed over only to what goes to the app: asking
      // the host for it is native work on every request.
      const started = performance.now()
      const taking = direct(request, pathOf(request.url))
      const rest = taking && (await taking)
      if (rest) return await throughPipeline(deps, request, rest, started)
      handOverSocketAddress(request, socketAddressOf(request, connection))
      return await app.handle(request)
    } catch (error) {
      return lastResort(deps, request, error)
    }
  }
}
