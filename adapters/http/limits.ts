import { RateLimitExceededError } from '../../core/errors.ts'
import type { RateLimitDecision } from '../../core/limits/rate-limit.ts'
import type { AppDeps } from '../app/deps.ts'
import { checkRateLimit } from '../app/rate-limiter.ts'
import { errorResponse } from './errors.ts'
import { oauthJson } from './oauth-http.ts'
import { handedSocketAddress } from './pipeline.ts'

/**
 * The rate limits of the HTTP service (docs/api.md#rate-limits), in one table shared by every process on
 * the database.
 *
 * Per client IP: the public endpoints that guessable or costly input reaches without a credential, each
 * with its own bucket of `IP_RATE_LIMIT_MAX` a minute. A route states it with the guard's `ipLimit`
 * option, naming how it refuses: the API's typed 429 body (`api`), an RFC 6749 error (`oauth`), or a page
 * (`page`). It is counted before the body is read and before any credential check.
 */
export const IP_LIMIT_WINDOW_SECONDS = 60

/** How a per-IP-limited route refuses a client past its limit. */
export type IpLimitFormat = 'api' | 'oauth' | 'page'

/** Each format's refusal; the page comes from the web pages, which the composition root hands in. */
export type IpRefusals = Record<IpLimitFormat, (message: string) => Response>

export const ipRefusals = (page: (message: string) => Response): IpRefusals => ({
  api: (message) => errorResponse(new RateLimitExceededError(message)),
  oauth: (message) => oauthJson(429, { error: 'rate_limit_exceeded', error_description: message }),
  page,
})

/** A refusal already in its route's format, thrown from the guard's hooks and answered as it is. */
export class RateLimitRefusal extends Error {
  constructor(readonly response: Response) {
    super('rate limit refusal')
  }
}

/** What a 429 says. */
export const overLimitMessage = (decision: RateLimitDecision, windowSeconds: number): string =>
  `Rate limit of ${decision.limit} requests per ${windowSeconds} s exceeded; retry in ${decision.resetSeconds} s`

/** Counts one request from the client of `request` against the per-IP bucket of `path`. */
export function hitIpLimit(deps: AppDeps, request: Request, path: string): Promise<RateLimitDecision> {
  const ip = effectiveClientIp(request, handedSocketAddress(request), deps.config.trustProxy)
  return checkRateLimit(deps, `ip:${path}:${ip ?? 'unknown'}`, deps.config.ipRateLimitMax, IP_LIMIT_WINDOW_SECONDS)
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
