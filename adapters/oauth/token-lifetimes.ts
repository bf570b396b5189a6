/** How long an OAuth access token lives (docs/oauth.md#tokens); signing keys outlive their last one. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600
