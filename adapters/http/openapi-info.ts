import { SCOPE_DESCRIPTIONS } from '../../core/auth/scope-descriptions.ts'

/**
 * The package's version (package.json; test/http/openapi.test.ts keeps them equal), as the MCP server
 * announces it and the OpenAPI document names it in `info["x-package-version"]`.
 */
export const SERVICE_VERSION = '1.1.0'

/**
 * The version of the API description, the OpenAPI document's `info.version`: the API's, not the package's,
 * fixed by the spec at 1.0.0. @see docs/api.md#versions
 */
export const API_DESCRIPTION_VERSION = '1.0.0'

/** The top-level OpenAPI document parts that are not derived from the routes. */
export function openApiDocumentation(baseUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Readlater API',
      version: API_DESCRIPTION_VERSION,
      'x-package-version': SERVICE_VERSION,
      description:
        'A personal read-later queue: capture URLs, list and triage saved items, organise them in folders. Every call except health needs `Authorization: Bearer <API key or OAuth access token>`. Writes accept an `Idempotency-Key` header; every authenticated response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.',
    },
    servers: [{ url: baseUrl }],
    tags: [
      { name: 'Capture', description: 'Save URLs' },
      { name: 'Saved items', description: 'The queue' },
      { name: 'Highlights', description: 'Passages of articles kept, with a colour and a note' },
      { name: 'Folders', description: 'Named groups of items' },
      { name: 'Account', description: 'Who the credential acts for' },
      { name: 'Import and export', description: 'Bring a library in from other services; take all of it out' },
      { name: 'Sync', description: 'What changed since a cursor, deletions included, for clients that keep a copy' },
      {
        name: 'Webhooks',
        description: 'Signed messages (Standard Webhooks) to your URL when your library changes; needs webhooks:manage',
      },
      { name: 'Connect', description: 'Give a named client (chrome-extension, raycast) its own API key' },
      { name: 'Health', description: 'Liveness' },
    ],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http' as const,
          scheme: 'bearer',
          description:
            'A personal API key (`rlk_…`) or an OAuth 2.1 access token. The scope each operation needs is listed in its description and in `x-required-scopes`.',
        },
        oauth2: {
          type: 'oauth2' as const,
          description: `OAuth 2.1 authorization code flow for public clients. PKCE with \`S256\` is required on every authorization request; \`plain\` is refused. Discover the server at ${baseUrl}/.well-known/oauth-protected-resource, register dynamically (RFC 7591) at ${baseUrl}/api/auth/oauth2/register (no client secret), and send \`resource=${baseUrl}\` (RFC 8707). Ask for \`offline_access\` to get a refresh token, which rotates on every use. The access token is sent as \`Authorization: Bearer <token>\`.`,
          flows: {
            authorizationCode: {
              authorizationUrl: `${baseUrl}/api/auth/oauth2/authorize`,
              tokenUrl: `${baseUrl}/api/auth/oauth2/token`,
              refreshUrl: `${baseUrl}/api/auth/oauth2/token`,
              scopes: { ...SCOPE_DESCRIPTIONS },
            },
          },
        },
      },
    },
    security: [{ bearer: [] }, { oauth2: [] }],
  }
}
