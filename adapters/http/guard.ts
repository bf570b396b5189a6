import { type DocumentDecoration, Elysia, type HTTPHeaders, status } from 'elysia'
import { requireScope, requireScopes } from '../../core/auth/scopes.ts'
import {
  isAppError,
  InsufficientScopeError,
  OriginNotAllowedError,
  PayloadTooLargeError,
  RateLimitExceededError,
  UnauthorizedError,
  ValidationError,
} from '../../core/errors.ts'
import { requireShallowJson } from '../../core/limits/json-depth.ts'
import { validateIdempotencyKey } from '../../core/limits/idempotency.ts'
import { MCP_DEFAULT_SCOPE, scopesNeededFor, stepUpScope } from '../../core/mcp/tools.ts'
import type { Principal, Scope } from '../../core/types.ts'
import type { AppDeps } from '../app/deps.ts'
import { logUnexpected } from '../app/unexpected.ts'
import { type BrowserSession, holdCookie, type PageVisitor, type WebSession } from './browser-session.ts'
import { STATUS_BY_TAG } from './errors.ts'
import { MAX_BODY_BYTES, readBodyCapped, readForm, requireJsonContentType, tooLarge } from './body.ts'
import { PAGE_BODY_MAX_BYTES } from '../../core/reading/page-limits.ts'
import { insufficientScopeChallenge, resolveCredential, unauthorizedChallenge } from './credentials.ts'
import {
  claimIdempotency,
  type IdempotencyClaim,
  NO_REPLAY_HEADER,
  REPLAY_WITHOUT_HEADER,
  type ReplayRule,
  settleIdempotency,
} from './idempotency.ts'
import { isAllowedMcpOrigin, MCP_CORS_HEADERS } from './mcp-origin.ts'
import { noteCaller, pathWithQueryOf } from './pipeline.ts'
import {
  IP_LIMIT_WINDOW_SECONDS,
  type IpLimitFormat,
  type IpRefusals,
  limitsFor,
  overLimitMessage,
  rateLimitHeaders,
  RateLimitRefusal,
} from './limits.ts'

/**
 * The web app's answers that the page options give (web/page-replies.ts makes them, app.ts hands them in:
 * the guard sits below the web pages and does not import them).
 */
export interface PageAnswers {
  formExpired(visitor: PageVisitor, back: string): Response
  toSignIn(visitor: PageVisitor): Response
  refused(visitor: PageVisitor, status: number, text: string): Response
  failed(visitor: PageVisitor): Response
  /** Where a refused form's "Reload the form" leads. */
  formPageOf(path: string): string
}

/** Who may call a route that takes a credential: holders of one scope, or any valid credential. */
export type Access = Scope | 'any-credential'

/**
 * A route's `auth`: who may call it, and for a route that takes a page (`html`, docs/reading.md#page-capture)
 * `pageBody: true`, which lifts its body cap to 5 MiB for bodies that do carry one.
 */
export type AuthOption =
  | Access
  | { scope: Access; pageBody: true }
  /**
   * A route that needs several scopes (all of them); with `file`, its body is a file (an import) up to
   * `file.bytes`, read raw, and a larger one is refused with `file.overCap()` (the route's own typed error).
   */
  | { scopes: readonly Scope[]; file?: { bytes: number; overCap: () => Error } }

/** A body that is not JSON, handed to the MCP route so it can answer with JSON-RPC's own parse error. */
export const NOT_JSON: unique symbol = Symbol('not JSON')

/**
 * Elysia's built-in JSON parser by name, listed after the guard's own body step: it never runs (that step
 * always answers first), but it is how @elysiajs/openapi learns the body is `application/json`.
 *
 * The one cast the guard keeps, checked against Elysia 1.4.30 and @elysiajs/openapi 1.4.16: the document
 * reads a request body's media types only from parser *names* in a route's `parse` list (a function
 * contributes none, and an empty list renders `content: {}`); Elysia's runtime accepts names in a macro's
 * `parse` list, but its macro types list only functions. A route's own `parse: 'json'` is no way out: it
 * replaces the macro's list instead of joining it, and the guard's body step would never run.
 */
const JSON_MEDIA_TYPE = 'json' as unknown as (context: GuardContext) => Promise<unknown>

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

