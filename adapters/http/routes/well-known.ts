import { Elysia } from 'elysia'
import {
  authorizationServerMetadata,
  protectedResourceMetadata,
  resourceIdentifiers,
} from '../../../core/oauth/metadata.ts'
import { CORS_HEADERS, preflight } from '../oauth-http.ts'
import type { RouteContext } from '../route-context.ts'

/**
 * Where clients look for the authorization server: RFC 8414 (path inserted after the host), OpenID
 * discovery in both spellings, and the bare RFC 8414 path some MCP clients try first. One document.
 */
export const AUTHORIZATION_SERVER_METADATA_PATHS = [
  '/.well-known/oauth-authorization-server/api/auth',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration/api/auth',
  '/api/auth/.well-known/openid-configuration',
] as const

export const wellKnownRoutes = ({ deps }: RouteContext) => {
  const hidden = { detail: { hide: true } }
  const base = deps.config.baseUrl
  const [api, mcp] = resourceIdentifiers(base)
  const document = (body: unknown) => () =>
    new Response(JSON.stringify(body), {
      headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300', ...CORS_HEADERS },
    })
  const serverMetadata = document(authorizationServerMetadata(base))

  const [rfc8414, rfc8414Bare, openIdInserted, openIdAppended] = AUTHORIZATION_SERVER_METADATA_PATHS
  return new Elysia()
    .get('/.well-known/oauth-protected-resource', document(protectedResourceMetadata(base, api)), hidden)
    .options('/.well-known/oauth-protected-resource', () => preflight('GET'), hidden)
    .get('/.well-known/oauth-protected-resource/mcp', document(protectedResourceMetadata(base, mcp)), hidden)
    .options('/.well-known/oauth-protected-resource/mcp', () => preflight('GET'), hidden)
    .get(rfc8414, serverMetadata, hidden)
    .options(rfc8414, () => preflight('GET'), hidden)
    .get(rfc8414Bare, serverMetadata, hidden)
    .options(rfc8414Bare, () => preflight('GET'), hidden)
    .get(openIdInserted, serverMetadata, hidden)
    .options(openIdInserted, () => preflight('GET'), hidden)
    .get(openIdAppended, serverMetadata, hidden)
    .options(openIdAppended, () => preflight('GET'), hidden)
}
