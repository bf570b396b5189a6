import { looksLikeApiKey } from '../../core/auth/api-keys.ts'
import { isScope } from '../../core/auth/scopes.ts'
import { SCOPES, type ConnectClient, type Principal } from '../../core/types.ts'
import { useApiKey } from '../app/api-keys.ts'
import { verifyAccessToken } from '../oauth/access-tokens.ts'
import { andThen, type MaybePromise } from '../../core/at-once.ts'
import type { BrowserSession } from './browser-session.ts'
import type { AppDeps } from '../app/deps.ts'

export type CredentialResult = { kind: 'none' } | { kind: 'invalid' } | { kind: 'ok'; principal: Principal }

/** Reads `Authorization: Bearer <credential>` (scheme case-insensitive, RFC 7235). '' when malformed. */
export function bearerToken(header: string | null): string | null {
  if (!header) return null
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(header)
  return match ? match[1]! : ''
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * The one place a request's credential becomes a person and scopes: a personal API key, an OAuth access
 * token for `audience`, or (without an Authorization header) the web session cookie. Every lookup goes to
 * the database, so a revocation made by any process takes effect on the very next request. An API key is
 * resolved at once on an embedded file (core/at-once.ts).
 */
export function resolveCredential(
  deps: AppDeps,
  browser: BrowserSession,
  request: Request,
  audience: string,
): MaybePromise<CredentialResult> {
  const token = bearerToken(request.headers.get('authorization'))
  if (token === null) return resolveSession(deps, browser, request, audience)
  return resolveBearer(deps, token, audience)
}

/** A bearer token (`bearerToken`, not null): a personal API key, or an OAuth access token for `audience`. */
export function resolveBearer(deps: AppDeps, token: string, audience: string): MaybePromise<CredentialResult> {
  if (looksLikeApiKey(token)) return resolveApiKey(deps, token)
  if (JWT_SHAPE.test(token))
    return verifyAccessToken(deps, token, audience).then(
      (principal): CredentialResult => (principal ? { kind: 'ok', principal } : { kind: 'invalid' }),
    )
  return { kind: 'invalid' }
}

/** A bearer token already read as an API key (`looksLikeApiKey`): the person and scopes of the key in force. */
export function resolveApiKey(deps: AppDeps, token: string): MaybePromise<CredentialResult> {
  return andThen(useApiKey(deps, token), (key): CredentialResult => {
    if (!key) return { kind: 'invalid' }
    return {
      kind: 'ok',
      principal: {
        userId: key.userId,
        scopes: key.scopes.filter(isScope),
        credentialId: `key:${key.id}`,
        kind: 'api-key',
        connectClient: (key.connectClient as ConnectClient | null) ?? null,
      },
    }
  })
}

/**
 * A signed-in browser may call the REST API with its session cookie, with every scope. Writes must echo
 * the CSRF cookie in `x-csrf-token`, so another site cannot ride the cookie. Not for /mcp.
 */
async function resolveSession(
  deps: AppDeps,
  browser: BrowserSession,
  request: Request,
  audience: string,
): Promise<CredentialResult> {
  if (audience !== deps.config.baseUrl) return { kind: 'none' }
  const session = await browser.sessionOf(request)
  if (!session) return { kind: 'none' }
  if (!SAFE_METHODS.has(request.method) && !browser.isValidCsrf(request, request.headers.get('x-csrf-token')))
    return { kind: 'invalid' }
  return {
    kind: 'ok',
    principal: {
      userId: session.userId,
      scopes: SCOPES,
      credentialId: `session:${session.tokenHash.slice(0, 32)}`,
      kind: 'session',
      connectClient: null,
    },
  }
}

/** `/mcp` is its own protected resource (docs/security.md#credentials): its own audience and its own metadata document. */
export const isMcpPath = (path: string): boolean => path === '/mcp' || path.startsWith('/mcp/')

export function resourceMetadataUrl(baseUrl: string, path: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource${isMcpPath(path) ? '/mcp' : ''}`
}

/** RFC 6750 §3 challenge; RFC 9728 §5.1 `resource_metadata` points clients at discovery. */
export function unauthorizedChallenge(
  metadataUrl: string,
  credentialSent: boolean,
  scopeHint: string | null = null,
): string {
  const scope = scopeHint ? `, scope="${scopeHint}"` : ''
  return credentialSent
    ? `Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", resource_metadata="${metadataUrl}"${scope}`
    : `Bearer resource_metadata="${metadataUrl}"${scope}`
}

export function insufficientScopeChallenge(metadataUrl: string, scope: string): string {
  return `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadataUrl}"`
}