// What admission learned about a request, kept on Elysia's per-request context between its hooks.
const ADMITTED = Symbol('admitted')
// Set once the request is counted against its route's per-IP limit, whichever hook came first.
const IP_COUNTED = Symbol('IP counted')
// A page's visitor, once resolved: it marks the request as a page's, whose errors are pages too.
const PAGE = Symbol('page')
// The route's `idempotent` option: its form post honours Idempotency-Key.
const IDEMPOTENT_FORM = Symbol('idempotent form')
interface Admission {
  principal: Principal
  /** The body as received, for the Idempotency-Key fingerprint; null until read. */
  raw: Uint8Array | null
  claim: IdempotencyClaim | null
}
export interface GuardContext {
  request: Request
  path: string
  set: { headers: HTTPHeaders; status?: number | string }
  [ADMITTED]?: Admission
  [IP_COUNTED]?: true
  [PAGE]?: PageVisitor & { form: URLSearchParams | null; claim?: IdempotencyClaim | null }
  [IDEMPOTENT_FORM]?: true
}

/** The options of a web page's route that decide what the guard resolves for it. */
interface PageRoute {
  signedIn: boolean
  form: boolean
}

/** The request is a web page's (the guard resolved its visitor): its errors are answered as pages. */
export const isPageRequest = (context: object): boolean => PAGE in context

/** Where a route's credential is for: the REST API, or the MCP endpoint (its own audience and resource). */
type Resource = 'rest' | 'mcp'

/**
 * The request guard, as Elysia macros a route states in its options (docs/security.md#scopes):
 * - `auth: scope | 'any-credential'` gives the handler a typed `principal` (a route without it has none,
 *   so forgetting the check does not compile), and writes the route's `security` into OpenAPI;
 * - `mcp: true` does the same for `/mcp`, with its own audience, CORS and per-tool scopes;
 * - `public: true` is a route anyone may call; with a body schema its body gets the same JSON rules;
 * - `ipLimit: 'api' | 'oauth' | 'page'` gives a route its own per-client-IP bucket (limits.ts), refused
 *   past the limit in that format.
 * The per-IP limit first, then credential, rate limit and scope are checked before the body is read (in
 * `parse` for requests with a body, in `transform` for the rest, and for routes that read their own body,
 * `parse: 'none'`), so a stranger learns nothing about schemas; then the body cap, content type and
 * nesting limit; then, after validation, Idempotency-Key. `refusals` are the per-IP refusal formats.
 *
 * The web app's pages (docs/web.md#pages) state what they need of the browser's session instead:
 * - `session: true` gives the handler `session` (the signed-in person, or null) and `csrf` (the token for
 *   its forms; a visitor without the cookie gets one with the answer);
 * - `signedIn: true` does the same for a signed-in person's page, and sends anyone else to sign in (a GET
 *   comes back to its address after it, anything else to `/`);
 * - `form: true` reads the form (urlencoded, capped at 64 KiB) into `form`, and answers a missing or wrong
 *   CSRF field with the 403 "Form expired" page before anything else, sign-in redirect included.
 * The session is resolved once per request, after the per-IP limit and the params; on such a route an app
 * error is the "Request refused" page with its status, and anything else the logged 500 page.
 */
