/** The top-level OpenAPI document parts that are not derived from the routes. */
export function openApiDocumentation(baseUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Readlater API',
      version: '1.0.0',
      description: 'A personal read-later queue: capture URLs, list and triage saved items, organise them in folders. Every call except health needs `Authorization: Bearer <API key or OAuth access token>`. Writes accept an `Idempotency-Key` header; every authenticated response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.',
    },
    servers: [{ url: baseUrl }],
    tags: [
      { name: 'Capture', description: 'Save URLs' },
      { name: 'Saved items', description: 'The queue' },
      { name: 'Folders', description: 'Named groups of items' },
      { name: 'Account', description: 'Who the credential acts for' },
      { name: 'Health', description: 'Liveness' },
    ],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http' as const,
          scheme: 'bearer',
          description: 'A personal API key (`rlk_…`) or an OAuth 2.1 access token. The scope each operation needs is listed in its description and in `x-required-scopes`.',
        },
      },
    },
    security: [{ bearer: [] }],
  }
}
