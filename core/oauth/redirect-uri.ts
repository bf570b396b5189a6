// Redirect URIs are where authorization codes go, so they are checked twice: at registration (what may be
// registered at all) and at every authorization request (exact match, RFC 9700 §4.1.3).

export const MAX_REDIRECT_URI_LENGTH = 2000

/** Hosts a native app's loopback listener may use (RFC 8252 §7.3 names the IP literals; `localhost` too, as many clients send it). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost'])

/**
 * Schemes that are never a private-use redirect: script and data carriers, local files, and the
 * WHATWG "special" schemes that name network locations rather than an app.
 */
const FORBIDDEN_SCHEMES: ReadonlySet<string> = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'blob:',
  'about:',
  'filesystem:',
  'view-source:',
  'ftp:',
  'ws:',
  'wss:',
  'mailto:',
  'tel:',
  'sms:',
])

const SCHEME = /^[a-z][a-z0-9+.-]*:/i

/**
 * Why a redirect URI may not be registered, or null when it may: `https:`, `http:` on a loopback host,
 * or a private-use scheme such as `com.example.app:/cb`; never a fragment or credentials.
 * @see docs/oauth.md#registration and https://www.rfc-editor.org/rfc/rfc8252#section-7
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length === 0) return 'a redirect URI must not be empty'
  if (uri.length > MAX_REDIRECT_URI_LENGTH)
    return `a redirect URI must be at most ${MAX_REDIRECT_URI_LENGTH} characters`
  // `new URL()` forgets an empty fragment ("…/cb#"), so look at the text itself.
  if (uri.includes('#')) return `redirect URI "${uri}" must not contain a fragment`
  if (/[\s\u0000-\u001f\u007f]/.test(uri)) return 'a redirect URI must not contain whitespace or control characters'
  if (!SCHEME.test(uri) || !URL.canParse(uri)) return `redirect URI "${uri}" is not an absolute URI`
  const url = new URL(uri)
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `redirect URI scheme "${url.protocol}" is not allowed`
  if (url.username !== '' || url.password !== '') return `redirect URI "${uri}" must not carry credentials`
  if (url.protocol === 'https:') return null
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : `redirect URI "${uri}" uses http: on a host other than 127.0.0.1, [::1] or localhost`
  }
  return null
}

// Textual, not URL-normalized: "exact match" must not let `/a/../cb` stand in for `/cb`.
const LOOPBACK_HTTP = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::(\d{1,5}))?(\/[^#]*)?$/

function withoutLoopbackPort(uri: string): string | null {
  const match = LOOPBACK_HTTP.exec(uri)
  if (!match) return null
  const port = match[2] === undefined ? null : Number(match[2])
  if (port !== null && (port < 1 || port > 65535)) return null
  return `http://${match[1]}${match[3] ?? ''}`
}

/**
 * Whether an authorization request's `redirect_uri` is one the client registered: the very same string,
 * except that loopback `http:` URIs match on any port, since a native app gets its port from the OS
 * at run time.
 * @see https://www.rfc-editor.org/rfc/rfc8252#section-7.3
 */
export function matchesRegisteredRedirectUri(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true
  const wanted = withoutLoopbackPort(requested)
  if (wanted === null) return false
  return registered.some((uri) => withoutLoopbackPort(uri) === wanted)
}