export function guard(deps: AppDeps, refusals: IpRefusals, browser: BrowserSession, replies: PageAnswers) {
  const limits = limitsFor(deps)
  const baseUrl = deps.config.baseUrl

  /**
   * A page's visitor, resolved once per request (a route's several page options share it): the session,
   * the CSRF token, the form checked against it, and the signed-out visitor sent to sign in, in that order.
   * An answer instead of a visitor when the request stops here.
   */
  async function visitOf(
    c: GuardContext,
    route: PageRoute,
  ): Promise<{ session: WebSession | null; csrf: string; form: URLSearchParams | null } | Response> {
    const known = c[PAGE]
    if (known) return known
    const csrf = browser.csrfOf(c.request)
    if (csrf.setCookie) holdCookie(c.request, csrf.setCookie)
    const session = await browser.sessionOf(c.request)
    const visitor = {
      request: c.request,
      set: c.set,
      session,
      csrf: csrf.token,
      form: null as URLSearchParams | null,
      claim: null as IdempotencyClaim | null,
    }
    c[PAGE] = visitor
    if (route.form) {
      visitor.form = await readForm(c.request)
      if (!browser.isValidCsrf(c.request, visitor.form.get('csrf')))
        return replies.formExpired(visitor, replies.formPageOf(new URL(c.request.url).pathname))
    }
    if (route.signedIn && !session) return replies.toSignIn(visitor)
    // After the CSRF check and sign-in, as on the API after validation: a refused post never holds a key.
    const key = c.request.headers.get('idempotency-key')
    if (c[IDEMPOTENT_FORM] && session && key !== null && c.request.method === 'POST') {
      validateIdempotencyKey(key)
      const outcome = await claimIdempotency(deps.db, {
        // The session's own credential, as when it calls the API (credentials.ts): one scope for both.
        credentialId: `session:${session.tokenHash.slice(0, 32)}`,
        userId: session.userId,
        rawKey: key,
        method: 'POST',
        pathWithQuery: pathWithQueryOf(c.request.url),
        // The form as read (the body is consumed by then): the same fields in the same order are the same request.
        body: new TextEncoder().encode(visitor.form?.toString() ?? ''),
        nowMs: deps.clock.now().getTime(),
      })
      if ('replay' in outcome) {
        // Also on `set`: an answer without a body (204) is rebuilt from it on the way out.
        c.set.headers['idempotent-replayed'] = 'true'
        return outcome.replay
      }
      visitor.claim = outcome.claim
    }
    return visitor
  }

  /** The hooks of a page option; `resolve` picks what that option hands the handler. */
  function pageHooks<T>(
    pick: (visitor: { session: WebSession | null; csrf: string; form: URLSearchParams | null }) => T,
  ) {
    const route: PageRoute = { signedIn: false, form: false }
    return {
      introspect(hook: Record<string, unknown>) {
        route.signedIn = hook.signedIn === true
        route.form = hook.form === true
      },
      async resolve(c: GuardContext) {
        const visitor = await visitOf(c, route)
        // An early answer (the 403 form page, the sign-in redirect), as the route's answer.
        return visitor instanceof Response ? status(visitor.status, visitor) : pick(visitor)
      },
      error(c: GuardContext & { error: unknown }) {
        const visitor = c[PAGE]
        if (!visitor) return
        const error = c.error
        if (isAppError(error)) return replies.refused(visitor, STATUS_BY_TAG[error._tag], error.message)
        logUnexpected(deps.log, 'web page failed', error, { path: new URL(c.request.url).pathname })
        return replies.failed(visitor)
      },
      // An idempotent form's answer is kept for replay (errors included, as the pages they became).
      async mapResponse(c: GuardContext & { responseValue: unknown }) {
        const visitor = c[PAGE]
        const claim = visitor?.claim
        if (!visitor || !claim) return
        visitor.claim = null
        return settleIdempotency(deps.db, claim, asResponse(c.responseValue, c.set), { keep: true, without: [] })
      },
    }
  }

  /** Counts the request against its route's per-IP limit once, before anything else of it is looked at. */
  async function countIp(c: GuardContext, format: IpLimitFormat | undefined): Promise<void> {
    if (format === undefined || c[IP_COUNTED]) return
    c[IP_COUNTED] = true
    const limit = await limits.ip(c.request, c.path)
    Object.assign(c.set.headers, rateLimitHeaders(limit))
    if (!limit.allowed) throw new RateLimitRefusal(refusals[format](overLimitMessage(limit, IP_LIMIT_WINDOW_SECONDS)))
  }

  async function admit(c: GuardContext, access: Access | readonly Scope[], resource: Resource): Promise<Admission> {
    const known = c[ADMITTED]
    if (known) return known
    const mcp = resource === 'mcp'
    if (mcp) {
      Object.assign(c.set.headers, MCP_CORS_HEADERS)
      // Before the credential: the MCP transport answers a foreign Origin with 403 whatever else it sends.
      if (!isAllowedMcpOrigin(c.request.headers.get('origin'), deps.config))
        throw new OriginNotAllowedError(
          'This Origin may not call /mcp: a browser-based MCP client must run on this service, on a loopback address, or on an origin listed in MCP_ALLOWED_ORIGINS',
        )
    }
    const metadataUrl = `${baseUrl}/.well-known/oauth-protected-resource${mcp ? '/mcp' : ''}`
    const credential = await resolveCredential(deps, browser, c.request, mcp ? `${baseUrl}/mcp` : baseUrl)
    if (credential.kind !== 'ok') {
      const sent = credential.kind === 'invalid'
      // On /mcp the challenge also hints which scopes to ask for: MCP clients use it for their first authorization.
      c.set.headers['www-authenticate'] = unauthorizedChallenge(metadataUrl, sent, mcp ? MCP_DEFAULT_SCOPE : null)
      throw new UnauthorizedError(
        sent
          ? 'The credential is invalid, expired or revoked'
          : 'This call needs a credential: Authorization: Bearer <token>',
        sent,
      )
    }
    const principal = credential.principal
    const limit = await limits.credential(principal)
    Object.assign(c.set.headers, rateLimitHeaders(limit))
    noteCaller(c.request, { userId: principal.userId, kind: principal.kind })
    if (!limit.allowed) throw new RateLimitExceededError(overLimitMessage(limit, deps.config.rateLimitWindowSeconds))
    if (typeof access !== 'string') refuseOutOfScope(c, metadataUrl, () => requireScopes(principal.scopes, access))
    else if (access !== 'any-credential') refuseOutOfScope(c, metadataUrl, () => requireScope(principal.scopes, access))
    // A malformed key is refused before the body is read, like every other header problem.
    const key = c.request.headers.get('idempotency-key')
    if (key !== null && !mcp && MUTATING.has(c.request.method)) validateIdempotencyKey(key)
    const admission: Admission = { principal, raw: null, claim: null }
    c[ADMITTED] = admission
    return admission
  }

  function refuseOutOfScope(c: GuardContext, metadataUrl: string, check: () => void): void {
    try {
      check()
    } catch (error) {
      if (error instanceof InsufficientScopeError)
        c.set.headers['www-authenticate'] = insufficientScopeChallenge(metadataUrl, error.challengeScope)
      throw error
    }
  }

  /** The hooks of a route that takes a credential; `json` is learnt from the route's own body schema. */
  function credentialHooks(
    access: Access | readonly Scope[],
    resource: Resource,
    pageBody = false,
    file: { bytes: number; overCap: () => Error } | null = null,
  ) {
    const route: { json: boolean; ipLimit?: IpLimitFormat } = { json: false }
    return {
      introspect(hook: Record<string, unknown>) {
        route.json = hook.body !== undefined
        route.ipLimit = hook.ipLimit as IpLimitFormat | undefined
      },
      parse: [
        async (c: GuardContext) => {
          await countIp(c, route.ipLimit)
          const admission = await admit(c, access, resource)
          const raw = file
            ? await readBodyCapped(c.request, file.bytes).catch((error) => {
                throw error instanceof PayloadTooLargeError ? file.overCap() : error
              })
            : await readBodyCapped(c.request, pageBody ? PAGE_BODY_MAX_BYTES : MAX_BODY_BYTES)
          admission.raw = raw
          if (!route.json) return raw
          if (resource === 'mcp') return mcpMessage(c.request, raw, admission.principal, baseUrl, c.set.headers)
          requireJsonContentType(c.request)
          requireShallowJson(raw)
          const body = parseJson(raw)
          // Past 64 KiB only a body that carries a page may go on.
          if (raw.byteLength > MAX_BODY_BYTES && !carriesPage(resource, body)) throw tooLarge()
          if (body === NOT_JSON) throw notJson()
          return body
        },
        JSON_MEDIA_TYPE,
      ],
      async transform(c: GuardContext) {
        if (route.ipLimit !== undefined) await countIp(c, route.ipLimit)
        await admit(c, access, resource)
      },
      resolve: (c: GuardContext) => ({ principal: c[ADMITTED]!.principal }),
      // After validation: a body that fails its schema never claims a key.
      // Not async where nothing waits (a GET, a request without a key): it runs on every request of the
      // route, and an async function with nothing to wait for still costs a promise and a turn.
      beforeHandle(c: GuardContext) {
        const key = c.request.headers.get('idempotency-key')
        if (key === null || resource === 'mcp' || !MUTATING.has(c.request.method)) return
        return claimKey(c, c[ADMITTED]!, key)
      },
      // Runs for every outcome, errors included (as the Response the error handler made of them).
      mapResponse(c: GuardContext & { responseValue: unknown }) {
        const without = c.set.headers[REPLAY_WITHOUT_HEADER]
        const keep = !(NO_REPLAY_HEADER in c.set.headers)
        if (!keep) delete c.set.headers[NO_REPLAY_HEADER]
        if (without !== undefined) delete c.set.headers[REPLAY_WITHOUT_HEADER]
        const claim = c[ADMITTED]?.claim
        if (!claim) return
        c[ADMITTED]!.claim = null
        const rule: ReplayRule = keep
          ? { keep: true, without: typeof without === 'string' ? without.split(',') : [] }
          : { keep: false }
        return settleIdempotency(deps.db, claim, asResponse(c.responseValue, c.set), rule)
      },
      detail: securityDetail(access),
    }

    async function claimKey(c: GuardContext, admission: Admission, key: string): Promise<Response | undefined> {
      const outcome = await claimIdempotency(deps.db, {
        credentialId: admission.principal.credentialId,
        userId: admission.principal.userId,
        rawKey: key,
        method: c.request.method,
        pathWithQuery: pathWithQueryOf(c.request.url),
        body: admission.raw ?? new Uint8Array(),
        nowMs: deps.clock.now().getTime(),
      })
      if ('replay' in outcome) {
        // Also on `set`: an answer without a body (204) is rebuilt from it on the way out.
        c.set.headers['idempotent-replayed'] = 'true'
        return outcome.replay
      }
      admission.claim = outcome.claim
      return undefined
    }
  }

  return new Elysia().macro({
    auth: (option: AuthOption) =>
      typeof option === 'string'
        ? credentialHooks(option, 'rest')
        : 'scopes' in option
          ? credentialHooks(option.scopes, 'rest', false, option.file ?? null)
          : credentialHooks(option.scope, 'rest', true),
    mcp: (_: true) => credentialHooks('any-credential', 'mcp', true),
    public: (_: true) => {
      const route: { json: boolean; ipLimit?: IpLimitFormat } = { json: false }
      return {
        introspect(hook: Record<string, unknown>) {
          route.json = hook.body !== undefined
          route.ipLimit = hook.ipLimit as IpLimitFormat | undefined
        },
        parse: [
          async (c: GuardContext) => {
            // Elysia runs one macro's parse list only, so this one counts a route's per-IP limit first.
            await countIp(c, route.ipLimit)
            if (!route.json) return
            const raw = await readBodyCapped(c.request)
            requireJsonContentType(c.request)
            requireShallowJson(raw)
            const body = parseJson(raw)
            if (body === NOT_JSON) throw notJson()
            return body
          },
          JSON_MEDIA_TYPE,
        ],
        detail: { security: [] },
      }
    },
    session: (_: true) => pageHooks(({ session, csrf }) => ({ session, csrf })),
    signedIn: (_: true) => pageHooks(({ session, csrf }) => ({ session: session!, csrf })),
    form: (_: true) => pageHooks(({ form, csrf }) => ({ form: form!, csrf })),
    // A signed-in person's form post that honours Idempotency-Key (docs/web.md#offline): marked before the
    // page options resolve the visitor, which claims the key after the CSRF check (visitOf).
    idempotent: (_: true) => ({
      transform(c: GuardContext) {
        c[IDEMPOTENT_FORM] = true
      },
    }),
    // A route's own per-IP bucket. Counted here for a route without a body step of the guard's (its
    // body unread: `parse: 'none'`, or none at all); the guard's body step counts it first otherwise.
    ipLimit: (format: IpLimitFormat) => ({
      // Marked with its format, so the built app's routes say which are limited (ipLimitOf).
      transform: Object.assign(
        async (c: GuardContext) => {
          await countIp(c, format)
        },
        { ipLimit: format },
      ),
    }),
  })
}

