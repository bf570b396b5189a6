// The connect flow's pure parts (docs/oauth.md#connect-flow, docs/extension.md#connect): the server address,
// PKCE, the connect page's URL and the redirect it comes back with.

/** What the extension asks for: capture, read (the badge's lookup, the popup), write (folder, tags, read), folders, the email. */
export const CONNECT_SCOPES = [
  'saved-items:capture',
  'saved-items:read',
  'saved-items:write',
  'folders:read',
  'account:read',
] as const

export const CONNECT_CLIENT = 'chrome-extension'

/**
 * The server address the person typed, as a URL without query, fragment or trailing slash; `https://` is
 * assumed when no scheme is given. Null when it cannot be one.
 */
export function serverAddress(input: string): string | null {
  const text = input.trim()
  if (!text) return null
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    return null
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.username || url.password)
    return null
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

/** The host permission one server needs: its scheme and host, any port (a match pattern cannot name one). */
export const originPattern = (address: string): string => {
  const url = new URL(address)
  return `${url.protocol}//${url.hostname}/*`
}

export function base64url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** A PKCE verifier: 32 random bytes, 43 base64url characters. */
export const newVerifier = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)))

/** BASE64URL(SHA-256(verifier)): 43 characters. */
export async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))))
}

export interface ConnectRequest {
  redirectUri: string
  codeChallenge: string
  state: string
  label: string
  deviceHint: string
}

/** `{app}/connect?…`: the page that signs the person in and asks for consent. */
export function connectPageUrl(app: string, request: ConnectRequest): string {
  const query = new URLSearchParams({
    client: CONNECT_CLIENT,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: 'S256',
    scopes: CONNECT_SCOPES.join(','),
    label: request.label,
    deviceHint: request.deviceHint,
    state: request.state,
  })
  return `${app}/connect?${query}`
}

export type Redirect = { code: string } | { error: string }

/** The connect page's answer: the code, or the error it sent (`access_denied`, …). */
export function readRedirect(responseUrl: string, state: string): Redirect {
  const url = new URL(responseUrl)
  const params = new URLSearchParams(url.search || url.hash.replace(/^#/, ''))
  if (params.get('state') !== state) return { error: 'state_mismatch' }
  const error = params.get('error')
  if (error) return { error }
  const code = params.get('code')
  return code ? { code } : { error: 'no_code' }
}

const OS_NAMES: Record<string, string> = {
  mac: 'macOS',
  win: 'Windows',
  linux: 'Linux',
  cros: 'ChromeOS',
  android: 'Android',
  openbsd: 'OpenBSD',
  fuchsia: 'Fuchsia',
}

/** "Chromium on Linux": what the settings page shows beside the key. */
export const deviceHint = (browserName: string, os: string): string =>
  `${browserName} on ${OS_NAMES[os] ?? (os || 'an unknown system')}`

/** The browser's name from its user-agent brands, e.g. "Google Chrome", "Microsoft Edge", else "Chromium". */
export function chromiumName(brands: readonly { brand: string }[] | undefined): string {
  const named = brands?.map((b) => b.brand).find((brand) => !/not.?a.?brand|^chromium$/i.test(brand))
  return named ?? 'Chromium'
}
