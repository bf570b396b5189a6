import { logUnexpected } from '../app/unexpected.ts'
import { isAppError } from '../../core/errors.ts'
import { isOAuthError, OAuthError, toOAuthErrorBody, type OAuthErrorCode } from '../../core/oauth/oauth-error.ts'
import { readBodyCapped } from './body.ts'
import { jsonDepth, MAX_JSON_DEPTH } from '../../core/limits/json-depth.ts'
import type { AppDeps } from '../app/deps.ts'

// Shared by the machine-facing OAuth endpoints: JSON answers with RFC 6749 errors, never cached, and
// readable from any origin (browser-based MCP clients discover, register and redeem codes via fetch).

export const CORS_HEADERS: Readonly<Record<string, string>> = { 'access-control-allow-origin': '*' }

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }
// The guard adds RateLimit-* to token and registration answers; a browser client may read them.
const EXPOSED = {
  'access-control-expose-headers': 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After',
}

/** RFC 6749 §5.2: 400 for everything except a failed client identification. */
const STATUS_BY_OAUTH_ERROR: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 400,
  consent_required: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  server_error: 500,
}

export function oauthJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...NO_STORE, ...CORS_HEADERS, ...EXPOSED, ...headers },
  })
}

/** A CORS preflight answer for the given methods. */
export function preflight(methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      'access-control-allow-methods': `${methods}, OPTIONS`,
      'access-control-allow-headers': 'Authorization, Content-Type, MCP-Protocol-Version',
      'access-control-max-age': '86400',
    },
  })
}

/** Runs an endpoint, turning OAuth failures into RFC 6749 bodies and anything else into a bare server_error. */
export async function answerOAuth(deps: AppDeps, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run()
  } catch (error) {
    if (isOAuthError(error)) return oauthJson(STATUS_BY_OAUTH_ERROR[error.error], toOAuthErrorBody(error))
    logUnexpected(deps.log, 'oauth endpoint failed', error)
    return oauthJson(500, {
      error: 'server_error',
      error_description: 'The server failed to handle this request; retry later',
    })
  }
}

function mediaType(request: Request): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
}

async function readText(request: Request, onError: OAuthErrorCode): Promise<string> {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await readBodyCapped(request))
  } catch (error) {
    if (isAppError(error)) throw new OAuthError(onError, error.message)
    throw new OAuthError(onError, 'The body is not valid UTF-8')
  }
}

/** An `application/x-www-form-urlencoded` body (token and revocation requests); anything else is invalid_request. */
export async function readOAuthForm(request: Request): Promise<URLSearchParams> {
  const type = mediaType(request)
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError(
      'invalid_request',
      `Content-Type must be application/x-www-form-urlencoded, got ${type ? `"${type}"` : 'none'}`,
    )
  }
  return new URLSearchParams(await readText(request, 'invalid_request'))
}

/** A JSON body (client registration); anything else is invalid_client_metadata. */
export async function readOAuthJson(request: Request): Promise<unknown> {
  const type = mediaType(request)
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    throw new OAuthError(
      'invalid_client_metadata',
      `Content-Type must be application/json, got ${type ? `"${type}"` : 'none'}`,
    )
  }
  const text = await readText(request, 'invalid_client_metadata')
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new OAuthError('invalid_client_metadata', `The body is nested deeper than ${MAX_JSON_DEPTH} levels`)
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new OAuthError('invalid_client_metadata', 'The body is not valid JSON')
  }
}
