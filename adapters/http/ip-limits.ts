/** How a rate-limit refusal is worded: the typed API body, an RFC 6749 OAuth body, or a page. */
export type RefusalStyle = 'api' | 'oauth' | 'html'

export interface IpLimitedEndpoint {
  method: 'GET' | 'POST'
  path: string
  style: RefusalStyle
}

/**
 * Public endpoints that guess-able or costly input reaches without a credential; each gets its own
 * per-client-IP bucket (`IP_RATE_LIMIT_MAX` per minute). @see docs/api.md#rate-limits
 */
export const IP_LIMITED_ENDPOINTS: readonly IpLimitedEndpoint[] = [
  { method: 'POST', path: '/connect/exchange', style: 'api' },
  { method: 'POST', path: '/api/auth/oauth2/token', style: 'oauth' },
  { method: 'POST', path: '/api/auth/oauth2/register', style: 'oauth' },
  { method: 'POST', path: '/sign-in', style: 'html' },
  // Account creation is as abusable as sign-in.
  { method: 'POST', path: '/sign-up', style: 'html' },
  // Revocation, the authorization page and the consent form are public or cheap to call and do real work
  // (a token verification, a client lookup or metadata-document fetch, a grant) per request.
  { method: 'POST', path: '/api/auth/oauth2/revoke', style: 'oauth' },
  { method: 'GET', path: '/api/auth/oauth2/authorize', style: 'html' },
  { method: 'POST', path: '/api/auth/oauth2/consent', style: 'html' },
]

export const IP_LIMIT_WINDOW_SECONDS = 60

export function matchIpLimited(method: string, path: string): IpLimitedEndpoint | undefined {
  return IP_LIMITED_ENDPOINTS.find((e) => e.method === method && e.path === path)
}
