import { canonicalEmail } from '../../core/auth/email.ts'
import { RateLimitExceededError } from '../../core/errors.ts'
import { rateLimitWindowStart, type RateLimitDecision } from '../../core/limits/rate-limit.ts'
import type { Principal } from '../../core/types.ts'
import type { AppDeps } from '../app/deps.ts'
import { SharedRateLimiter } from '../app/rate-limiter.ts'
import { hashSecret } from '../app/secret-hash.ts'
import type { MaybePromise } from '../../core/at-once.ts'
import { errorResponse } from './errors.ts'
import { oauthJson } from './oauth-http.ts'
import { handedSocketAddress } from './pipeline.ts'

/**
 * The rate limits of the HTTP service (docs/api.md#rate-limits): per client IP, per credential and per
 * account on sign-in, each a bucket in one table shared by every process on the database, all counted by
 * the one `hit` of app/rate-limiter.ts (which holds the SQL's callers), and one header builder.
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

/** Failed sign-ins one account may take per window before sign-in is refused for it until the window ends. */
export const ACCOUNT_FAILURE_LIMIT = 10
export const ACCOUNT_WINDOW_SECONDS = 15 * 60

export interface AccountThrottle {
  locked: boolean
  /** What the page says while locked. */
  message: string
  /** Counts one failed attempt. */
  fail(): Promise<void>
}

/** The limits of one app; the per-credential counts held in memory are the app's own. */
export interface Limits {
  /** Counts one request from the client of `request` against the per-IP bucket of `path`. */
  ip(request: Request, path: string): MaybePromise<RateLimitDecision>
  /** Counts one request of a credential (`RATE_LIMIT_MAX` per `RATE_LIMIT_WINDOW_S`). */
  credential(principal: Principal): MaybePromise<RateLimitDecision>
  /**
   * The per-account sign-in throttle (docs/security.md#sign-up-and-sign-in), keyed by a hash of the
   * email (the table never holds addresses). A correct password is refused too while the window is
   * locked, or the lock would only slow guessing down.
   */
  signIn(email: string): Promise<AccountThrottle>
}

const limitsOfDeps = new WeakMap<AppDeps, Limits>()

/** The limits of the app built on `deps` (one per app, whichever of its modules asks). */
export function limitsFor(deps: AppDeps): Limits {
  let limits = limitsOfDeps.get(deps)
  if (!limits) {
    limits = createLimits(deps)
    limitsOfDeps.set(deps, limits)
  }
  return limits
}

function createLimits(deps: AppDeps): Limits {
  const counter = new SharedRateLimiter(deps.db, deps.clock, deps.log)
  return {
    ip(request, path) {
      const ip = effectiveClientIp(request, handedSocketAddress(request), deps.config.trustProxy)
      return counter.hit(`ip:${path}:${ip ?? 'unknown'}`, {
        limit: deps.config.ipRateLimitMax,
        windowSeconds: IP_LIMIT_WINDOW_SECONDS,
        exact: true,
      })
    },
    credential(principal) {
      return counter.hit(`cred:${principal.credentialId}`, {
        limit: deps.config.rateLimitMax,
        windowSeconds: deps.config.rateLimitWindowSeconds,
      })
    },
    async signIn(email) {
      const bucket = `signin-account:${hashSecret(canonicalEmail(email))}`
      const nowMs = deps.clock.now().getTime()
      const windowEndMs = rateLimitWindowStart(nowMs, ACCOUNT_WINDOW_SECONDS) + ACCOUNT_WINDOW_SECONDS * 1000
      const failures = await counter.peek(bucket, ACCOUNT_WINDOW_SECONDS, nowMs)
      const minutes = Math.max(1, Math.ceil((windowEndMs - nowMs) / 60_000))
      return {
        locked: failures >= ACCOUNT_FAILURE_LIMIT,
        message: `Too many failed sign-ins for this account. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        fail: async () => {
          const window = { limit: ACCOUNT_FAILURE_LIMIT, windowSeconds: ACCOUNT_WINDOW_SECONDS }
          await counter.hit(bucket, { ...window, exact: true, atMs: nowMs })
        },
      }
    },
  }
}

/** The per-account sign-in throttle of the app built on `deps` (Limits.signIn). */
export const accountThrottle = (deps: AppDeps, email: string): Promise<AccountThrottle> => limitsFor(deps).signIn(email)

/** The RateLimit-* headers of a decision (docs/api.md#rate-limits), and Retry-After on a refusal. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  }
  if (!decision.allowed) headers['retry-after'] = String(decision.resetSeconds)
  return headers
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
