import type { Elysia } from 'elysia'
import { RateLimitExceededError } from '../../core/errors.ts'
import { uuidv7 } from '../../core/ids.ts'
import type { AppDeps } from '../app/deps.ts'
import { checkRateLimit } from '../app/rate-limiter.ts'
import { describeFailure } from '../app/unexpected.ts'
import { socketAddressOf, type RequestHandler } from '../runtime/connection.ts'
import { errorResponse, internalErrorResponse } from './errors.ts'
import { IP_LIMIT_WINDOW_SECONDS, type IpLimits } from './ip-limits.ts'
import { rateLimitHeaders } from './rate-limit-headers.ts'

/**
 * The guard names the caller in this response header (`userId kind`) for the request's log line; the
 * request handler takes it off before the response leaves.
 */
export const CALLER_HEADER = 'x-readlater-caller'

/** The API's own refusal past a per-IP limit: the typed 429 body. */
export const apiIpRefusal = (message: string): Response => errorResponse(new RateLimitExceededError(message))

/**
 * The service as a fetch handler: per-IP limits (they need the socket, which only the host hands over),
 * then the Elysia app (whose guard checks credentials, scopes, bodies and Idempotency-Key in its
 * lifecycle), then a request id, the default headers and one structured log line per request (no credentials).
 */
export function createRequestHandler(deps: AppDeps, app: Elysia, ipLimits: IpLimits): RequestHandler {
  return async (request, connection) => {
    const started = performance.now()
    const requestId = uuidv7(Date.now(), deps.random)
    let response: Response
    let failure: unknown
    let path = '?'
    try {
      const url = request.url
      const start = url.indexOf('/', url.indexOf('//') + 2)
      const query = url.indexOf('?', start)
      path = query < 0 ? url.slice(start) : url.slice(start, query)
      const refuse = ipLimits.match(request.method, path)
      if (refuse) {
        const ip = effectiveClientIp(request, socketAddressOf(request, connection), deps.config.trustProxy)
        const limit = await checkRateLimit(
          deps,
          `ip:${path}:${ip ?? 'unknown'}`,
          deps.config.ipRateLimitMax,
          IP_LIMIT_WINDOW_SECONDS,
        )
        response = limit.allowed
          ? await app.handle(request)
          : refuse(
              `Rate limit of ${limit.limit} requests per ${IP_LIMIT_WINDOW_SECONDS} s exceeded; retry in ${limit.resetSeconds} s`,
            )
        for (const [name, value] of Object.entries(rateLimitHeaders(limit))) response.headers.set(name, value)
      } else {
        response = await app.handle(request)
      }
    } catch (error) {
      failure = error
      response = internalErrorResponse()
    }
    const caller = response.headers.get(CALLER_HEADER)
    if (caller !== null) response.headers.delete(CALLER_HEADER)
    response.headers.set('x-request-id', requestId)
    // Answers are personal unless a route says otherwise (metadata, JWKS and docs assets do), and a
    // browser must never sniff a JSON body into something it runs (docs/security.md#response-headers).
    if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store')
    response.headers.set('x-content-type-options', 'nosniff')
    const space = caller === null ? -1 : caller.indexOf(' ')
    deps.log(failure || response.status >= 500 ? 'error' : 'info', {
      msg: 'request',
      requestId,
      method: request.method,
      path,
      status: response.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
      ...(caller !== null ? { userId: caller.slice(0, space), credential: caller.slice(space + 1) } : {}),
      ...(failure ? { error: describeFailure(failure) } : {}),
    })
    return response
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
