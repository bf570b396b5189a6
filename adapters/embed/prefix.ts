import type { ServingHandler } from '../runtime/connection.ts'
import { andThen } from '../../core/at-once.ts'

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
export function mountedAt(baseUrl: string, handler: ServingHandler): ServingHandler {
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
    const forwarded = inner === path ? request : new Request(Object.assign(url, { pathname: inner }), request)
    return andThen(handler(forwarded, connection), (response) => underPrefix(response, prefix))
  }
}

// Attributes of the web app's pages that hold a path of the service: links, forms, images and scripts.
const PAGE_PATH = /(\s(?:href|src|srcset|action|formaction|data-[a-z-]+)=")\/(?!\/)/g
// The manifest's paths (start URL, scope, the share target, icons).
const MANIFEST_PATH = /("(?:start_url|scope|action|src|id)":\s*")\/(?!\/)/g

/**
 * The web app's answers name its paths from the root (`href="/settings"`, `Location: /`): under a prefix they
 * get it, so its pages, forms, redirects and manifest keep working (docs/embedding.md#mounting). JSON answers
 * of the API already carry absolute URLs made from the base URL, and are left as they are.
 */
async function underPrefix(response: Response, prefix: string): Promise<Response> {
  const location = response.headers.get('location')
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim()
  const page = type === 'text/html'
  const manifest = type === 'application/manifest+json'
  const relocated = location !== null && location.startsWith('/') && !location.startsWith('//')
  if (!page && !manifest && !relocated) return response
  const headers = new Headers(response.headers)
  if (relocated) headers.set('location', prefix + location)
  if (!page && !manifest)
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
  const text = (await response.text()).replace(page ? PAGE_PATH : MANIFEST_PATH, `$1${prefix}/`)
  headers.delete('content-length')
  return new Response(text, { status: response.status, statusText: response.statusText, headers })
}
