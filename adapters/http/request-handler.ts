import type { Elysia } from 'elysia'
import type { AppDeps } from '../app/deps.ts'
import { socketAddressOf, type RequestHandler } from '../runtime/connection.ts'
import { handOverSocketAddress, lastResort } from './pipeline.ts'

/**
 * The service as a fetch handler: hands the socket address (which only the host has) in beside the
 * request, for the per-IP limits, and lets the Elysia app answer (its pipeline gives every answer a request
 * id, the default headers and one log line: pipeline.ts). A failure past the app is the typed 500.
 */
export function createRequestHandler(deps: AppDeps, app: Elysia): RequestHandler {
  return async (request, connection) => {
    handOverSocketAddress(request, socketAddressOf(request, connection))
    try {
      return await app.handle(request)
    } catch (error) {
      return lastResort(deps, request, error)
    }
  }
}