/** The per-IP limit a route of the built app states (`ipLimit`), read off its hooks (for tests and docs). */
export function ipLimitOf(route: { hooks?: { transform?: unknown } }): IpLimitFormat | undefined {
  const hooks = Array.isArray(route.hooks?.transform) ? (route.hooks.transform as { fn?: unknown }[]) : []
  for (const hook of hooks) {
    const format = (hook.fn as { ipLimit?: IpLimitFormat } | undefined)?.ipLimit
    if (format) return format
  }
  return undefined
}

/** A capture with `html`: a REST body with an `html` string, or an MCP `save_url` call with one. */
function carriesPage(resource: Resource, body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false
  if (resource === 'rest') return typeof (body as { html?: unknown }).html === 'string'
  const call = body as { method?: unknown; params?: { name?: unknown; arguments?: { html?: unknown } } }
  return (
    call.method === 'tools/call' && call.params?.name === 'save_url' && typeof call.params.arguments?.html === 'string'
  )
}

/** OpenAPI's `security` for a route, and the scopes it needs; the document builder words the sentence. */
function securityDetail(access: Access | readonly Scope[]): DocumentDecoration {
  const scopes = typeof access !== 'string' ? [...access] : access === 'any-credential' ? [] : [access]
  // Either scheme: an API key or OAuth access token as a bearer, or an OAuth client asking for the scope.
  const detail: DocumentDecoration = { security: [{ bearer: scopes }, { oauth2: scopes }] }
  // OpenAPI allows `x-` extensions on an operation; Elysia's type for `detail` does not list them.
  return Object.assign(detail, { 'x-required-scopes': scopes })
}

