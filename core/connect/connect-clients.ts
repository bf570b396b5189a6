import { CONNECT_CLIENTS, type ConnectClient } from '../types.ts'

/**
 * Where each connect client may be sent back to. The connect flow has no client registration, so these
 * patterns are the whole trust decision: each pins the origin to one the client's vendor controls.
 * - chrome-extension: `chrome.identity.getRedirectURL()` gives `https://<extension id>.chromiumapp.org/…`,
 *   the id being 32 letters a–p; Chrome alone serves that host, to that extension. The same extension built
 *   for Firefox gets `https://<40 lowercase hex digits>.extensions.allizom.org/…` from
 *   `browser.identity.getRedirectURL()` (the digits a hash of the extension's id); Firefox catches the
 *   navigation to that host for that extension's `identity.launchWebAuthFlow`.
 * - raycast: Raycast's OAuth redirect proxy `https://raycast.com/redirect…` or its app scheme `raycast://…`.
 * The `/` (or end) right after the host leaves no room for a port, `user@` or a look-alike host. Fragments
 * are refused as RFC 6749 §3.1.2 requires of redirection endpoints, and so are whitespace and controls,
 * which no real redirect URI carries and which parsers disagree about.
 * @see docs/oauth.md#connect-flow
 */
const REDIRECT_URI_RULES: Record<ConnectClient, readonly RegExp[]> = {
  'chrome-extension': [
    /^https:\/\/[a-p]{32}\.chromiumapp\.org\/[^#]*$/,
    /^https:\/\/[0-9a-f]{40}\.extensions\.allizom\.org\/[^#]*$/,
  ],
  raycast: [/^https:\/\/raycast\.com\/redirect(?:[/?][^#]*)?$/, /^raycast:\/\/[^#]*$/],
}

/** Longer than any real redirect URI; keeps junk out of the database. */
export const MAX_REDIRECT_URI_LENGTH = 2048

const KNOWN_CLIENTS: ReadonlySet<string> = new Set(CONNECT_CLIENTS)
const WHITESPACE_OR_CONTROL = /[\s\p{Cc}]/u

/** Whether `value` names one of the connect clients of docs/oauth.md#connect-flow. */
export function isConnectClient(value: string): value is ConnectClient {
  return KNOWN_CLIENTS.has(value)
}

/** The rule of {@link isAllowedRedirectUri} in words, for the `invalid_redirect_uri` message and the connect page. */
export function redirectUriRuleOf(client: ConnectClient): string {
  return client === 'chrome-extension'
    ? 'redirectUri must be https://<extension id>.chromiumapp.org/… (the value of chrome.identity.getRedirectURL()) or, in Firefox, https://<40 hex digits>.extensions.allizom.org/… (the value of browser.identity.getRedirectURL())'
    : 'redirectUri must be https://raycast.com/redirect… or raycast://…'
}

/** Whether `redirectUri` is one `client` may be sent back to. @see docs/oauth.md#connect-flow */
export function isAllowedRedirectUri(client: ConnectClient, redirectUri: string): boolean {
  if (redirectUri.length > MAX_REDIRECT_URI_LENGTH || WHITESPACE_OR_CONTROL.test(redirectUri)) return false
  if (!URL.canParse(redirectUri)) return false
  // The pattern must hold for the string and for what a browser makes of it: dot segments (also as
  // `%2e`) resolve away, so `https://raycast.com/redirect/../../evil` is really `https://raycast.com/evil`.
  const resolved = new URL(redirectUri).href
  return REDIRECT_URI_RULES[client].some((rule) => rule.test(redirectUri) && rule.test(resolved))
}
