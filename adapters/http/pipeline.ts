import type { Elysia } from 'elysia'
import { requireScope } from '../../core/auth/scopes.ts'
import { endpointRulesOf, matchEndpoint, type EndpointRule } from './endpoint-rules.ts'
import {
  InsufficientScopeError,
  isAppError,
  RateLimitExceededError,
  RouteNotFoundError,
  UnauthorizedError,
} from '../../core/errors.ts'
import { MCP_DEFAULT_SCOPE, scopesNeededFor, stepUpScope } from '../../core/mcp/tools.ts'
import { MCP_CORS_HEADERS } from './mcp/endpoint.ts'
import { decideRateLimit, rateLimitWindowStart, type RateLimitDecision } from '../../core/limits/rate-limit.ts'
import { uuidv7 } from '../../core/ids.ts'
import { requireShallowJson } from '../../core/limits/json-depth.ts'
import type { Principal } from '../../core/types.ts'
import type { AppDeps } from '../app/deps.ts'
import { readBodyCapped, requireJsonContentType } from './body.ts'
import {
  insufficientScopeChallenge,
  isMcpPath,
  resolveCredential,
  resourceMetadataUrl,
  unauthorizedChallenge,
} from './credentials.ts'
import { IP_LIMIT_WINDOW_SECONDS, matchIpLimited, type RefusalStyle } from './ip-limits.ts'
import { errorResponse, INTERNAL_ERROR_BODY, jsonResponse } from './errors.ts'
import { describeFailure } from '../app/unexpected.ts'
import { NO_REPLAY_HEADER, withIdempotency } from './idempotency.ts'
import { socketAddressOf, type RequestHandler } from '../runtime/connection.ts'
import { HTML_HEADERS, layout } from './web/layout.ts'
import { messagePage } from './web/pages/message.ts'
import { oauthJson } from './oauth-http.ts'
import { hitRateLimit } from '../storage/rate-limits.ts'
import { SharedRateLimiter } from '../app/rate-limiter.ts'

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
export async function checkRateLimit(
  deps: AppDeps,
  bucket: string,
  limit: number,
  windowSeconds: number,
): Promise<RateLimitDecision> {
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
 * The request pipeline in front of the Elysia routes: credential, rate limit and scope (from the table the
 * routes declare, read off them once, so they run before body validation and a stranger learns nothing about schemas), the
 * body cap and content type, then Idempotency-Key. Routes read the principal from `principals`.
 */
async function guard(
  deps: AppDeps,
  app: Elysia,
  rules: readonly EndpointRule[],
  principals: WeakMap<Request, Principal>,
  limiter: SharedRateLimiter,
  request: Request,
  url: URL,
  clientIp: () => string | null,
): Promise<Outcome> {
  const rule = matchEndpoint(rules, request.method, url.pathname)
  // Elysia tolerates a trailing `/`, but the endpoint table does not: without this, `/v1/folders/` would
  // reach its route with no principal and answer 401 to a valid credential.
  if (!rule && url.pathname.endsWith('/') && matchEndpoint(rules, request.method, url.pathname.replace(/\/+$/, ''))) {
    return { response: errorResponse(new RouteNotFoundError(`No route for ${url.pathname}`)), principal: null }
  }

  const ipRule = matchIpLimited(request.method, url.pathname)
  let ipHeaders: Record<string, string> = {}
  if (ipRule) {
    const limit = await checkRateLimit(
      deps,
      `ip:${ipRule.path}:${clientIp() ?? 'unknown'}`,
      deps.config.ipRateLimitMax,
      IP_LIMIT_WINDOW_SECONDS,
    )
    ipHeaders = rateLimitHeaders(limit)
    if (!limit.allowed)
      return { response: withHeaders(rateLimitRefusal(ipRule.style, limit), ipHeaders), principal: null }
  }
  if (!rule) return { response: withHeaders(await app.handle(request), ipHeaders), principal: null }
  if (rule.access === 'public') {
    try {
      return {
        response: withHeaders(
          await forward(
            app,
            request,
            rule.jsonBody ? await readJsonBody(request) : null,
            rule.jsonBody ? 'application/json' : null,
            principals,
          ),
          ipHeaders,
        ),
        principal: null,
      }
    } catch (error) {
      if (!isAppError(error)) throw error
      return { response: withHeaders(errorResponse(error), ipHeaders), principal: null }
    }
  }

  const mcp = isMcpPath(url.pathname)
  const metadataUrl = resourceMetadataUrl(deps.config.baseUrl, url.pathname)
  const credential = await resolveCredential(deps, request, audienceFor(deps.config.baseUrl, url.pathname))
  if (credential.kind !== 'ok') {
    const sent = credential.kind === 'invalid'
    const error = new UnauthorizedError(
      sent
        ? 'The credential is invalid, expired or revoked'
        : 'This call needs a credential: Authorization: Bearer <token>',
      sent,
    )
    // On /mcp the challenge also hints which scopes to ask for: MCP clients use it for their first authorization.
    const challenge = unauthorizedChallenge(metadataUrl, sent, mcp ? MCP_DEFAULT_SCOPE : null)
    return {
      response: withHeaders(errorResponse(error, { 'www-authenticate': challenge }), mcp ? MCP_CORS_HEADERS : {}),
      principal: null,
    }
  }
  const principal = credential.principal
  const limit = await limiter.hit(
    `cred:${principal.credentialId}`,
    deps.config.rateLimitMax,
    deps.config.rateLimitWindowSeconds,
  )
  const limitHeaders = mcp ? { ...rateLimitHeaders(limit), ...MCP_CORS_HEADERS } : rateLimitHeaders(limit)
  const respond = (response: Response): Outcome => {
    response.headers.delete(NO_REPLAY_HEADER)
    return { response: withHeaders(response, limitHeaders), principal }
  }
  if (!limit.allowed) return respond(rateLimitRefusal('api', limit, deps.config.rateLimitWindowSeconds))

  try {
    if (rule.access !== 'any-credential') requireScope(principal.scopes, rule.access)
    const body = MUTATING.has(request.method) ? await readBodyCapped(request) : null
    if (rule.jsonBody) requireJsonContentType(request)
    if (rule.jsonBody && body) requireShallowJson(body)
    if (mcp && body) requireToolScopes(principal, body)
    const run = (): Promise<Response> =>
      forward(app, request, body, rule.jsonBody ? 'application/json' : null, principals, principal)
    const idempotencyKey = request.headers.get('idempotency-key')
    // JSON-RPC has its own request ids; an MCP POST is never replayed from the idempotency store.
    if (idempotencyKey === null || !MUTATING.has(request.method) || mcp) return respond(await run())
    return respond(
      await withIdempotency(
        deps.db,
        {
          credentialId: principal.credentialId,
          userId: principal.userId,
          rawKey: idempotencyKey,
          method: request.method,
          pathWithQuery: url.pathname + url.search,
          body: body ?? new Uint8Array(),
          nowMs: deps.clock.now().getTime(),
        },
        run,
      ),
    )
  } catch (error) {
    if (!isAppError(error)) throw error
    const headers: Record<string, string> =
      error._tag === 'InsufficientScopeError'
        ? { 'www-authenticate': insufficientScopeChallenge(metadataUrl, error.challengeScope) }
        : {}
    return respond(errorResponse(error, headers))
  }
}

/**
 * Refuses an MCP message whose tools/call needs a scope the token lacks, before the MCP server sees it:
 * an HTTP 403 whose challenge names the granted scopes plus the missing ones, so the client can step up
 * without losing what it had. A body that is not JSON is left to the MCP transport's parse error.
 */
function requireToolScopes(principal: Principal, body: Uint8Array): void {
  let message: unknown
  try {
    message = JSON.parse(new TextDecoder().decode(body))
  } catch {
    return
  }
  const missing = scopesNeededFor(message).filter((scope) => !principal.scopes.includes(scope))
  // offline_access is no resource scope, but a client re-authorizing without it would lose its refresh token.
  const held = principal.offlineAccess ? [...principal.scopes, 'offline_access'] : principal.scopes
  if (missing.length > 0) throw new InsufficientScopeError(missing.join(' '), stepUpScope(held, missing))
}

async function readJsonBody(request: Request): Promise<Uint8Array> {
  const body = await readBodyCapped(request)
  requireJsonContentType(request)
  requireShallowJson(body)
  return body
}

/** Hands the (already read) request on to Elysia, with the principal for the route to find. */
function forward(
  app: Elysia,
  request: Request,
  body: Uint8Array | null,
  contentType: string | null,
  principals: WeakMap<Request, Principal>,
  principal?: Principal,
): Promise<Response> {
  // Nothing was read and nothing needs retyping: the request goes on as it came.
  if (body === null && contentType === null) {
    if (principal) principals.set(request, principal)
    return app.handle(request)
  }
  const headers = new Headers(request.headers)
  // Media types are case-insensitive and `+json` types are JSON; Elysia parses only a literal
  // `application/json`, so the type checked before is handed on in that form.
  if (contentType) headers.set('content-type', contentType)
  const inner = new Request(request.url, {
    method: request.method,
    headers,
    body: body && body.byteLength > 0 ? (body as Uint8Array<ArrayBuffer>) : null,
  })
  if (principal) principals.set(inner, principal)
  return app.handle(inner)
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  return response
}

/** `/mcp` tokens are for the MCP endpoint only; everything else is the REST resource (docs/security.md#credentials). */
export function audienceFor(baseUrl: string, path: string): string {
  return isMcpPath(path) ? `${baseUrl}/mcp` : baseUrl
}

function rateLimitRefusal(
  style: RefusalStyle,
  limit: RateLimitDecision,
  windowSeconds = IP_LIMIT_WINDOW_SECONDS,
): Response {
  const message = `Rate limit of ${limit.limit} requests per ${windowSeconds} s exceeded; retry in ${limit.resetSeconds} s`
  if (style === 'oauth') return oauthJson(429, { error: 'rate_limit_exceeded', error_description: message })
  if (style === 'html') {
    const body = messagePage({ heading: 'Too many attempts', text: `${message}.` })
    return new Response(layout({ title: 'Too many attempts', body }), { status: 429, headers: HTML_HEADERS })
  }
  return errorResponse(new RateLimitExceededError(message))
}

/** Wraps the app with the guard, a request id and one structured log line per request (no credentials). */
export function createRequestHandler(
  deps: AppDeps,
  app: Elysia,
  principals: WeakMap<Request, Principal>,
): RequestHandler {
  // Read off the routes on first use, when every route is registered.
  let rules: EndpointRule[] | undefined
  const limiter = new SharedRateLimiter(deps.db, deps.clock, deps.log)
  return async (request, connection) => {
    const started = performance.now()
    const requestId = uuidv7(Date.now(), deps.random)
    let outcome: Outcome
    let failure: unknown
    let path = '?'
    try {
      const url = new URL(request.url)
      path = url.pathname
      // Only per-IP limits need the address; asking the socket for it costs on every other request.
      const clientIp = () => effectiveClientIp(request, socketAddressOf(request, connection), deps.config.trustProxy)
      rules ??= endpointRulesOf((app as unknown as { routes: Parameters<typeof endpointRulesOf>[0] }).routes)
      outcome = await guard(deps, app, rules, principals, limiter, request, url, clientIp)
    } catch (error) {
      failure = error
      outcome = { response: jsonResponse(500, INTERNAL_ERROR_BODY), principal: null }
    }
    const { response, principal } = outcome
    response.headers.set('x-request-id', requestId)
    // Answers are personal unless a route says otherwise (metadata, JWKS and docs assets do), and a
    // browser must never sniff a JSON body into something it runs (docs/security.md#response-headers).
    if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store')
    response.headers.set('x-content-type-options', 'nosniff')
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