/**
 * `/mcp`'s body step once its body is read (capped at 5 MiB), for the guard and for the direct MCP path
 * (mcp/direct-post.ts) alike: the content type, the nesting limit, the JSON (a body that is not JSON is
 * handed on as NOT_JSON, for JSON-RPC's own parse error), past 64 KiB only a save_url that carries a page,
 * and the scopes of every tools/call in it, refused with the step-up challenge (set on `headers`) before the
 * MCP server sees it.
 */
export function mcpMessage(
  request: Request,
  raw: Uint8Array,
  principal: Principal,
  baseUrl: string,
  headers: Record<string, string | number>,
): unknown {
  requireJsonContentType(request)
  requireShallowJson(raw)
  const body = parseJson(raw)
  if (raw.byteLength > MAX_BODY_BYTES && !carriesPage('mcp', body)) throw tooLarge()
  if (body === NOT_JSON) return body
  try {
    requireToolScopes(principal, body)
  } catch (error) {
    if (error instanceof InsufficientScopeError)
      headers['www-authenticate'] = insufficientScopeChallenge(
        `${baseUrl}/.well-known/oauth-protected-resource/mcp`,
        error.challengeScope,
      )
    throw error
  }
  return body
}

const decoder = new TextDecoder()
function parseJson(raw: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(raw))
  } catch {
    return NOT_JSON
  }
}

