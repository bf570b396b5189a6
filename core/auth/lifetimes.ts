/** How long a connect code can be exchanged, from its issue: docs/oauth.md#connect-flow "Codes: single use, 5 minutes". */
export const CONNECT_CODE_TTL_MS = 5 * 60 * 1000

/** How long an OAuth authorization code can be redeemed, from consent. @see docs/oauth.md#authorize-and-consent */
export const AUTHORIZATION_CODE_TTL_MS = 5 * 60 * 1000

/** How long an OAuth access token lives. @see docs/oauth.md#tokens */
export const ACCESS_TOKEN_TTL_SECONDS = 3600

/**
 * How long a retired signing key keeps verifying: the longest-lived thing it signed (an access token)
 * plus a margin for clocks that disagree a little. @see docs/oauth.md#signing-keys
 */
export const RETIRED_KEY_GRACE_MS = (ACCESS_TOKEN_TTL_SECONDS + 300) * 1000

/** A web session's longest life, and how long it may go unused. @see docs/security.md#web-sessions */
export const SESSION_DAYS = 30
export const SESSION_IDLE_DAYS = 7
