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