const notJson = () => new ValidationError('body: not valid JSON')

/**
 * Refuses an MCP message whose tools/call needs a scope the token lacks, before the MCP server sees it:
 * a 403 whose challenge names the granted scopes plus the missing ones, so the client can step up
 * without losing what it had.
 */
function requireToolScopes(principal: Principal, message: unknown): void {
  const missing = scopesNeededFor(message).filter((scope) => !principal.scopes.includes(scope))
  // offline_access is no resource scope, but a client re-authorizing without it would lose its refresh token.
  const held = principal.offlineAccess ? [...principal.scopes, 'offline_access'] : principal.scopes
  if (missing.length > 0) throw new InsufficientScopeError(missing.join(' '), stepUpScope(held, missing))
}

/**
 * The answer a handler gave, as the Response Elysia would send, so it can be stored for replay. Headers
 * a route set through `set` (a Location, a Link) are part of the answer.
 */
function asResponse(value: unknown, set: { status?: number | string; headers: Record<string, string | number> }) {
  const response =
    value instanceof Response
      ? value
      : value === undefined || value === null
        ? new Response(null, { status: typeof set.status === 'number' ? set.status : 200 })
        : new Response(JSON.stringify(value), {
            status: typeof set.status === 'number' ? set.status : 200,
            headers: { 'content-type': 'application/json' },
          })
  for (const [name, value] of Object.entries(set.headers))
    if (!response.headers.has(name)) response.headers.set(name, String(value))
  return response
}
