import type { Elysia } from 'elysia'
import { requireScope, matchEndpoint } from '../../core/auth/scopes.ts'
import { isAppError, RateLimitExceededError, RouteNotFoundError, UnauthorizedError, type AppError } from '../../core/errors.ts'
import { decideRateLimit, rateLimitWindowStart, type RateLimitDecision } from '../../core/limits/rate-limit.ts'
import { uuidv7 } from '../../core/ids.ts'
import type { Principal } from '../../core/types.ts'
import type { AppDeps } from './deps.ts'
import { readBodyCapped, requireJsonContentType } from './body.ts'
import { insufficientScopeChallenge, resolveBearer, resourceMetadataUrl, unauthorizedChallenge } from './credentials.ts'
import { errorResponse, INTERNAL_ERROR_BODY, jsonResponse } from './errors.ts'
import { withIdempotency } from './idempotency.ts'
import { hitRateLimit } from '../storage/rate-limits.ts'

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  }
  if (!decision.allowed) headers['retry-after'] = String(decision.resetSeconds)
  return headers
}

/** Counts one request against a bucket shared by every process on the database. */
export async function checkRateLimit(deps: AppDeps, bucket: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
  const nowMs = deps.clock.now().getTime()
  const windowStartMs = rateLimitWindowStart(nowMs, windowSeconds)
  const count = await hitRateLimit(deps.db, bucket, windowStartMs)
  return decideRateLimit({ count, limit, windowStartMs, windowSeconds, nowMs })
}

interface Outcome {
  response: Response
  principal: Principal | null
}

/**
 * The request pipeline in front of the Elysia routes: credential, rate limit and scope (from the core's
 * endpoint table, so they run before body validation and a stranger learns nothing about schemas), the
 * body cap and content type, then Idempotency-Key. Routes read the principal from `principals`.
 */
async function guard(deps: AppDeps, app: Elysia, principals: WeakMap<Request, Principal>, request: Request): Promise<Outcome> {
  const url = new URL(request.url)
  const rule = matchEndpoint(request.method, url.pathname)
  // Elysia tolerates a trailing `/`, but the endpoint table does not: without this, `/v1/folders/` would
  // reach its route with no principal and answer 401 to a valid credential.
  if (!rule && url.pathname.endsWith('/') && matchEndpoint(request.method, url.pathname.replace(/\/+$/, ''))) {
    return { response: errorResponse(new RouteNotFoundError(`No route for ${url.pathname}`)), principal: null }
  }
  if (!rule || rule.access === 'public') return { response: await app.handle(request), principal: null }

  const metadataUrl = resourceMetadataUrl(deps.config.baseUrl, url.pathname)
  const bearer = await resolveBearer(deps.db, request.headers.get('authorization'), deps.clock.now())
  if (bearer.kind !== 'ok') {
    const sent = bearer.kind === 'invalid'
    const error = new UnauthorizedError(sent ? 'The credential is invalid, expired or revoked' : 'This call needs a credential: Authorization: Bearer <token>', sent)
    return { response: errorResponse(error, { 'www-authenticate': unauthorizedChallenge(metadataUrl, sent) }), principal: null }
  }
  const principal = bearer.principal
  const limit = await checkRateLimit(deps, `cred:${principal.credentialId}`, deps.config.rateLimitMax, deps.config.rateLimitWindowSeconds)
  const limitHeaders = rateLimitHeaders(limit)
  const respond = (response: Response): Outcome => {
    for (const [name, value] of Object.entries(limitHeaders)) response.headers.set(name, value)
    return { response, principal }
  }
  if (!limit.allowed) return respond(errorResponse(new RateLimitExceededError(`Rate limit of ${limit.limit} requests per ${deps.config.rateLimitWindowSeconds} s exceeded; retry in ${limit.resetSeconds} s`)))

  try {
    if (rule.access !== 'any-credential') requireScope(principal.scopes, rule.access)
    const body = MUTATING.has(request.method) ? await readBodyCapped(request) : null
    if (rule.jsonBody) requireJsonContentType(request)
    const forward = (): Promise<Response> => {
      const headers = new Headers(request.headers)
      // Media types are case-insensitive and `+json` types are JSON; Elysia parses only a literal
      // `application/json`, so the type checked above is handed on in that form.
      if (rule.jsonBody) headers.set('content-type', 'application/json')
      const inner = new Request(request.url, { method: request.method, headers, body: body && body.byteLength > 0 ? (body as Uint8Array<ArrayBuffer>) : null })
      principals.set(inner, principal)
      return app.handle(inner)
    }
    const idempotencyKey = request.headers.get('idempotency-key')
    if (idempotencyKey === null || !MUTATING.has(request.method)) return respond(await forward())
    return respond(await withIdempotency(deps.db, {
      userId: principal.userId, rawKey: idempotencyKey, method: request.method, pathWithQuery: url.pathname + url.search,
      body: body ?? new Uint8Array(), nowMs: deps.clock.now().getTime(),
    }, forward))
  } catch (error) {
    if (!isAppError(error)) throw error
    const headers: Record<string, string> = error._tag === 'InsufficientScopeError'
      ? { 'www-authenticate': insufficientScopeChallenge(metadataUrl, (error as AppError & { requiredScope: string }).requiredScope) }
      : {}
    return respond(errorResponse(error, headers))
  }
}

export type RequestHandler = (request: Request) => Promise<Response>

/** Wraps the app with the guard, a request id and one structured log line per request (no credentials). */
export function createRequestHandler(deps: AppDeps, app: Elysia, principals: WeakMap<Request, Principal>): RequestHandler {
  return async (request) => {
    const started = performance.now()
    const requestId = uuidv7(Date.now(), deps.random)
    let outcome: Outcome
    let failure: unknown
    try {
      outcome = await guard(deps, app, principals, request)
    } catch (error) {
      failure = error
      outcome = { response: jsonResponse(500, INTERNAL_ERROR_BODY), principal: null }
    }
    const { response, principal } = outcome
    response.headers.set('x-request-id', requestId)
    const path = (() => { try { return new URL(request.url).pathname } catch { return '?' } })()
    deps.log(failure || response.status >= 500 ? 'error' : 'info', {
      msg: 'request',
      requestId,
      method: request.method,
      path,
      status: response.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
      ...(principal ? { userId: principal.userId, credential: principal.kind } : {}),
      ...(failure ? { error: describeFailure(failure) } : {}),
    })
    return response
  }
}

/**
 * Error text for the log: drizzle appends bound parameters (user data) to its messages, so they are cut;
 * the driver's own error (its `cause`, e.g. "no such table") is kept, as it names no values.
 */
export function describeFailure(failure: unknown): string {
  if (!(failure instanceof Error)) return 'non-error thrown'
  const text = (error: Error): string => `${error.name}: ${error.message.split('\nparams:')[0]!.slice(0, 500)}`
  return failure.cause instanceof Error ? `${text(failure)} (cause: ${text(failure.cause)})` : text(failure)
}
