import { ConnectError, ValidationError } from '../errors.ts'
import { isAllowedRedirectUri, isConnectClient, redirectUriRuleOf } from './connect-clients.ts'
import { checkConnectAuthorize, type ConnectAuthorizeInput, type ConnectGrant } from './connect-request.ts'

/** Longest `state` the connect page carries back; a client's state is a short random value. */
export const MAX_CONNECT_STATE_LENGTH = 1024
// RFC 6749 Appendix A.5: state is VSCHARs (printable ASCII); these come back from a hidden field unchanged,
// where a line break or NUL would not. Empty is allowed, and given back empty.
const STATE = new RegExp(`^[\\x20-\\x7e]{0,${MAX_CONNECT_STATE_LENGTH}}$`)

/**
 * What the connect page reports to the client in `error`: `invalid_scope` as POST /connect/authorize would,
 * `invalid_request` for what the API calls a ValidationError (a missing or repeated parameter, a challenge
 * or method that is not S256, a bad label or device hint), `access_denied` when the person says no.
 */
export type ConnectPageError = 'invalid_request' | 'invalid_scope' | 'access_denied'

/** The request parameters of the connect page, as query (GET) or hidden fields (POST). */
export type ConnectPageCheck =
  /** Shown to the person, never sent back: the client or where to send the answer cannot be trusted. */
  | { kind: 'error-page'; message: string }
  /** Sent back to the client (for a signed-in person only: docs/oauth.md#the-connect-page). */
  | { kind: 'error-redirect'; error: ConnectPageError; message: string; redirectUri: string; state: string | null }
  | { kind: 'valid'; input: ConnectAuthorizeInput; grant: ConnectGrant; state: string | null }

/**
 * Checks the connect page's parameters (docs/oauth.md#the-connect-page) against what the caller may give
 * (`callerScopes`; a web session holds every scope), in the order of RFC 6749 §4.1.2.1: first what decides
 * where the answer goes and how (`client`, `redirectUri`, `state`), whose problems are shown, never
 * redirected; then the rest, each reported to the client. A parameter given twice is refused: which one is
 * meant is anyone's guess (RFC 6749 §3.1). Unknown parameters are ignored (the CSRF field and the decision
 * travel with the POST's). Scopes are comma-separated. Every value is checked as POST /connect/authorize
 * checks its body, so a request that passes here can be issued a code.
 */
export function checkConnectPageRequest(params: URLSearchParams, callerScopes: readonly string[]): ConnectPageCheck {
  const one = (name: string): string | null | 'repeated' => {
    const values = params.getAll(name)
    return values.length > 1 ? 'repeated' : (values[0] ?? null)
  }
  const client = one('client')
  if (client === null || client === 'repeated' || client === '')
    return page('The request names no client (client is missing or repeated).')
  if (!isConnectClient(client))
    return page('The application that sent you here is unknown: client must be "chrome-extension" or "raycast".')
  const redirectUri = one('redirectUri')
  if (redirectUri === null || redirectUri === 'repeated' || redirectUri === '')
    return page('The request names no place to send the answer (redirectUri is missing or repeated).')
  if (!isAllowedRedirectUri(client, redirectUri)) return page(`${redirectUriRuleOf(client)}.`)
  const state = one('state')
  if (state === 'repeated') return page('The request repeats state.')
  if (state !== null && !STATE.test(state))
    return page(`state must be at most ${MAX_CONNECT_STATE_LENGTH} printable ASCII characters.`)

  const back = (error: ConnectPageError, message: string): ConnectPageCheck => ({
    kind: 'error-redirect',
    error,
    message,
    redirectUri,
    state,
  })
  const fields: Record<string, string | null> = {}
  for (const name of ['codeChallenge', 'codeChallengeMethod', 'scopes', 'label', 'deviceHint']) {
    const value = one(name)
    if (value === 'repeated') return back('invalid_request', `${name} is repeated`)
    if (value === null && name !== 'deviceHint') return back('invalid_request', `${name} is missing`)
    fields[name] = value
  }
  if (fields.codeChallengeMethod !== 'S256') return back('invalid_request', 'codeChallengeMethod must be S256')
  const input: ConnectAuthorizeInput = {
    client,
    redirectUri,
    codeChallenge: fields.codeChallenge!,
    scopes: fields.scopes!.split(','),
    label: fields.label!,
    deviceHint: fields.deviceHint,
  }
  try {
    return { kind: 'valid', input, grant: checkConnectAuthorize(input, callerScopes), state }
  } catch (error) {
    // The client and redirect URI passed above, so a ConnectError here is about the scopes.
    if (error instanceof ConnectError && error.code === 'invalid_scope') return back('invalid_scope', error.message)
    if (error instanceof ValidationError) return back('invalid_request', error.message)
    throw error
  }
}

function page(message: string): ConnectPageCheck {
  return { kind: 'error-page', message }
}

/**
 * The answer's address: the redirect URI (as a browser resolves it) with `params` added after its own query,
 * which is kept byte for byte, each value percent-encoded; a null value is left out (a request without
 * `state` gets none back).
 */
export function connectResponseLocation(redirectUri: string, params: Record<string, string | null>): string {
  const href = new URL(redirectUri).href
  const added = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&')
  if (added === '') return href
  const separator = !href.includes('?') ? '?' : href.endsWith('?') || href.endsWith('&') ? '' : '&'
  return href + separator + added
}
