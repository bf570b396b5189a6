import type { Elysia } from 'elysia'
import type { AppDeps } from '../app/deps.ts'
import { checkRateLimit } from '../app/rate-limiter.ts'
import { socketAddressOf, type RequestHandler } from '../runtime/connection.ts'
import { IP_LIMIT_WINDOW_SECONDS, type IpLimits } from './ip-limits.ts'
import { handedSocketAddress, handOverSocketAddress, lastResort, throughPipeline } from './pipeline.ts'
import { rateLimitHeaders } from './rate-limit-headers.ts'

/**
 * The service as a fetch handler: hands the socket address (which only the host has) in beside the
 * request, counts the per-IP limits, then lets the Elysia app answer (its pipeline gives every answer a
 * request id, the default headers and one log line: pipeline.ts). A failure past the app is the typed 500.
 */
export function createRequestHandler(deps: AppDeps, app: Elysia, ipLimits: IpLimits): RequestHandler {
  return async (request, connection) => {
    handOverSocketAddress(request, socketAddressOf(request, connection))
    try {
      const url = request.url
      const start = url.indexOf('/', url.indexOf('//') + 2)
      const query = url.indexOf('?', start)
      const path = query < 0 ? url.slice(start) : url.slice(start, query)
      const refuse = ipLimits.match(request.method, path)
      if (!refuse) return await app.handle(request)
      const ip = effectiveClientIp(request, handedSocketAddress(request), deps.config.trustProxy)
      const limit = await checkRateLimit(
        deps,
        `ip:${path}:${ip ?? 'unknown'}`,
        deps.config.ipRateLimitMax,
        IP_LIMIT_WINDOW_SECONDS,
      )
      const response = limit.allowed
        ? await app.handle(request)
        : await throughPipeline(deps, request, () =>
            refuse(
              `Rate limit of ${limit.limit} requests per ${IP_LIMIT_WINDOW_SECONDS} s exceeded; retry in ${limit.resetSeconds} s`,
            ),
          )
      for (const [name, value] of Object.entries(rateLimitHeaders(limit))) response.headers.set(name, value)
      return response
    } catch (error) {
      return lastResort(deps, request, error)
    }
  }
}

/**
 * The client address for per-IP limits: the socket peer, or behind a trusted reverse proxy the hop that
 * proxy appended last to `X-Forwarded-For` (earlier hops are the client's to forge).
 */
export function effectiveClientIp(request: Request, socketIp: string | null, trustProxy: boolean): string | null {
  if (!trustProxy) return socketIp
  const hops = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)
  return hops[hops.length - 1] ?? socketIp
}
