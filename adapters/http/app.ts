import { describeFailure } from '../app/unexpected.ts'
import { Elysia } from 'elysia'
import { isAppError, RouteNotFoundError, ValidationError } from '../../core/errors.ts'
import { keepUndecodableParams } from './raw-params.ts'
import type { AppDeps } from '../app/deps.ts'
import { sendMessage } from '../webhooks/send.ts'
import { checkWebhookTarget } from '../webhooks/targets.ts'
import { errorResponse, internalError, responseSchemaFailure } from './errors.ts'
import { createRequestHandler } from './request-handler.ts'
import { directList } from './direct-list.ts'
import { directMcp } from './mcp/direct-post.ts'
import { throughPipeline } from './pipeline.ts'
import { guard, isPageRequest } from './guard.ts'
import { browserSession } from './browser-session.ts'
import { ipRefusals, RateLimitRefusal } from './limits.ts'
import type { RequestHandler, ServingHandler } from '../runtime/connection.ts'
import type { RouteContext } from './route-context.ts'
import { accountRoutes } from './routes/account.ts'
import { captureRoutes } from './routes/captures.ts'
import { folderRoutes } from './routes/folders.ts'
import { savedItemRoutes } from './routes/saved-items.ts'
import { highlightRoutes } from './routes/highlights.ts'
import { searchRoutes } from './routes/search.ts'
import { changesRoutes } from './routes/changes.ts'
import { webhookRoutes } from './routes/webhooks.ts'
import { importRoutes } from './routes/imports.ts'
import { openApiDocumentation } from './openapi-info.ts'
import { HTML_HEADERS, layout } from './web/pages/layout.ts'
import { messagePage, tooManyAttemptsPage } from './web/pages/message.ts'
import { buildOpenApiDocument } from './openapi-document.ts'
import { docsRoutes } from './routes/docs.ts'
import { connectRoutes } from './routes/connect.ts'
import { webRoutes } from './web/routes.ts'
import { formPageOf, pageReplies } from './web/page-replies.ts'
import { oauthRoutes } from './routes/oauth.ts'
import { oauthAuthorizeRoutes } from './web/oauth-authorize.ts'
import { wellKnownRoutes } from './routes/well-known.ts'
import { mcpRoutes } from './mcp/endpoint.ts'

interface ValidationIssue {
  path?: string
  message?: string
  schema?: { anyOf?: { const?: unknown }[] }
}

/** The values an enum-like schema (a union of literals, maybe with null) accepts. */
function allowedConstants(schema: unknown): unknown[] {
  const node = schema as { anyOf?: unknown[]; const?: unknown; type?: string }
  if (node.const !== undefined) return [node.const]
  if (node.type === 'null') return [null]
  if (!node.anyOf) return []
  const parts = node.anyOf.map(allowedConstants)
  return parts.every((p) => p.length > 0) ? parts.flat() : []
}

const API_PREFIXES = ['/v1', '/api/', '/connect/', '/.well-known/', '/mcp', '/openapi.json', '/docs/assets/']

function wantsPage(request: Request, path: string): boolean {
  return (
    request.method === 'GET' &&
    (request.headers.get('accept') ?? '').includes('text/html') &&
    !API_PREFIXES.some((prefix) => path === prefix || path.startsWith(prefix))
  )
}

function notFoundPage(): Response {
  const body = messagePage({
    heading: 'Page not found',
    text: 'There is nothing at this address.',
    link: { href: '/', label: 'Go to your queue' },
  })
  return new Response(layout({ title: 'Not found', body }), { status: 404, headers: HTML_HEADERS })
}

