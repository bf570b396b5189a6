import { beforeAll, describe, expect, test } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness.ts'
import { ENDPOINT_RULES, ENDPOINTS, PLACEHOLDER_IDS, type EndpointAccess, type EndpointRule } from './endpoint-table.ts'

// Each route states who may call it once, next to its handler, in its `auth`, `mcp` or `public` option
// (adapters/http/guard.ts, docs/security.md#scopes). The option leaves its mark on the route's OpenAPI
// detail; this reads the marks back and checks them against the documented table, then checks over HTTP
// that nothing outside the table is answered as if it were in it.

interface RouteLike {
  method: string
  path: string
  hooks?: { body?: unknown; detail?: Record<string, unknown> }
}

/** The access a route declared, or null for routes that handle their own callers (pages, OAuth, documents). */
function declaredRules(routes: readonly RouteLike[]): EndpointRule[] {
  return routes.flatMap((route) => {
    const detail = route.hooks?.detail ?? {}
    const security = detail.security as unknown[] | undefined
    if (!Array.isArray(security)) return []
    const scopes = (detail['x-required-scopes'] as EndpointAccess[] | undefined) ?? []
    const access = (
      security.length === 0 ? 'public' : scopes.length > 0 ? scopes.join(' ') : 'any-credential'
    ) as EndpointAccess
    return [
      {
        method: route.method as EndpointRule['method'],
        pattern: route.path,
        access,
        jsonBody: route.hooks?.body !== undefined,
      },
    ]
  })
}

let h: Harness
let rules: EndpointRule[]
let key: string
beforeAll(async () => {
  h = await createHarness()
  rules = declaredRules((h.server.app as unknown as { routes: RouteLike[] }).routes)
  key = await (await h.user()).key()
})

const name = (rule: EndpointRule): string => `${rule.method} ${rule.pattern}`

describe('route access', () => {
  test('the routes declare exactly the documented table: every guarded route, its access, its body', () => {
    expect(rules.map(name).sort()).toEqual(ENDPOINT_RULES.map(name).sort())
    expect([...rules].sort((a, b) => name(a).localeCompare(name(b)))).toEqual(
      [...ENDPOINT_RULES].sort((a, b) => name(a).localeCompare(name(b))),
    )
  })

  test('pages, OAuth endpoints and documents declare nothing: they handle their own callers', () => {
    for (const pattern of [
      '/',
      '/settings',
      '/sign-in',
      '/api/auth/oauth2/token',
      '/openapi.json',
      '/.well-known/oauth-protected-resource',
    ]) {
      expect(rules.some((rule) => rule.pattern === pattern)).toBe(false)
    }
  })

  test.each(
    ENDPOINTS.filter((endpoint) => endpoint.access !== 'public').map((endpoint) => [
      endpoint.method,
      endpoint.path(PLACEHOLDER_IDS),
    ]),
  )('%s %s without a credential answers 401 before anything else', async (method, path) => {
    const reply = await h.call(method, path, { raw: '{', headers: { 'content-type': 'text/plain' }, unchecked: true })
    expect(reply.status).toBe(401)
    expect(reply.body._tag).toBe('Unauthorized')
  })
})

describe('paths and methods outside the table', () => {
  test.each([
    '/v1',
    '/v2/folders',
    '/v1/folders/',
    '/v1/saved-items/',
    '/v1/saved-items//open',
    '/v1/saved-items/a/b/open',
    '/v1/saved-items/a/archive',
    '/V1/folders',
    '/v1/folders/a/b',
    '/mcp/',
    '/mcp/x',
    '/MCP',
  ])('%s answers 404 RouteNotFoundError to a valid credential', async (path) => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const reply = await h.call(method, path, { token: key })
      expect([method, reply.status, reply.body?._tag]).toEqual([method, 404, 'RouteNotFoundError'])
    }
  })

  test.each([
    ['GET', '/v1/captures'],
    ['POST', '/v1/saved-items'],
    ['GET', '/v1/saved-items/a/open'],
    ['DELETE', '/v1/folders'],
    ['PUT', '/v1/folders/a'],
    ['PATCH', '/v1/saved-items/a'],
    ['GET', '/connect/authorize'],
    ['POST', '/v1/me'],
  ])('%s %s (a wrong method) answers 404 RouteNotFoundError', async (method, path) => {
    const reply = await h.call(method, path, { token: key })
    expect(reply.status).toBe(404)
    expect(reply.body._tag).toBe('RouteNotFoundError')
  })
})
