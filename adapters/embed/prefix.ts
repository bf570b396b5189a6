import type { RequestHandler } from '../runtime/connection.ts'

/** The discovery documents a client looks for at the host's root, with the issuer's or resource's path appended. */
const ROOT_WELL_KNOWN = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  '/.well-known/oauth-protected-resource',
]

/**
 * Serves the service under the path of its base URL (docs/embedding.md#mounting). A request may arrive with
 * the prefix (`/readlater/v1/…`, from `Bun.serve` or a proxy that forwards the whole path) or without it
 * (`/v1/…`, from a framework's `mount`, which strips it): both reach `/v1/…`. The discovery documents RFC 8414
 * and RFC 9728 place at the host's root with the path appended
 * (`/.well-known/oauth-authorization-server/readlater/api/auth`) reach theirs. Without a path in the base
 * URL the handler is returned as it is.
 */
export function mountedAt(baseUrl: string, handler: RequestHandler): RequestHandler {
  const prefix = new URL(baseUrl).pathname.replace(/\/+$/, '')
  if (prefix === '') return handler
  return (request, connection) => {
    const url = new URL(request.url)
    const path = url.pathname
    let inner = path
    if (path === prefix || path.startsWith(`${prefix}/`)) inner = path.slice(prefix.length) || '/'
    else {
      for (const name of ROOT_WELL_KNOWN) {
        const rest = path.slice(name.length + prefix.length)
        if (path.startsWith(name + prefix) && (rest === '' || rest.startsWith('/'))) inner = name + rest
      }
    }
    if (inner === path) return handler(request, connection)
    url.pathname = inner
    return handler(new Request(url, request), connection)
  }
}