/** A validation message that names the field and the rule, never echoing the input back. */
function describeValidation(error: unknown): string {
  const all = (error as { all?: ValidationIssue[] }).all ?? []
  const first = all[0]
  const where = (error as { type?: string }).type ?? 'body'
  if (!first) return `${where}: does not match the schema`
  const path = first.path ? first.path.replace(/^\//, '').replace(/\//g, '.') : ''
  const field = `${where}${path ? `.${path}` : ''}`
  if (first.message === 'Unexpected property') return `${field}: unknown property`
  const allowed = first.schema ? allowedConstants(first.schema) : []
  if (allowed.length) return `${field}: must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`
  return `${field}: ${first.message ?? 'does not match the schema'}`
}

/**
 * Builds the Elysia app: every route (REST, OAuth, connect, the web pages, MCP, OpenAPI and `/docs`), each
 * checked by the request guard its options name, and the typed error answers; every answer gets a request
 * id, the default headers and one log line (pipeline.ts). Serve it through `createServer`, whose request
 * handler hands in the socket address for the per-IP limits.
 */
export function createApp(deps: AppDeps) {
  const browser = browserSession(deps)
  const context: RouteContext = {
    deps,
    guard: guard(deps, ipRefusals(tooManyAttemptsPage), browser, { ...pageReplies(deps.config), formPageOf }),
    browser,
  }
  // normalize: false makes `additionalProperties: false` reject extra fields (400) instead of silently
  // dropping them; strictPath: a trailing `/` is another path (404), as the docs promise.
  const app = new Elysia({ normalize: false, strictPath: true })
  let document: unknown
  return (
    app
      // Around the whole lifecycle, 404s and error answers included: only here is the final answer known
      // (a route's own mapResponse, such as the guard's Idempotency-Key replay store, runs after a global one,
      // and onAfterResponse runs after the answer has gone, without it on errors). Elysia types the wrapped
      // handler as returning a Function; it is the app's fetch, which answers a Response.
      .wrap(
        (handle, request) => () =>
          throughPipeline(deps, request, (r) => handle(r) as unknown as Response | Promise<Response>),
      )
      // Registered before every route: Elysia applies error hooks only to routes added after them.
      .onError({ as: 'global' }, (context) => {
        const { code, error, path, request } = context
        // A web page answers its own errors with a page (the guard's page options), after this.
        if (isPageRequest(context)) return
        if (isAppError(error)) return errorResponse(error)
        // A per-IP refusal comes already in its route's format (limits.ts).
        if (error instanceof RateLimitRefusal) return error.response
        // The guard checks credentials and bodies in Elysia's parse step, which wraps what it throws.
        if (code === 'PARSE' && error.cause instanceof RateLimitRefusal) return error.cause.response
        if (code === 'PARSE' && isAppError(error.cause)) return errorResponse(error.cause)
        // A response that fails its own schema is our bug (say, a corrupt row), not the caller's.
        if (code === 'VALIDATION' && (error as { type?: string }).type === 'response')
          return responseSchemaFailure(deps.log, describeValidation(error))
        if (code === 'VALIDATION') return errorResponse(new ValidationError(describeValidation(error)))
        if (code === 'PARSE') return errorResponse(new ValidationError('body: not valid JSON'))
        if (code === 'NOT_FOUND') {
          // A person following a stale link gets a page; programs (and every API path) get the typed body.
          if (wantsPage(request, path)) return notFoundPage()
          return errorResponse(new RouteNotFoundError(`No route for ${path}`))
        }
        return internalError(
          deps.log,
          'unhandled error',
          describeFailure(error instanceof Error ? error : new Error(String(code))),
        )
      })
      // Before the params' schemas: an id that is not valid percent-encoding is an unknown id, not a 400.
      .onTransform({ as: 'global' }, keepUndecodableParams)
      .use(
        docsRoutes({
          // Built on first request, when every route is registered.
          document: () => (document ??= buildOpenApiDocument(app, deps.config.baseUrl)),
          title: openApiDocumentation(deps.config.baseUrl).info.title,
          baseUrl: deps.config.baseUrl,
        }),
      )
      .use(accountRoutes(context))
      .use(captureRoutes(context))
      .use(savedItemRoutes(context))
      .use(highlightRoutes(context))
      .use(searchRoutes(context))
      .use(changesRoutes(context))
      .use(webhookRoutes(context))
      .use(importRoutes(context))
      .use(folderRoutes(context))
      .use(connectRoutes(context))
      .use(webRoutes(context))
      .use(wellKnownRoutes(context))
      .use(oauthRoutes(context))
      .use(oauthAuthorizeRoutes(context))
      .use(mcpRoutes(context))
  )
}

export interface Server {
  app: ReturnType<typeof createApp>
  /** The whole service as a fetch handler: mount it in Bun.serve, Deno.serve or any Web-standard host. */
  fetch: RequestHandler
  /** The same, answering a Response itself when it can (request-handler.ts), for hosts that take either. */
  handle: ServingHandler
}

export function createServer(given: AppDeps): Server {
  const deps: AppDeps = given.webhookTargets
    ? given
    : { ...given, webhookTargets: { check: checkWebhookTarget, send: sendMessage } }
  const app = createApp(deps)
  const handle = createRequestHandler(deps, app as unknown as Elysia, [directList(deps), directMcp(deps)])
  return { app, fetch: async (request, connection) => handle(request, connection), handle }
}
