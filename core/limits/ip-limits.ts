/** How a rate-limit refusal is worded: the typed API body, an RFC 6749 OAuth body, or a page. */
export type RefusalStyle = 'api' | 'oauth' | 'html'

export interface IpLimitedEndpoint {
  method: 'POST'
  path: string
  style: RefusalStyle
}

/**
 * Public endpoints that guess-able or costly input reaches without a credential; each gets its own
 * per-client-IP bucket (`IP_RATE_LIMIT_MAX` per minute). @see CONTRACT §6
 */
export const IP_LIMITED_ENDPOINTS: readonly IpLimitedEndpoint[] = [
  { method: 'POST', path: '/connect/exchange', style: 'api' },
  { method: 'POST', path: '/api/auth/oauth2/token', style: 'oauth' },
  { method: 'POST', path: '/api/auth/oauth2/register', style: 'oauth' },
  { method: 'POST', path: '/sign-in', style: 'html' },
  // Beyond the contract: account creation is as abusable as sign-in.
  { method: 'POST', path: '/sign-up', style: 'html' },
]

export const IP_LIMIT_WINDOW_SECONDS = 60

export function matchIpLimited(method: string, path: string): IpLimitedEndpoint | undefined {
  return IP_LIMITED_ENDPOINTS.find((e) => e.method === method && e.path === path)
}
